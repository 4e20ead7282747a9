/*
 * server.c - listen, accept, one detached thread per connection, and the
 * keep-alive loop: read a head, parse it, serve it, log it, repeat.
 */
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mrhttpd.h"
#include "log.h"
#include "put.h"
#include "cgi.h"
#include "auth.h"

enum {
	LINGER_MS = 2000,	/* how long a closing connection drains input */
};

volatile int server_stopping;
static int listen_fd = -1;
static int workers;		/* worker threads alive, atomic */
static int idle;		/* workers waiting in accept, atomic */
static pthread_attr_t thread_attr;
/*
 * Only one worker at a time waits in accept: Linux reserves a descriptor
 * for each thread blocked in accept(2) before any client arrives, so a
 * pool of idle workers all in accept would eat the descriptors that files
 * need.  The others wait on this mutex, which costs none.  It is taken
 * once per connection, never per request.
 */
static pthread_mutex_t accept_lock = PTHREAD_MUTEX_INITIALIZER;

enum {
	SPARE_START = 1,	/* workers at start-up: one waits in accept, the
				 * first connection starts the next */
	SPARE_MAX = 64,		/* more idle workers than this exit */
};

/*
 * One slot per worker: 0 free, -1 a worker waiting in accept, fd + 1 a
 * worker serving that socket.  A stop wakes the served sockets through it.
 * Slots are claimed with compare-and-swap when a worker starts (never per
 * request) and written only by their worker afterwards: no lock.
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
		concat(err, errsz, addr, " is not an IPv4 or IPv6 address", NULL);
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
		concat(err, errsz, "socket: ", strerror(errno), NULL);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (ss.ss_family == AF_INET6 && *addr == '\0')
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	if (bind(fd, (struct sockaddr *)&ss, len) == -1) {
		char num[8];

		*fmt_uint(num, (unsigned)port) = '\0';
		concat(err, errsz, "bind to ", *addr ? addr : "all addresses",
		    " port ", num, ": ", strerror(errno), NULL);
		close(fd);
		return -1;
	}
	/* accepted sockets inherit these on Linux: set once, not per client.
	 * Between requests a read waits at most KEEPALIVE_TIMEOUT; a send
	 * that makes no progress fails after REQUEST_TIMEOUT.  Every reply is
	 * written whole (or corked with MSG_MORE), so Nagle only adds delay. */
	{
		struct timeval rt = { .tv_sec = CONFIG_KEEPALIVE_TIMEOUT };
		struct timeval st = { .tv_sec = CONFIG_REQUEST_TIMEOUT };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &rt, sizeof(rt));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &st, sizeof(st));
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	}
	if (listen(fd, 4096) == -1) {
		concat(err, errsz, "listen: ", strerror(errno), NULL);
		close(fd);
		return -1;
	}
	listen_fd = fd;
	return fd;
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

/*
 * Does the request carry AUTH_HEADER, where AUTH_METHODS asks for it?
 * Compared in constant time: the time taken depends only on the length of
 * the secret, never on how much of it a guess got right.
 */
static int
authorized(const struct request *r)
{
	const char *got = r->req_authorization;
	size_t n, i;
	unsigned char diff;
	int bit;

	switch (r->req_method) {
	case M_GET:	bit = 1; break;
	case M_HEAD:	bit = 2; break;
	case M_PUT:	bit = 4; break;
	case M_DELETE:	bit = 8; break;
	default:	return 1;
	}
	if ((CONFIG_AUTH_METHODS & bit) == 0)
		return 1;
	if (ENABLE_AUTH_FILE && auth_file_check(r->req_authorization))
		return 1;
	if (settings.set_auth_len == 0)
		return 0;	/* AUTH_FILE alone */
	if (got == NULL)
		got = "";
	n = strlen(got);
	diff = n != settings.set_auth_len;
	for (i = 0; i < settings.set_auth_len; i++)
		diff |= (unsigned char)(settings.set_auth[i] ^
		    (i < n ? got[i] : 0));
	return diff == 0;
}

/* The per-connection loop: head, dispatch, log, while keep-alive. */
static void
conn_serve(struct conn *c)
{
	struct request req;
	struct reply rp;
	struct access a;
	struct body body;
	size_t used;
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
		if (!req.req_keepalive || server_stopping)
			c->c_close = 1;
		/* the body, if any, is read through c_body by whoever wants it;
		 * what they leave is thrown away below */
		c->c_pos = (size_t)rc;
		c->c_body = &body;
		rc = body_start(c, &req, &body, -1);

		if (rc < 0)
			rc = response_error(c, &req, &rp, -rc);
		else if (ENABLE_AUTH && !authorized(&req))
			rc = response_error_hdr(c, &req, &rp, 401,
			    "WWW-Authenticate: Basic realm=\"" CONFIG_AUTH_REALM
			    "\"\r\n");
		else if ((rc = cgi_serve(c, &req, &rp)) != CGI_NOT_MINE)
			;	/* a program below CGI_PATH answered */
		else switch (req.req_method) {
		case M_GET:
		case M_HEAD:
			rc = file_serve(c, &req, &rp);
			break;
		case M_OPTIONS:
			rc = response_options(c, &req, &rp);
			break;
		case M_PUT:
			rc = put_serve(c, &req, &rp);
			break;
		case M_DELETE:
			rc = delete_serve(c, &req, &rp);
			break;
		case M_UNKNOWN:
			rc = response_error(c, &req, &rp, 501);
			break;
		default:	/* a method we know but do not allow here */
			rc = response_error_hdr(c, &req, &rp, 405, ALLOW_HEADER);
			break;
		}

		a.a_line = req.req_line;
		a.a_line_len = strlen(req.req_line);
		a.a_referer = req.req_referer;
		a.a_ua = req.req_ua;
		a.a_status = rp.rp_status;
		a.a_rejected = 0;
		a.a_bytes = rp.rp_bytes;
		log_access(c, &a);

		/* an unread body must go before the next request is read:
		 * small ones are drained, big ones cost the connection */
		/* answered before asking for the body it announced with
		 * Expect: 100-continue: it may never come, so do not wait */
		if (body.b_continue && body_pending(&body))
			c->c_close = 1;
		if (rc == 0 && !c->c_close && body_discard(c, &body) != 0)
			c->c_close = 1;
		if (rc != 0 || c->c_close) {
			/* linger only when input is left unread */
			conn_close(c, rc == 0 && (c->c_pos < c->c_len ||
			    body_pending(&body)));
			return;
		}
		/* keep what was pipelined behind this request */
		used = c->c_pos;
		c->c_len -= used;
		if (c->c_len > 0)
			memmove(c->c_buf, c->c_buf + used, c->c_len);
	}
}

static int spawn_worker(void);

/*
 * A worker: takes its turn in accept, serves that connection until it
 * closes, and waits for its next turn.
 * No thread is created per connection once the pool is warm, and each
 * connection still has one thread for its whole life.
 */
static void *
worker(void *arg)
{
	const struct timespec backoff = { .tv_nsec = 50 * 1000000 };
	static time_t warned;
	char buf[HEAD_MAX + 1 + PATH_MAX_LEN];	/* see struct conn */
	struct conn c;
	socklen_t len;
	int *slot = arg, fd;

	for (;;) {
		len = sizeof(c.c_peer);
		pthread_mutex_lock(&accept_lock);
		fd = server_stopping ? -1 : accept4(listen_fd,
		    (struct sockaddr *)&c.c_peer, &len, SOCK_CLOEXEC);
		if (fd == -1 && !server_stopping && (errno == EMFILE ||
		    errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)) {
			/* out of descriptors: wait (holding the lock, so no
			 * other worker spins either) for some to free up; the
			 * client stays queued */
			time_t now = time(NULL);

			if (now != warned)
				log_warn("accept: %s", strerror(errno));
			warned = now;
			nanosleep(&backoff, NULL);
		}
		pthread_mutex_unlock(&accept_lock);
		if (fd == -1) {
			if (server_stopping)
				break;
			continue;
		}
		/* busy now: keep a spare worker waiting in accept.  Under a
		 * burst, start them in batches growing with the pool, so the
		 * 10,000th client does not wait for 9,999 thread starts in a
		 * row, one after each accept */
		if (__atomic_sub_fetch(&idle, 1, __ATOMIC_ACQ_REL) == 0) {
			int n = 1 + __atomic_load_n(&workers, __ATOMIC_RELAXED) / 16;

			while (n-- > 0 && spawn_worker() == 0)
				;
		}
		__atomic_store_n(slot, fd + 1, __ATOMIC_RELEASE);
		c.c_fd = fd;
		c.c_close = 0;
		c.c_len = 0;
		c.c_buf = buf;
		if (ENABLE_LOG || ENABLE_CGI)
			addr_fmt(&c.c_peer, c.c_addr, sizeof(c.c_addr));
		conn_serve(&c);
		/* an idle worker holds no file open: a deleted file's space
		 * is freed, and descriptors go to connections that need them */
		file_cache_flush();
		__atomic_store_n(slot, -1, __ATOMIC_RELEASE);
		if (server_stopping)
			break;
		if (__atomic_add_fetch(&idle, 1, __ATOMIC_ACQ_REL) > SPARE_MAX) {
			__atomic_sub_fetch(&idle, 1, __ATOMIC_ACQ_REL);
			break;		/* the burst is over: shrink */
		}
	}
	__atomic_store_n(slot, 0, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&workers, 1, __ATOMIC_ACQ_REL);
	return NULL;
}

/*
 * Starts a worker unless MAX_CONNECTIONS workers exist: then new clients
 * wait in the listen queue until one is free.  Returns 0 or -1.
 */
static int
spawn_worker(void)
{
	static int hint;
	pthread_t t;
	int i, zero, *slot;

	if (__atomic_add_fetch(&workers, 1, __ATOMIC_ACQ_REL) >
	    CONFIG_MAX_CONNECTIONS) {
		__atomic_sub_fetch(&workers, 1, __ATOMIC_ACQ_REL);
		return -1;
	}
	/* workers <= MAX_CONNECTIONS, so a free slot exists */
	for (i = __atomic_load_n(&hint, __ATOMIC_RELAXED);;
	    i = (i + 1) % CONFIG_MAX_CONNECTIONS) {
		zero = 0;
		if (__atomic_compare_exchange_n(&conn_slots[i], &zero, -1, 0,
		    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	__atomic_store_n(&hint, (i + 1) % CONFIG_MAX_CONNECTIONS,
	    __ATOMIC_RELAXED);
	slot = &conn_slots[i];
	__atomic_add_fetch(&idle, 1, __ATOMIC_ACQ_REL);
	if (pthread_create(&t, &thread_attr, worker, slot) != 0) {
		log_warn("pthread_create: %s", strerror(errno));
		__atomic_sub_fetch(&idle, 1, __ATOMIC_ACQ_REL);
		__atomic_store_n(slot, 0, __ATOMIC_RELEASE);
		__atomic_sub_fetch(&workers, 1, __ATOMIC_ACQ_REL);
		return -1;
	}
	return 0;
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
	sigset_t set;
	int i, sig;

	/* a CGI request needs room for the program's environment and its
	 * buffers: address space only, touched by CGI requests alone */
	if (ENABLE_CGI)
		stack += 3 * HEAD_MAX + 96 * 1024;
#if defined(__SANITIZE_ADDRESS__)
	stack *= 8;	/* ASan's redzones need room */
#endif
	pthread_attr_init(&thread_attr);
	pthread_attr_setdetachstate(&thread_attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&thread_attr, stack);
	for (i = 0; i < SPARE_START && i < CONFIG_MAX_CONNECTIONS; i++)
		if (spawn_worker() == -1 && i == 0) {
			static const char msg[] =
			    "mrhttpd: cannot start a worker thread\n";

			(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
			_exit(1);
		}
	if (ready != -1) {
		/* detached and serving: tell the launcher, then let go of its
		 * terminal or pipes (stdout stays when it is the log) */
		(void)!write(ready, "", 1);
		close(ready);
		dup2(settings.set_devnull, STDIN_FILENO);
		dup2(settings.set_devnull, STDERR_FILENO);
		if (!(ENABLE_LOG && !ENABLE_LOG_FILE && !ENABLE_SYSLOG))
			dup2(settings.set_devnull, STDOUT_FILENO);
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

	/* stop: free the port at once (waking every worker in accept),
	 * wake connections waiting for a next request, and let replies in
	 * progress finish for up to 5 s */
	server_stopping = 1;
	shutdown(listen_fd, SHUT_RDWR);
	log_info("stopping on signal %d", sig);
	for (i = 0; i < CONFIG_MAX_CONNECTIONS; i++) {
		int fd = __atomic_load_n(&conn_slots[i], __ATOMIC_ACQUIRE) - 1;

		if (fd >= 0)	/* a stale fd is at worst a file: ENOTSOCK */
			shutdown(fd, SHUT_RD);
	}
	deadline = now_ms() + 5000;
	while (__atomic_load_n(&workers, __ATOMIC_ACQUIRE) > 0 &&
	    now_ms() < deadline) {
		const struct timespec tick = { .tv_nsec = 10 * 1000000 };

		nanosleep(&tick, NULL);
	}
	close(listen_fd);
}
