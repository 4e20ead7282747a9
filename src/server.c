/*
 * server.c - listen, accept, one detached thread per connection, and the
 * keep-alive loop: read a head, parse it, serve it, log it, repeat.
 */
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mrhttpd.h"
#include "log.h"

enum {
	DISCARD_MAX = 65536,	/* unwanted bodies up to this are read and dropped */
	LINGER_MS = 2000,	/* how long a closing connection drains input */
};

volatile int server_stopping;
static int listen_fd = -1;
static sem_t slots;		/* free connection slots, MAX_CONNECTIONS */
static int active;		/* connection threads alive, atomic */
static pthread_attr_t thread_attr;

/*
 * Sockets of live connections, fd + 1 (0 is free), so that a stop can wake
 * the idle ones.  Only the acceptor claims slots and only the owning thread
 * frees its own, before it returns its semaphore slot: no lock needed.
 */
static int conn_slots[CONFIG_MAX_CONNECTIONS];

/*
 * Opens the listening socket.  An empty addr means all addresses: one
 * IPv6 socket that takes IPv4 too, or plain IPv4 where the kernel has no
 * IPv6.  Returns the socket, or -1 with a message in err.
 */
int
server_listen(const char *addr, int port, char *err, size_t errsz)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fd, on = 1, off = 0;

	memset(&ss, 0, sizeof(ss));
	if (*addr == '\0' || inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		len = sizeof(*sin6);
	} else if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		len = sizeof(*sin);
	} else {
		snprintf(err, errsz, "%s is not an IPv4 or IPv6 address", addr);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd == -1 && *addr == '\0' && errno == EAFNOSUPPORT) {
		memset(&ss, 0, sizeof(ss));
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		len = sizeof(*sin);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	}
	if (fd == -1) {
		snprintf(err, errsz, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (ss.ss_family == AF_INET6 && *addr == '\0')
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	if (bind(fd, (struct sockaddr *)&ss, len) == -1) {
		snprintf(err, errsz, "bind to %s port %d: %s",
		    *addr ? addr : "all addresses", port, strerror(errno));
		close(fd);
		return -1;
	}
	if (listen(fd, 4096) == -1) {
		snprintf(err, errsz, "listen: %s", strerror(errno));
		close(fd);
		return -1;
	}
	listen_fd = fd;
	return fd;
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Fills c_addr with the peer's address, IPv4-mapped addresses as IPv4. */
static void
conn_peer(struct conn *c)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&c->c_peer;
	socklen_t len = sizeof(c->c_peer);

	strcpy(c->c_addr, "-");
	if (getpeername(c->c_fd, (struct sockaddr *)&c->c_peer, &len) == -1)
		return;
	if (c->c_peer.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&c->c_peer)->sin_addr,
		    c->c_addr, sizeof(c->c_addr));
	else if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], c->c_addr,
		    sizeof(c->c_addr));
	else
		inet_ntop(AF_INET6, &s6->sin6_addr, c->c_addr, sizeof(c->c_addr));
}

/*
 * Closes a connection.  With unread input, first half-close and drain it
 * briefly: closing with data pending sends a reset that can destroy the
 * reply we just wrote before the client reads it.
 */
static void
conn_close(struct conn *c, int drain)
{
	char sink[4096];
	long long deadline;
	ssize_t n;

	if (drain) {
		shutdown(c->c_fd, SHUT_WR);
		deadline = now_ms() + LINGER_MS;
		while (now_ms() < deadline &&
		    conn_wait_readable(c, (int)(deadline - now_ms())) > 0 &&
		    (n = conn_read(c, sink, sizeof(sink))) > 0)
			;
	}
	close(c->c_fd);
}

/* Reads and drops n body bytes that follow the head.  Returns 0 or -1. */
static int
discard(struct conn *c, long long n)
{
	char sink[4096];
	ssize_t r;

	while (n > 0) {
		r = conn_read(c, sink, n > (long long)sizeof(sink) ?
		    sizeof(sink) : (size_t)n);
		if (r <= 0)
			return -1;
		n -= r;
	}
	return 0;
}

/*
 * Reads until a complete head is in the buffer.  Returns its length, 0 when
 * the connection ended or idled out between requests, or -status.
 */
static int
read_head(struct conn *c, struct request *r)
{
	size_t scanned = 0;
	long long deadline = 0, now;
	ssize_t n;
	int rc;

	for (;;) {
		if (c->c_len > 0 &&
		    (rc = request_parse(r, c->c_buf, c->c_len, &scanned)) != 0)
			return rc;
		if (c->c_len >= HEAD_MAX)
			return -431;
		if (c->c_len > 0) {
			/* mid-head: the whole head gets REQUEST_TIMEOUT */
			now = now_ms();
			if (deadline == 0)
				deadline = now + CONFIG_REQUEST_TIMEOUT * 1000LL;
			if (now >= deadline ||
			    conn_wait_readable(c, (int)(deadline - now)) == 0)
				return -408;
		}
		/* between requests, SO_RCVTIMEO is the keep-alive timeout */
		n = conn_read(c, c->c_buf + c->c_len, HEAD_MAX - c->c_len);
		if (n <= 0)
			return c->c_len > 0 && n < 0 &&
			    (errno == EAGAIN || errno == EWOULDBLOCK) ? -408 : 0;
		c->c_len += (size_t)n;
	}
}

/* The per-connection loop: head, dispatch, log, while keep-alive. */
static void
conn_serve(struct conn *c)
{
	struct request req;
	struct reply rp;
	struct access a;
	size_t used;
	long long body;
	int rc;

	for (;;) {
		if ((rc = read_head(c, &req)) == 0) {
			conn_close(c, 0);
			return;
		}
		if (rc < 0) {
			/* refused: answer, log the raw first line, close */
			const char *nl = memchr(c->c_buf, '\n', c->c_len);

			response_error(c, NULL, &rp, -rc);
			a.a_line = c->c_buf;
			a.a_line_len = nl ? (size_t)(nl - c->c_buf) : c->c_len;
			/* the parser may have put a NUL where the CR was */
			if (a.a_line_len > 0 && (c->c_buf[a.a_line_len - 1] == '\r' ||
			    c->c_buf[a.a_line_len - 1] == '\0'))
				a.a_line_len--;
			a.a_referer = a.a_ua = NULL;
			a.a_status = -rc;
			a.a_rejected = 1;
			a.a_bytes = rp.rp_bytes;
			log_access(c, &a);
			conn_close(c, 1);
			return;
		}
		log_accepted(c, &req);
		if (!req.req_keepalive || server_stopping || req.req_chunked)
			c->c_close = 1;	/* XXX chunked bodies are not read yet */

		/* no handler takes a body yet: skip what came with the head */
		used = (size_t)rc;
		body = req.req_clen > 0 ? req.req_clen : 0;
		if ((long long)(c->c_len - used) >= body) {
			used += (size_t)body;
			body = 0;
		} else {
			body -= (long long)(c->c_len - used);
			used = c->c_len;
			if (body > DISCARD_MAX)
				c->c_close = 1;
		}

		if (req.req_method == M_GET || req.req_method == M_HEAD)
			rc = file_serve(c, &req, &rp);
		else
			rc = response_error(c, &req, &rp, 501);

		a.a_line = req.req_line;
		a.a_line_len = strlen(req.req_line);
		a.a_referer = req.req_referer;
		a.a_ua = req.req_ua;
		a.a_status = rp.rp_status;
		a.a_rejected = 0;
		a.a_bytes = rp.rp_bytes;
		log_access(c, &a);

		if (rc != 0 || c->c_close || (body > 0 && discard(c, body) != 0)) {
			conn_close(c, rc == 0 && (body > 0 || used < c->c_len));
			return;
		}
		/* keep what was pipelined behind this request */
		c->c_len -= used;
		if (c->c_len > 0)
			memmove(c->c_buf, c->c_buf + used, c->c_len);
	}
}

static void *
conn_thread(void *arg)
{
	char buf[HEAD_MAX + 1];
	struct conn c;
	struct timeval rt = { .tv_sec = CONFIG_KEEPALIVE_TIMEOUT };
	struct timeval st = { .tv_sec = CONFIG_REQUEST_TIMEOUT };
	int *slot = arg, on = 1;

	c.c_fd = *slot - 1;
	c.c_close = 0;
	c.c_len = 0;
	c.c_buf = buf;
	setsockopt(c.c_fd, SOL_SOCKET, SO_RCVTIMEO, &rt, sizeof(rt));
	setsockopt(c.c_fd, SOL_SOCKET, SO_SNDTIMEO, &st, sizeof(st));
	/* every reply is written whole (or corked with MSG_MORE): no Nagle */
	setsockopt(c.c_fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	if (ENABLE_LOG)
		conn_peer(&c);
	conn_serve(&c);
	__atomic_store_n(slot, 0, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&active, 1, __ATOMIC_RELEASE);
	sem_post(&slots);
	return NULL;
}

/* The acceptor: takes a slot, accepts, hands the socket to a new thread. */
static void *
server_accept(void *arg)
{
	const struct timespec backoff = { .tv_nsec = 50 * 1000000 };
	pthread_t t;
	int fd, *slot, next = 0;
	time_t warned = 0;

	(void)arg;
	for (;;) {
		/* at MAX_CONNECTIONS, new clients wait in the listen queue */
		while (sem_wait(&slots) == -1)
			;
		if (server_stopping)
			break;
		fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd == -1) {
			sem_post(&slots);
			if (server_stopping)
				break;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				/* out of descriptors: wait for some to free up
				 * rather than spin; the client stays queued */
				time_t now = time(NULL);

				if (now != warned)	/* a line a second at most */
					log_warn("accept: %s", strerror(errno));
				warned = now;
				nanosleep(&backoff, NULL);
			}
			continue;
		}
		/* holding a semaphore slot guarantees a free registry slot */
		while (__atomic_load_n(&conn_slots[next], __ATOMIC_ACQUIRE) != 0)
			next = (next + 1) % CONFIG_MAX_CONNECTIONS;
		slot = &conn_slots[next];
		__atomic_store_n(slot, fd + 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&active, 1, __ATOMIC_RELAXED);
		if (pthread_create(&t, &thread_attr, conn_thread, slot) != 0) {
			log_warn("pthread_create: %s", strerror(errno));
			__atomic_store_n(slot, 0, __ATOMIC_RELEASE);
			close(fd);
			__atomic_fetch_sub(&active, 1, __ATOMIC_RELAXED);
			sem_post(&slots);
			nanosleep(&backoff, NULL);
		}
	}
	close(listen_fd);
	return NULL;
}

/*
 * Runs the server until SIGINT or SIGTERM.  The signals are blocked in every
 * thread and taken here with sigwait, so no handler runs in a worker.
 * ready is written to (then closed) once accepting, for a detaching parent.
 */
void
server_run(int ready)
{
	size_t stack = (size_t)CONFIG_THREAD_STACK_KB * 1024 + HEAD_MAX;
	long long deadline;
	pthread_t acceptor;
	sigset_t set;
	int sig;

#if defined(__SANITIZE_ADDRESS__)
	stack *= 8;	/* ASan's redzones need room */
#endif
	sem_init(&slots, 0, CONFIG_MAX_CONNECTIONS);
	pthread_attr_init(&thread_attr);
	pthread_attr_setdetachstate(&thread_attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&thread_attr, stack);
	if (pthread_create(&acceptor, NULL, server_accept, NULL) != 0) {
		fprintf(stderr, "mrhttpd: cannot start the acceptor thread\n");
		_exit(1);
	}
	if (ready != -1) {
		(void)!write(ready, "", 1);
		close(ready);
	}

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	for (;;) {
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig != SIGHUP)
			break;
		/* the configuration is compiled in; only the log is reopened */
		if (log_open("") == -1)
			log_error("SIGHUP: cannot reopen %s: %s", CONFIG_LOG_FILE,
			    strerror(errno));
	}

	/* stop: free the port at once, let requests in flight finish (5 s) */
	server_stopping = 1;
	shutdown(listen_fd, SHUT_RDWR);
	sem_post(&slots);
	pthread_join(acceptor, NULL);
	log_info("stopping on signal %d, %d connections open", sig,
	    __atomic_load_n(&active, __ATOMIC_ACQUIRE));
	/* wake connections waiting for a next request; replies in progress
	 * go on (a stale fd here is at worst a file: ENOTSOCK) */
	for (int i = 0; i < CONFIG_MAX_CONNECTIONS; i++) {
		int fd = __atomic_load_n(&conn_slots[i], __ATOMIC_ACQUIRE) - 1;

		if (fd >= 0)
			shutdown(fd, SHUT_RD);
	}
	deadline = now_ms() + 5000;
	while (__atomic_load_n(&active, __ATOMIC_ACQUIRE) > 0 &&
	    now_ms() < deadline) {
		const struct timespec tick = { .tv_nsec = 20 * 1000000 };

		nanosleep(&tick, NULL);
	}
}
