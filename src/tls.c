/*
 * tls.c - the TLS transport (TLS=1), on mbed TLS: TLS 1.2 with ECDHE and
 * AEAD suites only, session tickets whose keys live and rotate in memory,
 * and ALPN.
 *
 * A connection costs nothing of the library until its first byte comes:
 * a client that connects and says nothing holds a slot and a socket, as
 * over plain HTTP, and no TLS buffers.  The first byte tells a handshake
 * (a TLS record, 0x16) from a plain HTTP request, which gets a 400 in
 * clear text.  The handshake costs milliseconds of CPU, so each step of
 * it runs after handing the turn on, on at most as many threads as there
 * are CPUs, the rest waiting in line, parked (tls_handshake); between
 * the client's flights the
 * connection is parked as an idle one, on no thread, and evicted like one
 * when the slots run out.  The whole handshake gets REQUEST_TIMEOUT
 * (c_due, which the sweep keeps).  From then on the connection is served and parked as
 * any other: the protocol reads plaintext through tls_read and writes
 * through tls_writev; a file body is read and encrypted a piece at a time
 * (conn_copyfile), as sendfile cannot encrypt.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sched.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/ssl.h>
#include <mbedtls/ssl_ticket.h>
#include <mbedtls/version.h>
#include <mbedtls/x509_crt.h>

#include "tls.h"
#include "h2.h"
#include "log.h"

#if MBEDTLS_VERSION_MAJOR != 2 || MBEDTLS_VERSION_MINOR < 16
#error "TLS=1 needs mbed TLS 2.16 to 2.28 (Debian's libmbedtls-dev)"
#endif
#if !defined(MBEDTLS_THREADING_C) || !defined(MBEDTLS_THREADING_PTHREAD)
#error "TLS=1 needs an mbed TLS built with MBEDTLS_THREADING_C and _PTHREAD"
#endif

enum {
	TICKET_LIFETIME = 7200,	/* s; ticket keys rotate as often */
	HELLO_RECORD = 0x16,	/* a TLS handshake record's first byte */
	/* small pieces are gathered up to this, so that a head and a
	 * small body go in one record: http1_respond sends a body of at
	 * most 2 KiB behind its head.  The stack also holds conn_copyfile's
	 * 16 KiB and mbed TLS under it (server_run sizes it) */
	GATHER_MAX = 4096,
	/* records up to this are read from the socket in one read, with
	 * whatever follows them: a request is one read, not two, and a read
	 * that did not fill this leaves nothing behind (see bio_recv) */
	READ_AHEAD = 2048,
	/* bytes one read, or the whole handshake, may take from the
	 * socket: a record carries at most 16 KiB of data and 2 KiB of
	 * overhead, and one read returns at the first that has data; a
	 * client's handshake (no certificate) is a few KiB.  More is
	 * records without data, which the library skips (warning alerts)
	 * for as long as they come, on the turn or past REQUEST_TIMEOUT:
	 * such a connection is closed */
	READ_BUDGET = 64 * 1024,
};

/* What every connection shares, set up once by tls_init(). */
static struct {
	mbedtls_ssl_config	 g_conf;
	mbedtls_x509_crt	 g_cert;	/* TLS_CERT, then TLS_CHAIN */
	mbedtls_pk_context	 g_key;
	mbedtls_entropy_context	 g_entropy;
	mbedtls_ctr_drbg_context g_drbg;	/* locks itself (THREADING_C) */
	mbedtls_ssl_ticket_context g_ticket;
	int			 g_steps_max;	/* see tls_handshake */
} g;
/* handshake steps running off the turn now, atomic */
static int steps;

/* A connection's TLS state, from its first byte on (c_tls). */
struct tls {
	mbedtls_ssl_context	 tl_ssl;
	int			 tl_ready;	/* handshake done */
	int			 tl_broken;	/* a write failed: no more writes */
	int			 tl_send_flags;	/* MSG_MORE while more follows */
	unsigned		 tl_budget;	/* of this read or handshake */
	unsigned short		 tl_in_pos;	/* read ahead: tl_in[pos, len) */
	unsigned short		 tl_in_len;
	unsigned char		 tl_in[READ_AHEAD];
};
/* c_tls of a connection that spoke plain HTTP and was answered */
static struct tls refused;

static const int suites[] = {
	MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	MBEDTLS_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	MBEDTLS_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	0
};
static const mbedtls_ecp_group_id curves[] = {
	MBEDTLS_ECP_DP_CURVE25519, MBEDTLS_ECP_DP_SECP256R1,
	MBEDTLS_ECP_DP_SECP384R1, MBEDTLS_ECP_DP_NONE
};
/* h2 first when HTTP2=1: clients take the server's order.  http/1.0 is
 * served too: a client that offers it alone is no reason for an alert */
static const char *alpn[] = { ENABLE_HTTP2 ? "h2" : "http/1.1",
    ENABLE_HTTP2 ? "http/1.1" : "http/1.0",
    ENABLE_HTTP2 ? "http/1.0" : NULL, NULL };

/* --- the socket under the library ------------------------------------- */

static int
bio_send(void *arg, const unsigned char *p, size_t n)
{
	struct conn *c = arg;
	ssize_t w;

	do
		w = send(c->c_fd, p, n, MSG_NOSIGNAL | c->c_tls->tl_send_flags);
	while (w == -1 && errno == EINTR);
	if (w >= 0)
		return (int)w;
	return errno == EAGAIN || errno == EWOULDBLOCK ?
	    MBEDTLS_ERR_SSL_WANT_WRITE : MBEDTLS_ERR_NET_SEND_FAILED;
}

/* The plain transport's read (EINTR, and c_more after a full read) into
 * p for bio_recv: bytes, or the library's error. */
static int
sock_recv(struct conn *c, unsigned char *p, size_t n)
{
	ssize_t r = plain_transport.t_read(c, p, n);

	if (r >= 0)
		return (int)r;
	return errno == EAGAIN || errno == EWOULDBLOCK ?
	    MBEDTLS_ERR_SSL_WANT_READ : MBEDTLS_ERR_NET_RECV_FAILED;
}

/*
 * The library asks for exact lengths: a record's header, then its body.
 * Small asks are served from tl_in, filled by one read of whatever the
 * socket has; a big one reads straight into the library's buffer.  Bytes
 * left in tl_in are input epoll will not report again: c_more says so,
 * and tls_pending counts them.
 */
static int
bio_take(struct conn *c, unsigned char *p, size_t n)
{
	struct tls *t = c->c_tls;
	size_t k = (size_t)(t->tl_in_len - t->tl_in_pos);
	int r;

	if (k == 0 && n < sizeof(t->tl_in)) {
		if ((r = sock_recv(c, t->tl_in, sizeof(t->tl_in))) <= 0)
			return r;
		t->tl_in_pos = 0;
		t->tl_in_len = (unsigned short)r;
		k = (size_t)r;
	}
	if (k == 0)
		return sock_recv(c, p, n);
	if (k > n)
		k = n;
	memcpy(p, t->tl_in + t->tl_in_pos, k);
	t->tl_in_pos = (unsigned short)(t->tl_in_pos + k);
	if (t->tl_in_pos < t->tl_in_len)
		__atomic_store_n(&c->c_more, 1, __ATOMIC_RELAXED);
	return (int)k;
}

/* Each read, and the handshake, takes READ_BUDGET bytes at most; past it
 * the connection fails. */
static int
bio_recv(void *arg, unsigned char *p, size_t n)
{
	struct conn *c = arg;
	struct tls *t = c->c_tls;
	int r = bio_take(c, p, n);

	if (r > 0) {
		if ((unsigned)r > t->tl_budget)
			return MBEDTLS_ERR_NET_RECV_FAILED;
		t->tl_budget -= (unsigned)r;
	}
	return r;
}

/* Waits for what the library wants (r: WANT_READ or WANT_WRITE) until
 * deadline, monotonic ms.  0 ready, -1 time-out or error. */
static int
tls_await(struct conn *c, int r, long long deadline)
{
	long long left = deadline - now_ms();

	if (r != MBEDTLS_ERR_SSL_WANT_READ && r != MBEDTLS_ERR_SSL_WANT_WRITE)
		return -1;
	return left > 0 && plain_transport.t_wait(c, r ==
	    MBEDTLS_ERR_SSL_WANT_READ ? POLLIN : POLLOUT, (int)left) > 0 ?
	    0 : -1;
}

/* --- starting a connection --------------------------------------------- */

/*
 * Plain HTTP on the TLS port: a 400 in clear text, as lighttpd and nginx
 * answer, then closed after lingering (tls_close), so the client reads it.
 * Logged as a refused request, with the first line it sent.
 */
static void
tls_refuse(struct conn *c)
{
	static const char msg[] = "HTTP/1.1 400 Bad Request\r\n"
	    "Content-Type: text/plain\r\nContent-Length: 39\r\n"
	    "Connection: close\r\n\r\n"
	    "This port speaks HTTPS: use https://.\r\n";
	char line[256];
	struct access a = { .a_line = line, .a_status = 400, .a_rejected = 1,
	    .a_bytes = 39 };
	ssize_t n;

	(void)!send(c->c_fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	c->c_tls = &refused;
	if (!ENABLE_LOG)
		return;
	n = recv(c->c_fd, line, sizeof(line), MSG_DONTWAIT);
	while (n > 0 && a.a_line_len < (size_t)n &&
	    line[a.a_line_len] != '\r' && line[a.a_line_len] != '\n')
		a.a_line_len++;
	log_access(c, &a);
}

/*
 * The handshake, as far as the client's input goes: 1 done, 0 when it
 * waits for the client's next flight (to be parked), -1 failed or past
 * REQUEST_TIMEOUT.
 */
static int
tls_step(struct conn *c)
{
	struct tls *t = c->c_tls;
	const char *p;
	int r;

	/* not calloc: the read-ahead buffer's pages stay untouched until
	 * used; mbedtls_ssl_init clears the context */
	if (t == NULL && (t = malloc(sizeof(*t))) == NULL)
		return -1;
	if (c->c_tls == NULL) {
		t->tl_ready = t->tl_broken = t->tl_send_flags = 0;
		t->tl_in_pos = t->tl_in_len = 0;
		t->tl_budget = READ_BUDGET;
		c->c_tls = t;
		if (c->c_due == 0)	/* else set in line (tls_handshake) */
			c->c_due = now_ms() + CONFIG_REQUEST_TIMEOUT * 1000LL;
		mbedtls_ssl_init(&t->tl_ssl);
		if (mbedtls_ssl_setup(&t->tl_ssl, &g.g_conf) != 0)
			return -1;	/* tls_close frees it */
		mbedtls_ssl_set_bio(&t->tl_ssl, c, bio_send, bio_recv, NULL);
	}
	if (now_ms() >= c->c_due)
		return -1;	/* out of time in line: no signature for it */
	while ((r = mbedtls_ssl_handshake(&t->tl_ssl)) != 0) {
		if (r == MBEDTLS_ERR_SSL_WANT_READ && now_ms() < c->c_due)
			return 0;
		if (tls_await(c, r, c->c_due) == -1)
			return -1;
	}
	t->tl_ready = 1;
	c->c_due = 0;
	if (ENABLE_HTTP2 && (p = mbedtls_ssl_get_alpn_protocol(&t->tl_ssl)) !=
	    NULL && strcmp(p, "h2") == 0)
		c->c_proto = &h2_protocol;	/* http1.c hands over */
	return 1;
}

/*
 * A step of the handshake costs milliseconds of CPU (an RSA signature
 * more), so it runs off the turn, as a thread of its own, while fewer
 * steps than CPUs do.  Past that, or behind others waiting, it waits in
 * line, parked (server_defer): the turn holder goes on serving everyone
 * else, and takes it up when a step ends.  A thread each would not go
 * faster, only take memory: 1,000 handshakes at once against an RSA key
 * took 939 threads and 74 MB of RSS, a router's whole RAM.  Returns as
 * tls_step, 0 too when in line.
 */
static int
tls_handshake(struct conn *c)
{
	int first, off = 0, r;

	if (server_turn) {
		first = server_defer_first();
		off = first && __atomic_add_fetch(&steps, 1,
		    __ATOMIC_SEQ_CST) <= g.g_steps_max;
		if (first && !off)
			__atomic_sub_fetch(&steps, 1, __ATOMIC_SEQ_CST);
		if (!off && server_defer(c->c_tls != NULL) == 0) {
			/* the handshake's REQUEST_TIMEOUT runs from here: the
			 * sweep does not take it for an idle connection */
			if (c->c_due == 0)
				c->c_due = now_ms() +
				    CONFIG_REQUEST_TIMEOUT * 1000LL;
			return 0;
		}
	}
	r = off && server_yield() != 0 ? -1 : tls_step(c);
	if (off) {
		/* counted down before the look at the line: see
		 * server_defer */
		__atomic_sub_fetch(&steps, 1, __ATOMIC_SEQ_CST);
		server_defer_room();
	}
	return r;
}

int
tls_room(void)
{
	return __atomic_load_n(&steps, __ATOMIC_SEQ_CST) < g.g_steps_max;
}

/*
 * A connection's input before the handshake is done.  Returns 1 when it
 * is, 0 at the end of the stream (or after refusing plain HTTP), -1 with
 * errno: EAGAIN when the client's next bytes have not come yet.
 */
static int
tls_start(struct conn *c)
{
	unsigned char first;
	ssize_t n;

	if (c->c_tls == &refused)
		return 0;
	if (c->c_tls == NULL) {		/* its first byte */
		do
			n = recv(c->c_fd, &first, 1, MSG_PEEK);
		while (n == -1 && errno == EINTR);
		if (n <= 0)
			return (int)n;
		if (first != HELLO_RECORD) {
			tls_refuse(c);
			return 0;
		}
	}
	if ((n = tls_handshake(c)) <= 0)
		errno = n == 0 ? EAGAIN : ECONNABORTED;
	return n > 0 ? 1 : -1;
}

/* --- the transport ------------------------------------------------------ */

static ssize_t
tls_read(struct conn *c, void *buf, size_t n)
{
	struct tls *t = c->c_tls;
	int r;

	if ((t == NULL || !t->tl_ready) && (r = tls_start(c)) <= 0)
		return r;
	t = c->c_tls;
	t->tl_send_flags = 0;	/* an alert the library sends goes at once */
	t->tl_budget = READ_BUDGET;
	r = mbedtls_ssl_read(&t->tl_ssl, buf, n);
	if (r > 0) {
		if (mbedtls_ssl_get_bytes_avail(&t->tl_ssl) > 0)
			__atomic_store_n(&c->c_more, 1, __ATOMIC_RELAXED);
		return r;
	}
	if (r == MBEDTLS_ERR_SSL_WANT_READ || r == MBEDTLS_ERR_SSL_WANT_WRITE) {
		/* between requests (nothing of a head in the buffer: c_len
		 * 0), records came and no byte of a request: a record under
		 * way, or records without data (alerts).  Those bytes stay
		 * with the library, so the connection would park as idle,
		 * each byte renewing KEEPALIVE_TIMEOUT: a head has begun,
		 * and its REQUEST_TIMEOUT runs (the sweep keeps c_due;
		 * read_head clears it once a head is whole, HTTP/2 sets its
		 * own).  A body's reads have their head in the buffer */
		if (t->tl_budget < READ_BUDGET && c->c_due == 0 && c->c_len == 0)
			c->c_due = now_ms() + CONFIG_REQUEST_TIMEOUT * 1000LL;
		errno = EAGAIN;
		return -1;
	}
	if (r == 0 || r == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY ||
	    r == MBEDTLS_ERR_SSL_CONN_EOF)
		return 0;
	errno = ECONNRESET;
	return -1;
}

/*
 * Writes n bytes as records, waiting for room unless IO_NOWAIT, each wait
 * up to REQUEST_TIMEOUT as in plain.c.  0, or -1.  A record the library
 * could not send whole stays in its buffer, and the library wants the
 * very same write again: anything else would lose it.  So a failure, an
 * IO_NOWAIT one too, ends writing on this connection (tl_broken).
 */
static int
tls_write(struct conn *c, const unsigned char *p, size_t n, int flags)
{
	struct tls *t = c->c_tls;
	int r;

	while (n > 0) {
		r = mbedtls_ssl_write(&t->tl_ssl, p, n);
		if (r > 0) {
			p += r;
			n -= (size_t)r;
		} else if ((flags & IO_NOWAIT) ||
		    tls_await(c, r, now_ms() + conn_write_ms(c)) == -1) {
			t->tl_broken = 1;
			c->c_close = 1;
			return -1;
		}
	}
	return 0;
}

/*
 * Small pieces are gathered into one record (a head and its body); a big
 * one goes as it is.  MSG_MORE holds every record but the last back.
 */
static int
tls_writev(struct conn *c, struct iovec *iov, int cnt, int flags)
{
	unsigned char gather[GATHER_MAX];
	const unsigned char *p;
	size_t n;

	/* nothing is written before the handshake, or after a failure */
	if (c->c_tls == NULL || !c->c_tls->tl_ready || c->c_tls->tl_broken)
		return -1;
	while (cnt > 0) {
		if (cnt == 1 || iov->iov_len + iov[1].iov_len > sizeof(gather)) {
			p = iov->iov_base;
			n = iov->iov_len;
			iov++, cnt--;
		} else {
			for (n = 0; cnt > 0 && n + iov->iov_len <= sizeof(gather);
			    iov++, cnt--) {
				memcpy(gather + n, iov->iov_base, iov->iov_len);
				n += iov->iov_len;
			}
			p = gather;
		}
		c->c_tls->tl_send_flags = cnt > 0 || (flags & IO_MORE) ?
		    MSG_MORE : 0;
		if (tls_write(c, p, n, flags) == -1)
			return -1;
	}
	return 0;
}

/* Plaintext the library holds, decrypted or not yet, that poll cannot
 * see. */
static int
tls_pending(struct conn *c)
{
	struct tls *t = c->c_tls;

	return t != NULL && t->tl_ready && (t->tl_in_pos < t->tl_in_len ||
	    mbedtls_ssl_get_bytes_avail(&t->tl_ssl) > 0 ||
	    mbedtls_ssl_check_pending(&t->tl_ssl));
}

void
tls_cut(struct conn *c)
{
	if (c->c_tls != NULL && c->c_tls != &refused)
		c->c_tls->tl_broken = 1;
}

/* A close_notify when the session was up, without waiting; then as plain. */
static void
tls_close(struct conn *c, int drain)
{
	struct tls *t = c->c_tls;

	if (t == &refused)
		drain = 1;
	else if (t != NULL) {
		if (t->tl_ready && !t->tl_broken) {
			t->tl_send_flags = MSG_DONTWAIT;
			(void)mbedtls_ssl_close_notify(&t->tl_ssl);
		}
		mbedtls_ssl_free(&t->tl_ssl);
		free(t);
	}
	c->c_tls = NULL;
	plain_transport.t_close(c, drain);
}

static int
tls_wait(struct conn *c, short events, int ms)
{
	return plain_transport.t_wait(c, events, ms);
}

const struct transport tls_transport = {
	.t_read = tls_read,
	.t_writev = tls_writev,
	.t_sendfile = NULL,	/* conn_copyfile: read, encrypt, write */
	.t_pending = tls_pending,
	.t_wait = tls_wait,
	.t_close = tls_close,
};

/* --- start-up ------------------------------------------------------------ */

/* "what: the library's reason" into err; returns -1. */
static int
tls_fail(char *err, size_t errsz, const char *what, int r)
{
	char why[160];

	mbedtls_strerror(r, why, sizeof(why));
	concat(err, errsz, what, ": ", why, NULL);
	return -1;
}

/* Reads a PEM file into the certificate chain (key NULL) or the key.
 * Returns 0, or -1 with "KEY path: reason" in err. */
static int
tls_load(const char *path, const char *what, mbedtls_pk_context *key,
    char *err, size_t errsz)
{
	struct stat st;
	int r;

	/* the library says only "read failed", or that memory ran out for
	 * a directory: say why */
	if (access(path, R_OK) == -1 || stat(path, &st) == -1) {
		concat(err, errsz, what, ": ", strerror(errno), NULL);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		concat(err, errsz, what, ": not a regular file", NULL);
		return -1;
	}
	r = key != NULL ? mbedtls_pk_parse_keyfile(key, path, NULL) :
	    mbedtls_x509_crt_parse_file(&g.g_cert, path);
	/* above 0: that many of its certificates could not be parsed (the
	 * library's "generic error"); a chain with a hole is refused too */
	if (r > 0) {
		concat(err, errsz, what, ": a certificate in it could not be "
		    "parsed", NULL);
		return -1;
	}
	return r == 0 ? 0 : tls_fail(err, errsz, what, r);
}

int
tls_init(char *err, size_t errsz)
{
	mbedtls_ssl_config *conf = &g.g_conf;
	cpu_set_t cpus;
	int r;

	mbedtls_ssl_config_init(conf);
	mbedtls_x509_crt_init(&g.g_cert);
	mbedtls_pk_init(&g.g_key);
	mbedtls_entropy_init(&g.g_entropy);
	mbedtls_ctr_drbg_init(&g.g_drbg);
	mbedtls_ssl_ticket_init(&g.g_ticket);
	/* the CPUs it may run on (sched_getaffinity, as taskset sets them;
	 * musl's sysconf brings 1.5 KB of table for it) */
	r = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
	g.g_steps_max = r < 1 ? 1 : r > 64 ? 64 : r;
	/* getrandom(2) feeds it, also inside the jail */
	if ((r = mbedtls_ctr_drbg_seed(&g.g_drbg, mbedtls_entropy_func,
	    &g.g_entropy, (const unsigned char *)"mrhttpd", 7)) != 0)
		return tls_fail(err, errsz, "TLS random generator", r);
	if (tls_load(CONFIG_TLS_CERT, "TLS_CERT " CONFIG_TLS_CERT, NULL, err,
	    errsz) == -1 || (*CONFIG_TLS_CHAIN != '\0' && tls_load(
	    CONFIG_TLS_CHAIN, "TLS_CHAIN " CONFIG_TLS_CHAIN, NULL, err,
	    errsz) == -1) || tls_load(CONFIG_TLS_KEY, "TLS_KEY "
	    CONFIG_TLS_KEY, &g.g_key, err, errsz) == -1)
		return -1;
	if ((r = mbedtls_pk_check_pair(&g.g_cert.pk, &g.g_key)) != 0)
		return tls_fail(err, errsz, "TLS_KEY " CONFIG_TLS_KEY
		    " does not match TLS_CERT " CONFIG_TLS_CERT, r);
	if ((r = mbedtls_ssl_config_defaults(conf, MBEDTLS_SSL_IS_SERVER,
	    MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT)) != 0 ||
	    (r = mbedtls_ssl_conf_own_cert(conf, &g.g_cert, &g.g_key)) != 0 ||
	    (r = mbedtls_ssl_conf_alpn_protocols(conf, alpn)) != 0 ||
	    (r = mbedtls_ssl_ticket_setup(&g.g_ticket, mbedtls_ctr_drbg_random,
	    &g.g_drbg, MBEDTLS_CIPHER_AES_256_GCM, TICKET_LIFETIME)) != 0)
		return tls_fail(err, errsz, "TLS set-up", r);
	mbedtls_ssl_conf_rng(conf, mbedtls_ctr_drbg_random, &g.g_drbg);
	mbedtls_ssl_conf_min_version(conf, MBEDTLS_SSL_MAJOR_VERSION_3,
	    MBEDTLS_SSL_MINOR_VERSION_3);
	mbedtls_ssl_conf_ciphersuites(conf, suites);
	mbedtls_ssl_conf_curves(conf, curves);
	mbedtls_ssl_conf_session_tickets_cb(conf, mbedtls_ssl_ticket_write,
	    mbedtls_ssl_ticket_parse, &g.g_ticket);
	return 0;
}

const char *
tls_library(void)
{
	return "mbed TLS " MBEDTLS_VERSION_STRING;
}
