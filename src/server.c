/*
 * server.c - listen, accept, park idle connections in epoll, hand each
 * request to a thread, and the keep-alive loop: read a head, parse it,
 * serve it, log it, repeat.
 */
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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
static int epfd = -1;
static pthread_attr_t thread_attr;

/*
 * Threads and connections.
 *
 * A connection has a thread only while a request is under way.  Between
 * requests it is parked in one epoll set, costing a slot here and its
 * socket.  Of the idle threads, one at a time holds the turn: it waits in
 * epoll_wait for any parked connection (or the listener) to have input,
 * and serves what comes itself, one request after another, so a busy
 * server runs mostly on one thread with no context switch per request.
 * Before anything that may block (a slow client, a CGI program, a PUT to
 * disk) the holder gives the turn to a waiting thread, starting one when
 * none waits, and finishes that request on its own.  The others wait for
 * the turn on a mutex, which costs no descriptor and no wakeup.
 */
__thread int server_turn;		/* this thread holds the turn */
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
static int workers;		/* threads alive, atomic */
static int waiting;		/* threads waiting for the turn, atomic */

enum {
	SPARE_MAX = 64,		/* more threads than this waiting: exit */
	EV_BATCH = 64,		/* events taken per epoll_wait */
	EV_LISTENER = -1,	/* the event's tag for the listening socket */
	STOP_QUIET_MS = 100,	/* stopping: no events this long, and exit */
};

/*
 * A connection's state.  The socket stays in the epoll set, edge-triggered,
 * while its requests are served on the turn holder, so parking it again
 * costs no system call: input that arrives while it is ACTIVE makes the
 * turn holder mark it PENDING, and its thread, failing to park it, reads
 * again instead.  A thread that gives the turn away (it may block) takes
 * its connection out of the set meanwhile, so that a long upload does not
 * wake the turn holder for every packet.
 */
enum { SLOT_FREE, SLOT_ACTIVE, SLOT_PENDING, SLOT_PARKED };
struct slot {
	struct conn	 s_conn;
	long long	 s_since;	/* parked since, monotonic ms */
	int		 s_state;	/* SLOT_*, atomic */
	int		 s_added;	/* in the epoll set (its thread's to change) */
	int		 s_next;	/* free: the next free slot, or -1 */
};
/*
 * One slot per connection.  Only the turn holder claims slots (it is the
 * only one that accepts) and takes parked ones; the thread serving a
 * connection parks or frees its slot.  s_state changes with atomic
 * stores and compare-and-swap: no lock.  Free slots are reused last in,
 * first out, so the table's memory in use follows the most connections
 * ever open at once, not how many came and went.
 */
static struct slot slots[CONFIG_MAX_CONNECTIONS];
static int slots_hi;		/* slots ever used are below this, atomic */
static int free_top = -1;	/* stack of freed slots, atomic */
static int conns;		/* open connections, atomic */

/* The turn holder's own state: its batch of events, the next sweep. */
static struct epoll_event evs[EV_BATCH];
static int ev_n, ev_i;
static long long next_sweep, accept_paused;
static int pausing;		/* accept_paused is set; atomic, for all */
static int cache_used, stop_quiet;

/* The listener is out of the epoll set while MAX_CONNECTIONS are open. */
static pthread_mutex_t listen_lock = PTHREAD_MUTEX_INITIALIZER;
static int listening;		/* in the epoll set, atomic */

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
	/* accepted sockets inherit this on Linux: set once, not per client.
	 * Every reply is written whole (or corked with MSG_MORE), so Nagle
	 * would only add delay */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
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

enum { HEAD_IDLE = -1 };		/* read_head: nothing sent yet: park */

/*
 * Reads until a complete head is in the buffer.  Returns its length, 0 when
 * the connection ended, HEAD_IDLE when nothing came yet, or -status.
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
		n = conn_read(c, c->c_buf + c->c_len, HEAD_MAX - c->c_len);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (c->c_len == 0) {
				/* between requests, and the socket is drained */
				__atomic_store_n(&c->c_more, 0, __ATOMIC_RELAXED);
				return HEAD_IDLE;
			}
			/* mid-head: the whole head gets REQUEST_TIMEOUT */
			now = now_ms();
			if (deadline == 0)
				deadline = now + CONFIG_REQUEST_TIMEOUT * 1000LL;
			if (now >= deadline ||
			    conn_wait_readable(c, (int)(deadline - now)) == 0)
				return -408;
			continue;
		}
		if (n <= 0)
			return 0;
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

/*
 * The per-connection loop: head, dispatch, log, while requests are in the
 * buffer.  Returns 1 when the connection waits for its next request (to be
 * parked), 0 when it was closed.
 */
static int
conn_serve(struct conn *c)
{
	struct request req;
	struct reply rp;
	struct access a;
	struct body body;
	size_t used;
	int rc;

	for (;;) {
		if ((rc = read_head(c, &req)) == HEAD_IDLE)
			return 1;
		if (rc == 0) {
			conn_close(c, 0);
			return 0;
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
			return 0;
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
			return 0;
		}
		/* keep what was pipelined behind this request; with nothing
		 * there, wait for the next one in the epoll set: the client
		 * is only now reading the reply, so a read would find nothing */
		used = c->c_pos;
		c->c_len -= used;
		c->c_fresh = 0;
		if (c->c_len == 0 &&
		    !__atomic_load_n(&c->c_more, __ATOMIC_RELAXED))
			return 1;
		if (c->c_len > 0)
			memmove(c->c_buf, c->c_buf + used, c->c_len);
	}
}

/*
 * Puts the listener into the epoll set, or takes it out: out while
 * MAX_CONNECTIONS are open, for a moment when descriptors ran out, and for
 * good once stopping.  Rare, so a lock is fine here.
 */
static void
listener_update(void)
{
	struct epoll_event ev = { .events = EPOLLIN,
	    .data.u32 = (uint32_t)EV_LISTENER };
	int want;

	pthread_mutex_lock(&listen_lock);
	want = !server_stopping &&
	    !__atomic_load_n(&pausing, __ATOMIC_RELAXED) &&
	    __atomic_load_n(&conns, __ATOMIC_ACQUIRE) < CONFIG_MAX_CONNECTIONS;
	if (want != listening && epoll_ctl(epfd, want ? EPOLL_CTL_ADD :
	    EPOLL_CTL_DEL, listen_fd, &ev) == 0)
		__atomic_store_n(&listening, want, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&listen_lock);
}

/* A connection ended: its descriptor is closed, its slot becomes free. */
static void
slot_free(struct slot *s)
{
	int top = __atomic_load_n(&free_top, __ATOMIC_ACQUIRE), n;

	__atomic_store_n(&s->s_state, SLOT_FREE, __ATOMIC_RELEASE);
	/* push; only the turn holder pops, so no ABA */
	do
		s->s_next = top;
	while (!__atomic_compare_exchange_n(&free_top, &top, (int)(s - slots),
	    1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
	/* below the cap: back in the set.  At MAX - 1 always ask (under the
	 * lock): the turn holder may be taking it out this very moment */
	n = __atomic_sub_fetch(&conns, 1, __ATOMIC_ACQ_REL);
	if (n == CONFIG_MAX_CONNECTIONS - 1 || (n < CONFIG_MAX_CONNECTIONS &&
	    !__atomic_load_n(&listening, __ATOMIC_ACQUIRE)))
		listener_update();
}

/* Ends a connection nobody is serving: parked, or failing to park. */
static void
slot_close(struct slot *s)
{
	close(s->s_conn.c_fd);
	slot_free(s);
}

/*
 * Parks a connection between requests: its next input wakes the turn
 * holder.  Returns 1 when done with it (parked, or closed), 0 when input
 * came meanwhile and it must be served again.
 */
static int
conn_park(struct slot *s)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET,
	    .data.u32 = (uint32_t)(s - slots) };
	int st = SLOT_ACTIVE;

	if (server_stopping) {
		slot_close(s);
		return 1;
	}
	/* added, input already there is reported at once: then the turn
	 * holder marks the slot PENDING, and the exchange below fails */
	if (!s->s_added) {
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->s_conn.c_fd, &ev) == -1) {
			log_warn("epoll_ctl: %s", strerror(errno));
			slot_close(s);
			return 1;
		}
		s->s_added = 1;
	}
	s->s_since = now_ms();
	if (__atomic_compare_exchange_n(&s->s_state, &st, SLOT_PARKED, 0,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 1;
	__atomic_store_n(&s->s_state, SLOT_ACTIVE, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Closes parked connections idle for KEEPALIVE_TIMEOUT, and returns when
 * the next one will be due.  Run by the turn holder between batches, so no
 * event for these connections is pending in evs.
 */
static long long
sweep(long long now)
{
	const long long ttl = CONFIG_KEEPALIVE_TIMEOUT * 1000LL;
	long long next = now + ttl, due;
	int i, hi = __atomic_load_n(&slots_hi, __ATOMIC_ACQUIRE), st;
	struct slot *s;

	for (i = 0; i < hi; i++) {
		s = &slots[i];
		if (__atomic_load_n(&s->s_state, __ATOMIC_ACQUIRE) != SLOT_PARKED)
			continue;
		if ((due = s->s_since + ttl) > now) {
			if (due < next)
				next = due;
			continue;
		}
		st = SLOT_PARKED;
		if (__atomic_compare_exchange_n(&s->s_state, &st, SLOT_ACTIVE,
		    0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			slot_close(s);
		}
	}
	return next;
}

/* Accepts a client into a free slot.  Returns the slot, or NULL. */
static struct slot *
conn_accept(void)
{
	static time_t warned;
	struct sockaddr_storage peer;
	struct slot *s;
	socklen_t len = sizeof(peer);
	int i, fd;

	if (server_stopping) {
		listener_update();	/* out of the set for good */
		return NULL;
	}
	if (__atomic_load_n(&conns, __ATOMIC_ACQUIRE) >= CONFIG_MAX_CONNECTIONS)
		return NULL;	/* a stale event: the listener is out */
	/* fewer than MAX_CONNECTIONS are open, so a slot is on the free stack
	 * or was never used; only the turn holder takes one */
	fd = accept4(listen_fd, (struct sockaddr *)&peer, &len,
	    SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd == -1) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			/* out of descriptors: stop accepting for a moment
			 * (the client stays queued) instead of spinning */
			time_t now = time(NULL);

			if (now != warned)
				log_warn("accept: %s", strerror(errno));
			warned = now;
			accept_paused = now_ms() + 50;
			__atomic_store_n(&pausing, 1, __ATOMIC_RELAXED);
			listener_update();
		} else if (server_stopping)
			listener_update();
		return NULL;
	}
	i = __atomic_load_n(&free_top, __ATOMIC_ACQUIRE);
	while (i != -1 && !__atomic_compare_exchange_n(&free_top, &i,
	    slots[i].s_next, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	if (i == -1) {
		i = __atomic_load_n(&slots_hi, __ATOMIC_RELAXED);
		__atomic_store_n(&slots_hi, i + 1, __ATOMIC_RELEASE);
	}
	s = &slots[i];
	s->s_conn.c_fd = fd;
	s->s_conn.c_close = 0;
	s->s_conn.c_fresh = 1;
	s->s_conn.c_len = 0;
	s->s_added = 0;
	if (ENABLE_LOG || ENABLE_CGI) {
		/* sin_port and sin6_port share their offset */
		s->s_conn.c_port = ntohs(((struct sockaddr_in *)&peer)->sin_port);
		addr_fmt(&peer, s->s_conn.c_addr, sizeof(s->s_conn.c_addr));
	}
	__atomic_store_n(&s->s_state, SLOT_ACTIVE, __ATOMIC_RELEASE);
	if (__atomic_add_fetch(&conns, 1, __ATOMIC_ACQ_REL) >=
	    CONFIG_MAX_CONNECTIONS)
		listener_update();
	return s;
}

/*
 * The turn holder's loop: the next connection with input, from the batch
 * of events or a new epoll_wait.  Returns NULL once stopping and quiet.
 */
static struct slot *
next_conn(void)
{
	struct slot *s;
	long long now, until;
	int n, tag, st, hup;

	for (;;) {
		if (stop_quiet)
			return NULL;
		if (ev_i == ev_n) {
			now = now_ms();
			if (now >= next_sweep)
				next_sweep = sweep(now);
			if (accept_paused != 0 && now >= accept_paused) {
				accept_paused = 0;
				__atomic_store_n(&pausing, 0, __ATOMIC_RELAXED);
				listener_update();
			}
			/* wake for the next sweep, the end of a pause, to let
			 * go of cached files after a second of rest, and,
			 * stopping, to notice that all is quiet */
			until = __atomic_load_n(&conns, __ATOMIC_RELAXED) > 0 ?
			    next_sweep : -1;
			if (accept_paused != 0 &&
			    (until == -1 || accept_paused < until))
				until = accept_paused;
			if (cache_used && (until == -1 || now + 1000 < until))
				until = now + 1000;
			if (server_stopping &&
			    (until == -1 || now + STOP_QUIET_MS < until))
				until = now + STOP_QUIET_MS;
			ev_i = ev_n = 0;
			n = epoll_wait(epfd, evs, EV_BATCH,
			    until == -1 ? -1 : (int)(until - now));
			if (n == 0) {
				file_cache_flush();
				cache_used = 0;
				if (server_stopping)
					stop_quiet = 1;
			}
			if (n > 0) {
				ev_n = n;
				cache_used = 1;
			}
			continue;
		}
		tag = (int)evs[ev_i].data.u32;
		hup = evs[ev_i++].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR);
		if (tag == EV_LISTENER) {
			if ((s = conn_accept()) != NULL)
				return s;
			continue;
		}
		/* parked: ours now.  Active: tell its thread to read again.
		 * Free (or pending already): nothing to do; the event is
		 * stale, from a connection closed since */
		s = &slots[tag];
		st = __atomic_load_n(&s->s_state, __ATOMIC_ACQUIRE);
		/* an end or an error, maybe with the last bytes before it:
		 * one event for both, so read until it shows */
		if (hup && st != SLOT_FREE)
			__atomic_store_n(&s->s_conn.c_more, 1, __ATOMIC_RELAXED);
		while (st == SLOT_PARKED || st == SLOT_ACTIVE)
			if (__atomic_compare_exchange_n(&s->s_state, &st,
			    st == SLOT_PARKED ? SLOT_ACTIVE : SLOT_PENDING, 0,
			    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				if (st == SLOT_PARKED)
					return s;
				break;
			}
	}
}

static int spawn_worker(void);

/*
 * About to block: hands the turn to a waiting thread (starting one when
 * none waits), and goes on with this request alone.
 */
static __thread struct slot *serving;	/* this thread's connection */

void
server_yield_turn(void)
{
	server_turn = 0;
	if (serving != NULL && serving->s_added) {
		epoll_ctl(epfd, EPOLL_CTL_DEL, serving->s_conn.c_fd, NULL);
		serving->s_added = 0;
	}
	if (__atomic_load_n(&waiting, __ATOMIC_ACQUIRE) == 0)
		spawn_worker();
	pthread_mutex_unlock(&turn);
}

/*
 * A worker: waits for the turn, then serves whatever has input until it
 * gives the turn away before blocking; after that request, it waits for
 * the turn again.
 */
static void *
worker(void *arg)
{
	char buf[HEAD_MAX + 1 + PATH_MAX_LEN];	/* see struct conn */
	struct slot *s;

	(void)arg;
	for (;;) {
		/* counted in waiting by whoever let us wait */
		pthread_mutex_lock(&turn);
		__atomic_sub_fetch(&waiting, 1, __ATOMIC_ACQ_REL);
		server_turn = 1;
		while (server_turn && (s = next_conn()) != NULL) {
			s->s_conn.c_buf = buf;
			serving = s;
			for (;;) {
				if (!conn_serve(&s->s_conn)) {
					slot_free(s);
					break;
				}
				if (conn_park(s))
					break;
			}
			serving = NULL;
		}
		if (server_turn) {	/* stopping, and quiet: let the next go */
			server_turn = 0;
			pthread_mutex_unlock(&turn);
			break;
		}
		/* an idle worker holds no file open: a deleted file's space
		 * is freed, and descriptors go to connections that need them */
		file_cache_flush();
		if (server_stopping ||
		    __atomic_load_n(&waiting, __ATOMIC_ACQUIRE) >= SPARE_MAX)
			break;		/* the burst is over: shrink */
		__atomic_add_fetch(&waiting, 1, __ATOMIC_ACQ_REL);
	}
	file_cache_flush();
	__atomic_sub_fetch(&workers, 1, __ATOMIC_ACQ_REL);
	return NULL;
}

/*
 * Starts a worker, which then waits for the turn.  At most one thread per
 * connection plus the turn holder.  Returns 0 or -1.
 */
static int
spawn_worker(void)
{
	pthread_t t;

	if (__atomic_add_fetch(&workers, 1, __ATOMIC_ACQ_REL) >
	    CONFIG_MAX_CONNECTIONS + 1) {
		__atomic_sub_fetch(&workers, 1, __ATOMIC_ACQ_REL);
		return -1;
	}
	__atomic_add_fetch(&waiting, 1, __ATOMIC_ACQ_REL);
	if (pthread_create(&t, &thread_attr, worker, NULL) != 0) {
		log_warn("pthread_create: %s", strerror(errno));
		__atomic_sub_fetch(&waiting, 1, __ATOMIC_ACQ_REL);
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
	/* one worker to begin with: the first slow request starts the next */
	fcntl(listen_fd, F_SETFL, O_NONBLOCK);
	if ((epfd = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    (listener_update(), !listening) || spawn_worker() == -1) {
		static const char msg[] =
		    "mrhttpd: cannot start the event loop or a worker thread\n";

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

	/* stop: free the port at once, wake every connection (those waiting
	 * for a next request end; replies in progress go on), and let them
	 * finish for up to 5 s */
	server_stopping = 1;
	shutdown(listen_fd, SHUT_RDWR);
	/* the shut listener reports EPOLLHUP: that wakes the turn holder,
	 * also when the listener was out of the set (MAX_CONNECTIONS) */
	pthread_mutex_lock(&listen_lock);
	if (!listening) {
		struct epoll_event ev = { .events = EPOLLIN,
		    .data.u32 = (uint32_t)EV_LISTENER };

		if (epoll_ctl(epfd, EPOLL_CTL_ADD, listen_fd, &ev) == 0)
			__atomic_store_n(&listening, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&listen_lock);
	log_info("stopping on signal %d", sig);
	for (i = 0; i < __atomic_load_n(&slots_hi, __ATOMIC_ACQUIRE); i++)
		if (__atomic_load_n(&slots[i].s_state, __ATOMIC_ACQUIRE) !=
		    SLOT_FREE)	/* a stale fd is at worst a file: ENOTSOCK */
			shutdown(slots[i].s_conn.c_fd, SHUT_RD);
	deadline = now_ms() + 5000;
	while (__atomic_load_n(&workers, __ATOMIC_ACQUIRE) > 0 &&
	    now_ms() < deadline) {
		const struct timespec tick = { .tv_nsec = 10 * 1000000 };

		nanosleep(&tick, NULL);
	}
	close(listen_fd);
}
