/*
 * tls-client.c - a TLS 1.2 client, on mbed TLS, that completes a handshake
 * and then misbehaves, for 71-tls-attack.t:
 *
 *   tls-client HOST PORT flood N
 *	warning alerts (user_canceled, which a receiver skips) as fast as
 *	the socket takes them, until N have gone or the server closes;
 *	prints "sent K".  A flood of records without data must not hold
 *	the server.
 *   tls-client HOST PORT alerts INTERVAL_MS SECONDS
 *	one such alert every INTERVAL_MS;
 *   tls-client HOST PORT record INTERVAL_MS SECONDS
 *	the record of a request head, encrypted, one byte every
 *	INTERVAL_MS; for both, prints "closed after S s" when the server
 *	closes the connection, or "open after S s" once SECONDS have
 *	passed.  Such a client must get REQUEST_TIMEOUT, not keep its
 *	connection for as long as it likes.
 *   tls-client HOST PORT body PATH IDLE_MS [METHOD]
 *	a POST (or METHOD) of PATH with a body of 3,000 bytes in one
 *	record, sent in two halves 200 ms apart; after the answer, IDLE_MS
 *	of silence,
 *	then a GET of PATH on the same connection.  Prints "first: LINE"
 *	and "second: LINE" (their status lines), or "second: closed".
 *	Keep-alive must outlast a body that came in pieces.
 *
 * Exits 0; 1 when it cannot connect or the handshake fails, 2 on bad usage.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/ssl.h>

static unsigned char rec[16384];
static size_t rec_len;

/* The library's output kept, not sent: the request's record. */
static int
keep(void *arg, const unsigned char *p, size_t n)
{
	(void)arg;
	if (n > sizeof(rec) - rec_len)
		return MBEDTLS_ERR_SSL_WANT_WRITE;
	memcpy(rec + rec_len, p, n);
	rec_len += n;
	return (int)n;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Has the server closed the connection?  What it sends meanwhile (a 408
 * in a record, an alert) is read and dropped. */
static int
closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];

	while (poll(&p, 1, 0) == 1)
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			return 1;
	return 0;
}

static int
alert(mbedtls_ssl_context *ssl)
{
	return mbedtls_ssl_send_alert_message(ssl,
	    MBEDTLS_SSL_ALERT_LEVEL_WARNING,
	    MBEDTLS_SSL_ALERT_MSG_USER_CANCELED) == 0;
}

/* record and alerts: until the server closes, or secs have passed */
static void
trickle(mbedtls_ssl_context *ssl, int fd, int record, long ms, double secs)
{
	static const char head[] = "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: "
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "\r\n\r\n";
	struct timespec iv = { ms / 1000, ms % 1000 * 1000000L };
	double t0;
	size_t k = 0;
	int ok = 1;

	if (record) {
		mbedtls_ssl_set_bio(ssl, NULL, keep, mbedtls_net_recv, NULL);
		if (mbedtls_ssl_write(ssl, (const unsigned char *)head,
		    sizeof(head) - 1) != (int)sizeof(head) - 1)
			exit(1);
	}
	for (t0 = now(); ok && now() - t0 < secs; nanosleep(&iv, NULL)) {
		if (closed(fd))
			break;
		if (!record)
			ok = alert(ssl);
		else if (k < rec_len)
			ok = send(fd, rec + k++, 1, MSG_NOSIGNAL) == 1;
	}
	printf("%s after %.1f s\n", now() - t0 < secs ? "closed" : "open",
	    now() - t0);
}

/* The status line of what the server sends within ms, or "closed". */
static void
answer(mbedtls_ssl_context *ssl, int fd, const char *what, long ms)
{
	char buf[8192];
	size_t n = 0;
	double t0 = now();
	int r;

	while (n < sizeof(buf) - 1 && now() - t0 < ms / 1000.0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (mbedtls_ssl_get_bytes_avail(ssl) == 0 && poll(&p, 1, 50) != 1)
			continue;
		r = mbedtls_ssl_read(ssl, (unsigned char *)buf + n,
		    sizeof(buf) - 1 - n);
		if (r == MBEDTLS_ERR_SSL_WANT_READ)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (memchr(buf, '\n', n) != NULL)
			break;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	printf("%s: %s\n", what, n > 0 ? buf : "closed");
}

/* Reads and drops what the server sends for ms. */
static void
drain(mbedtls_ssl_context *ssl, int fd, long ms)
{
	unsigned char junk[4096];
	double t0 = now();
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (now() - t0 < ms / 1000.0)
		if ((mbedtls_ssl_get_bytes_avail(ssl) > 0 || poll(&p, 1, 50) == 1)
		    && mbedtls_ssl_read(ssl, junk, sizeof(junk)) <= 0 &&
		    mbedtls_ssl_get_bytes_avail(ssl) == 0)
			poll(NULL, 0, 10);
}

/* body: a POST (or method) whose body's record comes in two halves,
 * then silence */
static void
body(mbedtls_ssl_context *ssl, mbedtls_net_context *fd, const char *method,
    const char *path, long idle)
{
	struct timespec gap = { 0, 200000000L }, rest = { idle / 1000,
	    idle % 1000 * 1000000L };
	unsigned char data[3000];
	char head[512];
	size_t half;

	memset(data, 'b', sizeof(data));
	snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: x\r\n"
	    "Content-Length: %zu\r\n\r\n", method, path, sizeof(data));
	if (mbedtls_ssl_write(ssl, (unsigned char *)head, strlen(head)) <= 0)
		exit(1);
	mbedtls_ssl_set_bio(ssl, NULL, keep, mbedtls_net_recv, NULL);
	if (mbedtls_ssl_write(ssl, data, sizeof(data)) != (int)sizeof(data))
		exit(1);
	mbedtls_ssl_set_bio(ssl, fd, mbedtls_net_send, mbedtls_net_recv, NULL);
	half = rec_len / 2;
	if (send(fd->fd, rec, half, MSG_NOSIGNAL) != (ssize_t)half)
		exit(1);
	nanosleep(&gap, NULL);
	if (send(fd->fd, rec + half, rec_len - half, MSG_NOSIGNAL) !=
	    (ssize_t)(rec_len - half))
		exit(1);
	answer(ssl, fd->fd, "first", 5000);
	drain(ssl, fd->fd, 500);	/* the rest of it */
	nanosleep(&rest, NULL);
	snprintf(head, sizeof(head), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n",
	    path);
	if (mbedtls_ssl_write(ssl, (unsigned char *)head, strlen(head)) <= 0) {
		printf("second: closed\n");
		return;
	}
	answer(ssl, fd->fd, "second", 5000);
}

int
main(int argc, char **argv)
{
	mbedtls_net_context fd;
	mbedtls_ssl_context ssl;
	mbedtls_ssl_config conf;
	mbedtls_entropy_context ent;
	mbedtls_ctr_drbg_context drbg;
	long n, k;
	int r;

	if (argc < 5 || (strcmp(argv[3], "flood") != 0 && argc != 6 &&
	    !(strcmp(argv[3], "body") == 0 && argc == 7))) {
		fprintf(stderr, "usage: tls-client HOST PORT flood N | "
		    "alerts|record INTERVAL_MS SECONDS | body PATH IDLE_MS "
		    "[METHOD]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	mbedtls_net_init(&fd);
	mbedtls_ssl_init(&ssl);
	mbedtls_ssl_config_init(&conf);
	mbedtls_entropy_init(&ent);
	mbedtls_ctr_drbg_init(&drbg);
	if (mbedtls_ctr_drbg_seed(&drbg, mbedtls_entropy_func, &ent, NULL, 0) ||
	    mbedtls_ssl_config_defaults(&conf, MBEDTLS_SSL_IS_CLIENT,
	    MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT))
		return 1;
	mbedtls_ssl_conf_authmode(&conf, MBEDTLS_SSL_VERIFY_NONE);
	mbedtls_ssl_conf_rng(&conf, mbedtls_ctr_drbg_random, &drbg);
	if (mbedtls_ssl_setup(&ssl, &conf) ||
	    mbedtls_net_connect(&fd, argv[1], argv[2], MBEDTLS_NET_PROTO_TCP))
		return 1;
	mbedtls_ssl_set_bio(&ssl, &fd, mbedtls_net_send, mbedtls_net_recv, NULL);
	while ((r = mbedtls_ssl_handshake(&ssl)) != 0)
		if (r != MBEDTLS_ERR_SSL_WANT_READ && r != MBEDTLS_ERR_SSL_WANT_WRITE) {
			fprintf(stderr, "tls-client: handshake failed: -0x%x\n", -r);
			return 1;
		}
	if (strcmp(argv[3], "body") == 0) {
		mbedtls_net_set_nonblock(&fd);
		body(&ssl, &fd, argc == 7 ? argv[6] : "POST", argv[4],
		    atol(argv[5]));
		return 0;
	}
	if (strcmp(argv[3], "flood") != 0) {
		trickle(&ssl, fd.fd, strcmp(argv[3], "record") == 0,
		    atol(argv[4]), atof(argv[5]));
		return 0;
	}
	n = atol(argv[4]);
	for (k = 0; k < n && alert(&ssl); k++)
		;
	printf("sent %ld\n", k);
	return 0;
}
