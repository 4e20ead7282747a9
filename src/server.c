/*
 * server.c - the runtime: the listener, a slot per connection, idle
 * connections parked in epoll, the turn, and the pool of threads that
 * take it.  What a connection says is its protocol's business.
 */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
/* glibc keeps freed memory in its arenas until asked (uClibc-ng says
 * it is glibc too, and may have no malloc_trim); others give it back */
#if defined(__GLIBC__) && !defined(__UCLIBC__)
#include <malloc.h>
#define LIBC_TRIM	1
#else
#define LIBC_TRIM	0
static inline int malloc_trim(size_t pad) { (void)pad; return 0; }
#endif

#include "mrhttpd.h"
#include "log.h"
#include "protocol.h"
#include "peer.h"
#include "tls.h"
#include "h2.h"

int server_stop;

enum {
	SPARE_MAX = 64,		/* more threads than this waiting: exit */
	SPARE_IDLE_S = 10,	/* a spare idle this long exits, but one */
	EV_BATCH = 32,		/* events taken per epoll_wait */
	ACCEPT_BATCH = 64,	/* accepts between two epoll_waits, at most */
	EV_LISTENER = -1,	/* the event's tag for listener 0; -2 for 1 */
	EV_WAKE = -64,		/* the tag of turn.t_wakefd */
	LISTENERS = 1 + ENABLE_TLS,	/* plain HTTP, then HTTPS */
	STOP_QUIET_MS = 100,	/* stopping: no events this long, and exit */
	NOTSENT_LOWAT = 16384,	/* writable while less than this waits to go */
	SHED_CUT_MS = 100,	/* out of descriptors: a slow client cut, at most */
	/* one over the limit: a newcomer's, while the wait cut for it ends */
	SLOTS = CONFIG_MAX_CONNECTIONS + 1,
};

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

/*
 * The turn: its lock, and what only the thread holding it touches (no
 * atomics needed): the batch of events, the next sweep, the spare
 * descriptor.
 */
static struct turn {
	pthread_mutex_t	 t_lock;
	int		 t_epfd;	/* the epoll set (any thread may change it) */
	struct epoll_event *t_evs;	/* EV_BATCH, behind the slot table */
	int		 t_ev_n, t_ev_i;
	int		 t_accepts;	/* accepted since the last epoll_wait */
	long long	 t_next_sweep;
	long long	 t_paused_until;	/* accepting paused until then, or 0 */
	int		 t_cache_used;	/* files were served since the last rest */
	int		 t_stop_quiet;	/* stopping, and nothing happens: exit */
	int		 t_spare_fd;	/* given up for a client when out of them */
	/* TLS: handshakes in line for a thread (server_defer) */
	int		 t_wakefd;	/* an eventfd: a thread is free */
	int		 t_defer_head;	/* the ring's first */
	int		 t_defer_n;	/* in the ring, atomic (read by all) */
	int		 t_popped;	/* the slot just taken from it, or -1 */
	int		*t_defer_ring;	/* SLOTS slot numbers */
	unsigned char	*t_defer_in;	/* SLOTS: in the ring */
} turn;	/* set up by server_run: zero until then, in .bss */

/* The threads: counters any thread changes, atomically. */
static struct pool {
	pthread_attr_t	 p_attr;
	int		 p_workers;	/* alive */
	int		 p_waiting;	/* waiting for the turn */
} pool;

/*
 * A connection's state.  The socket stays in the epoll set, edge-triggered,
 * while its requests are served on the turn holder, so parking it again
 * costs no system call: input that arrives while it is ACTIVE makes the
 * turn holder mark it PENDING, and its thread, failing to park it, reads
 * again instead.  A thread that gives the turn away (it may block) takes
 * its connection out of the set meanwhile, so that a long upload does not
 * wake the turn holder for every packet.
 */
enum { SLOT_FREE, SLOT_ACTIVE, SLOT_PENDING, SLOT_PARKED,
	SLOT_WAITING, SLOT_EVICTING, SLOT_EVICTED };	/* server_wait */
struct slot {
	struct conn	 s_conn;
	unsigned	 s_since;	/* parked or waiting since: since_now() */
	int		 s_state;	/* SLOT_*, atomic */
	int		 s_added;	/* in the epoll set (its thread's to change) */
	int		 s_next;	/* free: the next free slot, or -1 */
	unsigned char	 s_peer[PEER_KEY];	/* the client's address, peer.c */
};
/*
 * One slot per connection.  Only the turn holder claims slots (it is the
 * only one that accepts) and serves parked ones; any thread may evict a
 * parked one (server_shed_idle), taking it with the same compare-and-swap;
 * the thread serving a connection parks or frees its slot.  s_state
 * changes with atomic stores and compare-and-swap: no lock.  Free slots
 * are reused last in, first out, so the table's memory in use follows the
 * most connections ever open at once, not how many came and went.  It is
 * mapped apart (server_run), not in .bss: there its untouched pages would
 * sit between the few variables an idle server writes, and spread them
 * over more pages.
 */
static struct slot *slots;
static __thread struct slot *serving;	/* this thread's connection */

/*
 * When a slot was parked, or began to wait for a body: the low 32 bits of
 * now_ms(), written by the thread that parks (or waits) and read by any
 * that evicts, so atomic; 32 bits, as MIPS32 has no 64-bit atomics without
 * libatomic.  Differences of them are right for 24 days (compared as
 * signed), and no slot stays parked or waiting past its timeout: an hour
 * at most, a day for a CGI program's body.
 */
static inline __attribute__((always_inline)) void
since_set(struct slot *s)
{
	__atomic_store_n(&s->s_since, (unsigned)now_ms(), __ATOMIC_RELAXED);
}

static unsigned
since_of(const struct slot *s)
{
	return __atomic_load_n(&s->s_since, __ATOMIC_RELAXED);
}
/*
 * A head parked half-sent keeps its bytes here, stash_size() for each
 * slot, in front of the slot table in the same mapping: copied out when
 * its connection parks, back when it is served again, and the pages given
 * back then.  So a client that trickles its head holds no thread and,
 * parked like an idle one, is evicted like one when the slots run out.
 */
static char *stash;

/* HEAD_MAX in whole pages, so that giving one slot's pages back never
 * touches another's.  musl's <limits.h> has PAGE_SIZE where the
 * architecture fixes it (x86); elsewhere the kernel says. */
static size_t
stash_size(void)
{
#ifdef PAGE_SIZE
	const size_t pg = PAGE_SIZE;
#else
	const size_t pg = (size_t)getpagesize();
#endif

	return (HEAD_MAX + pg - 1) & ~(pg - 1);
}
static int slots_hi;		/* slots ever used are below this, atomic */
static int free_top = -1;	/* stack of freed slots, atomic */
static int conns;		/* open connections, atomic */

/*
 * The listeners (plain HTTP, and HTTPS with TLS) are out of the epoll set
 * while MAX_CONNECTIONS are open and none of them can be closed to make
 * room (full), for a moment when descriptors ran out (pausing), and for
 * good once stopping.  Rare: a lock is fine.  The flags are atomic, for
 * any thread to read.
 */
static struct listener {
	pthread_mutex_t	 l_lock;
	int		 l_fd[LISTENERS];	/* -1: not listening there */
	int		 l_in_set;	/* in the epoll set */
	int		 l_full;	/* at the cap, nothing to evict */
	int		 l_pausing;	/* out of descriptors: t_paused_until */
} listener;	/* l_fd set by server_listen, the rest by server_run */

#define STR_(x)		#x
#define STR(x)		STR_(x)
#define PER_IP_STR	STR(CONFIG_MAX_CONNECTIONS_PER_IP)

/*
 * Opens a listening socket.  An empty addr means all addresses: one
 * IPv6 socket that takes IPv4 too, or plain IPv4 where the kernel has no
 * IPv6.  Returns the socket, or -1 with a message in err.
 */
static int
listen_on(const char *addr, int port, char *err, size_t errsz)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fd, on = 1, off = 0, lowat = NOTSENT_LOWAT;

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
		struct buf b;

		buf_init(&b, num, sizeof(num) - 1);
		buf_uint(&b, (unsigned)port);
		concat(err, errsz, "bind to ", *addr ? addr : "all addresses",
		    " port ", buf_cstr(&b), ": ", strerror(errno), NULL);
		close(fd);
		return -1;
	}
	/* accepted sockets inherit this on Linux: set once, not per client.
	 * Every reply is written whole (or corked with MSG_MORE), so Nagle
	 * would only add delay */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	/* a client is handed over once its first bytes are here, so the
	 * first read finds them: no read that fails, no wait in the epoll
	 * set.  One that stays silent comes a second later, at the first
	 * retransmitted SYN-ACK, and is timed as any other */
	setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &on, sizeof(on));
	/* a file is written as the client takes it, not queued whole in the
	 * kernel: else the ACKs coming back push the rest out, and the work
	 * of sending is done on the client's side, in its time, and a slow
	 * client holds megabytes of the router's memory */
	setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat));
	if (listen(fd, 4096) == -1) {
		concat(err, errsz, "listen: ", strerror(errno), NULL);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Opens listener i (0 plain HTTP, 1 HTTPS) on port, or none when port is
 * 0.  Returns 0, or -1 with a message in err.
 */
int
server_listen(int i, const char *addr, int port, char *err, size_t errsz)
{
	listener.l_fd[i] = port == 0 ? -1 : listen_on(addr, port, err, errsz);
	return port != 0 && listener.l_fd[i] == -1 ? -1 : 0;
}

/* Adds every listener to the epoll set (EPOLL_CTL_ADD) or takes it out.
 * Returns 0, or -1 when the first one failed. */
static int
listeners_ctl(int op)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int i, rc = 0;

	for (i = 0; i < LISTENERS; i++) {
		if (listener.l_fd[i] == -1)
			continue;
		ev.data.u32 = (uint32_t)(EV_LISTENER - i);
		if (epoll_ctl(turn.t_epfd, op, listener.l_fd[i], &ev) == -1 &&
		    errno != EEXIST && errno != ENOENT)
			rc = -1;
	}
	return rc;
}

/* Puts the listeners into the epoll set, or takes them out (see struct
 * listener).  Rare, so a lock is fine here. */
static void
listener_update(void)
{
	int want;

	pthread_mutex_lock(&listener.l_lock);
	want = !server_stopping() &&
	    !__atomic_load_n(&listener.l_pausing, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&listener.l_full, __ATOMIC_SEQ_CST);
	if (want != listener.l_in_set && listeners_ctl(want ? EPOLL_CTL_ADD :
	    EPOLL_CTL_DEL) == 0)
		__atomic_store_n(&listener.l_in_set, want, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&listener.l_lock);
}

/* A slot was freed or parked: if the listener was out for want of room,
 * there is room now. */
static void
room_made(void)
{
	if (__atomic_load_n(&listener.l_full, __ATOMIC_SEQ_CST) &&
	    __atomic_exchange_n(&listener.l_full, 0, __ATOMIC_SEQ_CST))
		listener_update();
}

/*
 * Builds whose connections and streams allocate (TLS, HTTP/2) give the
 * memory freed back to the system once the last connection has ended:
 * after a second of rest, on the turn holder (mem_trim_due), so that no
 * one waits for it.  glibc kept it in its arenas: after 250 connections'
 * HTTP/2 streams or 1,000 TLS handshakes had ended, 100 MB and more,
 * which the kernel's OOM killer counts against the server.
 */
enum { MEM_TRIM = LIBC_TRIM && (ENABLE_TLS || ENABLE_HTTP2) };
static int trim_due;	/* atomic: the last connection ended since */

/* The last connection ended: the turn holder is woken to rest, then
 * trim (once, however many end meanwhile). */
static void
mem_trim_due(void)
{
	static const uint64_t one = 1;

	if (MEM_TRIM && !__atomic_exchange_n(&trim_due, 1, __ATOMIC_RELAXED))
		(void)!write(turn.t_wakefd, &one, sizeof(one));
}

/* A connection ended: its descriptor is closed, its slot becomes free. */
static void
slot_free(struct slot *s)
{
	int top = __atomic_load_n(&free_top, __ATOMIC_ACQUIRE), left;

	peer_del(s->s_peer);
	__atomic_store_n(&s->s_state, SLOT_FREE, __ATOMIC_RELEASE);
	/* push; only the turn holder pops, so no ABA */
	do
		s->s_next = top;
	while (!__atomic_compare_exchange_n(&free_top, &top, (int)(s - slots),
	    1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
	left = __atomic_sub_fetch(&conns, 1, __ATOMIC_SEQ_CST);
	room_made();
	if (left == 0)
		mem_trim_due();
}

/* Where slot s keeps a head parked half-sent. */
static char *
stash_of(const struct slot *s)
{
	return stash + (size_t)(s - slots) * stash_size();
}

/* Done with them: their pages go back to the kernel. */
static void
stash_drop(const struct slot *s)
{
	(void)madvise(stash_of(s), stash_size(), MADV_DONTNEED);
}

/* Ends a connection nobody is serving: parked, or failing to park. */
static void
slot_close(struct slot *s)
{
	if (s->s_conn.c_len > 0)
		stash_drop(s);
	if (ENABLE_HTTP2)	/* GOAWAY, and the session's memory */
		h2_close(&s->s_conn);
	conn_close(&s->s_conn, 0);
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

	if (server_stopping()) {
		slot_close(s);
		return 1;
	}
	/* added, input already there is reported at once: then the turn
	 * holder marks the slot PENDING, and the exchange below fails */
	if (!s->s_added) {
		if (epoll_ctl(turn.t_epfd, EPOLL_CTL_ADD, s->s_conn.c_fd, &ev) == -1) {
			log_warn("epoll_ctl: %s", strerror(errno));
			slot_close(s);
			return 1;
		}
		s->s_added = 1;
	}
	if (s->s_conn.c_len > 0)	/* mid-head: kept while parked */
		memcpy(stash_of(s), s->s_conn.c_buf, s->s_conn.c_len);
	since_set(s);
	if (__atomic_compare_exchange_n(&s->s_state, &st, SLOT_PARKED, 0,
	    __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
		room_made();	/* it could make room for a new client */
		return 1;
	}
	__atomic_store_n(&s->s_state, SLOT_ACTIVE, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Closes parked connections idle for KEEPALIVE_TIMEOUT, or with a TLS
 * handshake past its REQUEST_TIMEOUT, and returns when the next one will
 * be due.  A head parked half-sent past its REQUEST_TIMEOUT is answered
 * instead (408): the sweep puts an event of its own for it into the
 * turn's batch, as if input had come.  Run by
 * the turn holder between batches, so no other event for these
 * connections is pending in the batch.
 */
static long long
sweep(long long now)
{
	const long long ka = CONFIG_KEEPALIVE_TIMEOUT * 1000LL;
	const long long h2 = CONFIG_HTTP2_IDLE_TIMEOUT * 1000LL;
	const long long rt = CONFIG_REQUEST_TIMEOUT * 1000LL;
	long long ttl = ENABLE_HTTP2 && h2 < ka ? h2 : ka, due;
	/* nothing parked after this sweep is due sooner than this */
	long long next = now + (rt < ttl ? rt : ttl);
	int i, hi = __atomic_load_n(&slots_hi, __ATOMIC_ACQUIRE), st;
	struct slot *s;

	for (i = 0; i < hi; i++) {
		s = &slots[i];
		if (__atomic_load_n(&s->s_state, __ATOMIC_ACQUIRE) != SLOT_PARKED)
			continue;
		if (ENABLE_HTTP2)	/* an HTTP/2 connection has its own */
			ttl = s->s_conn.c_h2 != NULL ? h2 : ka;
		/* a head, or a TLS handshake, under way has its own */
		due = s->s_conn.c_due != 0 ? s->s_conn.c_due :
		    now - (unsigned)((unsigned)now - since_of(s)) + ttl;
		if (due > now) {
			if (due < next)
				next = due;
			continue;
		}
		if (s->s_conn.c_len > 0) {
			if (turn.t_ev_n < EV_BATCH)
				turn.t_evs[turn.t_ev_n++] = (struct epoll_event){
				    .events = EPOLLIN, .data.u32 = (uint32_t)i };
			else
				next = now;	/* the rest after these */
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

/*
 * The slot in state st since longest (PARKED: an idle keep-alive
 * connection, or one mid-head or yet to send; WAITING: one waiting for a
 * request body), or -1 when none is.  The loads are sequentially
 * consistent, as are conn_park's and slot_free's stores before they look
 * at l_full: so either conn_room sees the slot parked or freed, or they
 * see l_full set and put the listener back.
 *
 * A TLS handshake in line (server_defer) waits for the CPU, not for its
 * client: with lined 0 it is passed over, with 1 taken only when no other
 * is left.
 */
static int
oldest_in(int st, int lined)
{
	int i, hi = __atomic_load_n(&slots_hi, __ATOMIC_ACQUIRE), oldest = -1;
	unsigned since, first = 0;
	int in, first_in = 0;

	for (i = 0; i < hi; i++) {
		if (__atomic_load_n(&slots[i].s_state, __ATOMIC_SEQ_CST) != st)
			continue;
		since = since_of(&slots[i]);
		in = ENABLE_TLS && turn.t_defer_in != NULL &&
		    __atomic_load_n(&turn.t_defer_in[i], __ATOMIC_RELAXED);
		if (in && !lined)
			continue;
		if (oldest == -1 || in < first_in ||
		    (in == first_in && (int)(since - first) < 0)) {
			oldest = i;
			first = since;
			first_in = in;
		}
	}
	return oldest;
}

/* Makes the slot in state from since longest its own, in state to: its
 * index, or -1 when none is in that state. */
static int
take_oldest(int from, int to, int lined)
{
	int i, st;

	while ((i = oldest_in(from, lined)) != -1) {
		st = from;
		if (__atomic_compare_exchange_n(&slots[i].s_state, &st, to, 0,
		    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	return i;
}

/*
 * Makes room by closing the connection parked longest (nginx's reusable
 * connections), for a newcomer (lined 0) or for a descriptor (1; see
 * oldest_in).  Returns 1 when one was closed, 0 when none could be.
 * A stale event for the closed slot is harmless, as for any connection
 * closed since its event came (see next_conn).
 */
static int
evict_oldest(int lined)
{
	int i = take_oldest(SLOT_PARKED, SLOT_ACTIVE, lined);

	if (i != -1)
		slot_close(&slots[i]);
	return i != -1;
}

static int cut_waiter(void);

/*
 * Out of descriptors while serving a request (a file to open), or
 * accepting one: an idle connection's descriptors are worth less; with
 * none idle, the wait for a slow client that began longest ago is cut,
 * and its descriptors come back once its thread has seen it (so that
 * slow clients holding every descriptor cannot lock newcomers out, as
 * at MAX_CONNECTIONS).  Any thread may call this: the compare-and-swap in
 * take_oldest() makes the slot its own, as the turn holder's does.
 * Returns 1 when one was closed, 2 when one was cut, else 0.
 */
int
server_shed_idle(void)
{
	static unsigned cut_at;	/* ms, wrapping: 32-bit atomics on MIPS32 */
	unsigned now, at;

	if (evict_oldest(1))
		return 1;
	/* where a slow client holds more than its socket and a file: a
	 * body's (an upload's file, a program's pipes), HTTP/2's streams.
	 * One cut each SHED_CUT_MS, so that a burst of requests short of
	 * descriptors does not cut a slow client each */
	if (!(ENABLE_BODIES || ENABLE_HTTP2))
		return 0;
	now = (unsigned)now_ms();
	at = __atomic_load_n(&cut_at, __ATOMIC_RELAXED);
	return now - at >= SHED_CUT_MS && __atomic_compare_exchange_n(&cut_at,
	    &at, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED) && cut_waiter() ?
	    2 : 0;
}

/*
 * A wait for a client, marked (on) and unmarked (off) around the poll:
 * -1 when it may not wait (no thread could take the turn), or was cut
 * meanwhile.  Waiting, the thread is off the turn and its socket out of
 * the epoll set, and its slot is WAITING.  Meanwhile, at MAX_CONNECTIONS
 * with nothing parked, the turn holder may end the wait that started
 * longest ago (cut_waiter): it shuts the socket down, which wakes the
 * waiter, and the waiter's thread closes the connection and frees the
 * slot as for a client gone.  EVICTING keeps the descriptor open (and
 * its number ours) until the shutdown is done.  Slow request bodies
 * (R-U-Dead-Yet) and replies not read (slow reads) from many addresses
 * so cannot lock newcomers out.  An HTTP/2 stream's thread serves no
 * slot of its own: its waits are not marked here (h2.c's are).
 */
static inline __attribute__((always_inline)) int
wait_mark(struct conn *c, int on, int r)
{
	struct slot *s = serving;
	int st = SLOT_WAITING;

	if (on && server_yield() != 0)
		return -1;
	if (s != NULL && &s->s_conn != c)
		s = NULL;
	if (on) {
		if (s == NULL)
			return 0;
		if (on == 1)	/* 2: the same wait, marked again */
			since_set(s);
		/* input noted while it was served (PENDING), or reported
		 * while it waits (next_conn), is read before it parks */
		if (__atomic_exchange_n(&s->s_state, SLOT_WAITING,
		    __ATOMIC_SEQ_CST) == SLOT_PENDING)
			__atomic_store_n(&c->c_more, 1, __ATOMIC_RELAXED);
		room_made();	/* a wait can be cut: the listener is needed */
		return 0;
	}
	if (s == NULL)
		return r;
	if (__atomic_compare_exchange_n(&s->s_state, &st, SLOT_ACTIVE, 0,
	    __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
		/* what next_conn noted (c_more) is read after this, with
		 * relaxed loads: ordered on every CPU (ARM, MIPS) */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return r;
	}
	while (__atomic_load_n(&s->s_state, __ATOMIC_ACQUIRE) == SLOT_EVICTING)
		sched_yield();
	__atomic_store_n(&s->s_state, SLOT_ACTIVE, __ATOMIC_RELEASE);
	return -1;
}

/* Waits up to ms for events on a client's socket (the transports'
 * t_wait): >0 ready, 0 timed out, -1 when it may not wait or was cut. */
int
server_wait(struct conn *c, short events, int ms)
{
	struct pollfd pfd = { .fd = c->c_fd, .events = events };
	int r;

	if (wait_mark(c, 1, 0) == -1)
		return -1;
	do
		r = poll(&pfd, 1, ms);
	while (r == -1 && errno == EINTR);
	return wait_mark(c, 0, r);
}

/* The same mark for a thread that polls more than the socket (a
 * program's pump, while it waits for more of the body as well); on 2
 * marks again a wait that went on, keeping the time it began. */
int
server_waiting(struct conn *c, int on)
{
	return wait_mark(c, on, 0);
}

/*
 * Do TLS handshakes wait in line (server_defer)?  Then no parked client
 * is closed to make room for a newcomer: the newcomers wait in the
 * listen queue, and get in as the line moves (each handshake that had
 * its step parks, and so makes room).  Else, while a flood of
 * ClientHellos keeps the line longer than the CPU can sign for, every
 * newcomer would close a client that is further along: the one in line
 * longest, or one whose handshake is done.
 */
static int
lined_up(void)
{
	return ENABLE_TLS && __atomic_load_n(&turn.t_defer_n, __ATOMIC_SEQ_CST);
}

/*
 * Every slot taken, none parked, and a newcomer admitted (its address
 * passed MAX_CONNECTIONS_PER_IP): ends the wait for a client that began
 * longest ago (server_wait), so that its slot is freed, by its own
 * thread, soon after the newcomer has taken the one slot over the limit.
 * Returns 1 when one was cut, 0 when no thread waits for its client.
 */
static int
cut_waiter(void)
{
	int i = take_oldest(SLOT_WAITING, SLOT_EVICTING, 0);

	if (i == -1)
		return 0;
	shutdown(slots[i].s_conn.c_fd, SHUT_RDWR);
	__atomic_store_n(&slots[i].s_state, SLOT_EVICTED, __ATOMIC_RELEASE);
	return 1;
}

/*
 * Could one more connection get a slot: is one free, or parked and so
 * evictable, or does a thread wait for its client (a slow body or an
 * unread reply) while the slot over the limit is free?  When not, takes
 * the listener out until a slot is freed or parked.  Nothing is closed or
 * cut here: a client first passes the per-address check (conn_accept),
 * so that one at its limit cannot cost another client its connection.
 */
static int
room_for_one(void)
{
	int n = __atomic_load_n(&conns, __ATOMIC_SEQ_CST);

	return n < CONFIG_MAX_CONNECTIONS || (!lined_up() &&
	    oldest_in(SLOT_PARKED, 0) != -1) ||
	    (n == CONFIG_MAX_CONNECTIONS && oldest_in(SLOT_WAITING, 0) != -1);
}

static int
conn_room(void)
{
	if (room_for_one())
		return 1;
	__atomic_store_n(&listener.l_full, 1, __ATOMIC_SEQ_CST);
	listener_update();
	/* a slot freed or parked meanwhile did not see l_full set: look again */
	if (room_for_one()) {
		room_made();
		return 1;
	}
	return 0;
}

/* Refuses a client, mostly one whose address has MAX_CONNECTIONS_PER_IP
 * open: a 503, sent without waiting, and the connection closed.  On the
 * HTTPS port a fatal TLS alert (internal_error) instead: a TLS client
 * takes a 503 in clear for a broken server ("wrong version number"); its
 * ClientHello, there with deferred accept, is read first, or the close
 * resets the connection, and a client may drop the alert unread. */
static void
conn_refuse(int fd, const struct sockaddr_storage *peer, const char *why)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
	    "Retry-After: 10\r\nContent-Length: 0\r\n"
	    "Connection: close\r\n\r\n";
	static const char alert[] = { 0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 80 };
	static time_t warned;
	time_t now = time(NULL);
	char addr[48], hello[2048];
	struct sockaddr_storage me;
	socklen_t len = sizeof(me);
	int i;

	(void)why;	/* for the log, when there is one */
	if (ENABLE_TLS && getsockname(fd, (struct sockaddr *)&me, &len) == 0 &&
	    ntohs(((struct sockaddr_in *)&me)->sin_port) ==
	    settings.set_tls_port) {
		for (i = 0; i < 4 && recv(fd, hello, sizeof(hello),
		    MSG_DONTWAIT) > 0; i++)
			;	/* a few reads at most: no flood keeps us */
		(void)!send(fd, alert, sizeof(alert), MSG_DONTWAIT | MSG_NOSIGNAL);
	} else
		(void)!send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
	close(fd);
	if (ENABLE_LOG && now != warned) {	/* once a second at most */
		addr_fmt(peer, addr, sizeof(addr));
		log_warn("%s: %s, refused", addr, why);
		warned = now;
	}
}

/*
 * Out of descriptors: stops accepting for a moment (the clients stay
 * queued) instead of spinning.
 */
static void
accept_pause(void)
{
	static time_t warned;
	time_t now = time(NULL);

	if (now != warned)
		log_warn("accept: %s", strerror(errno));
	warned = now;
	turn.t_paused_until = now_ms() + 50;
	__atomic_store_n(&listener.l_pausing, 1, __ATOMIC_RELAXED);
	listener_update();
}

/*
 * Takes the next client off the listen queue and counts it for its
 * address.  Out of descriptors, the spare one is given up for it: so the
 * per-address check comes first, and only a client that passes it costs
 * an idle connection its descriptor (evicted to get the spare back).
 * Returns the socket, or -1 (nobody, refused, or no descriptor at all).
 */
static int
accept_client(int lfd, struct sockaddr_storage *peer, unsigned char *key)
{
	socklen_t len = sizeof(*peer);
	int fd, e, spent = 0;

	fd = accept4(lfd, (struct sockaddr *)peer, &len,
	    SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd == -1 && (errno == EMFILE || errno == ENFILE) &&
	    turn.t_spare_fd != -1) {
		close(turn.t_spare_fd);
		turn.t_spare_fd = -1;
		spent = 1;
		len = sizeof(*peer);
		fd = accept4(lfd, (struct sockaddr *)peer, &len,
		    SOCK_CLOEXEC | SOCK_NONBLOCK);
	}
	if (fd == -1) {
		e = errno;
		/* with no spare to give up (another took the descriptors a
		 * cut gave back first), someone must still pay for the
		 * next try, or nothing frees one before a timeout; only
		 * where a slow client can hold more than its socket and a
		 * file (server_shed_idle) */
		if ((ENABLE_BODIES || ENABLE_HTTP2) &&
		    (e == EMFILE || e == ENFILE) && !spent) {
			(void)server_shed_idle();
			errno = e;	/* for accept_pause's warning */
		}
		if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM)
			accept_pause();
		else if (server_stopping())
			listener_update();
	} else if (peer_add(peer, key) == -1) {
		conn_refuse(fd, peer, "MAX_CONNECTIONS_PER_IP (" PER_IP_STR
		    ") reached");
		fd = -1;
	} else if (spent)
		(void)server_shed_idle();	/* another pays for the spare */
	if (spent)
		turn.t_spare_fd = fcntl(settings.set_devnull, F_DUPFD_CLOEXEC, 0);
	return fd;
}

/* Accepts a client of listener l into a free slot.  Returns the slot, or
 * NULL. */
static struct slot *
conn_accept(int l)
{
	struct sockaddr_storage peer;
	unsigned char key[PEER_KEY];
	struct slot *s;
	int i, fd;

	if (server_stopping()) {
		listener_update();	/* out of the set for good */
		return NULL;
	}
	if (!conn_room())
		return NULL;
	if (turn.t_spare_fd == -1)	/* given up last time: take it back */
		turn.t_spare_fd = fcntl(settings.set_devnull, F_DUPFD_CLOEXEC, 0);
	if ((fd = accept_client(listener.l_fd[l], &peer, key)) == -1)
		return NULL;
	/* at MAX_CONNECTIONS: the room conn_room saw is made now (unless a
	 * thread short of descriptors took that parked slot meanwhile,
	 * which freed one just the same), else a wait for a client is cut
	 * and the newcomer takes the slot over the limit meanwhile */
	if (__atomic_load_n(&conns, __ATOMIC_SEQ_CST) >= CONFIG_MAX_CONNECTIONS &&
	    (lined_up() || !evict_oldest(0)) && (i = __atomic_load_n(&conns,
	    __ATOMIC_SEQ_CST)) >= CONFIG_MAX_CONNECTIONS &&
	    (i > CONFIG_MAX_CONNECTIONS || !cut_waiter())) {
		peer_del(key);
		conn_refuse(fd, &peer, "MAX_CONNECTIONS reached");
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
	s->s_conn.c_tr = &plain_transport;
	if (ENABLE_TLS) {	/* tls_close leaves NULL behind; say it anyway */
		s->s_conn.c_tls = NULL;
		if (l == 1)
			s->s_conn.c_tr = &tls_transport;
	}
	s->s_conn.c_proto = &http1_protocol;
	if (ENABLE_HTTP2) {
		s->s_conn.c_h2 = NULL;
		s->s_conn.c_hup = -1;
	}
	s->s_conn.c_close = 0;
	s->s_conn.c_fresh = 1;
	s->s_conn.c_len = 0;
	s->s_conn.c_due = 0;
	if (ENABLE_CGI)
		s->s_conn.c_wdue = 0;
	__atomic_store_n(&s->s_conn.c_more, 0, __ATOMIC_RELAXED);
	s->s_added = 0;
	memcpy(s->s_peer, key, sizeof(key));
	if (ENABLE_LOG || ENABLE_CGI) {
		/* sin_port and sin6_port share their offset */
		s->s_conn.c_port = ntohs(((struct sockaddr_in *)&peer)->sin_port);
		addr_fmt(&peer, s->s_conn.c_addr, sizeof(s->s_conn.c_addr));
	}
	__atomic_store_n(&s->s_state, SLOT_ACTIVE, __ATOMIC_RELEASE);
	__atomic_add_fetch(&conns, 1, __ATOMIC_SEQ_CST);
	return s;
}

/*
 * The listener's queue may hold more clients: it is asked again after
 * the rest of the batch, not after another epoll_wait, moving the rest
 * up when the batch is full.  Else, in a storm of connections, a batch
 * full of busy clients would leave one accept per epoll_wait, and the
 * kernel's queue would overflow into dropped handshakes and retries
 * of seconds.  ACCEPT_BATCH bounds it, so that clients connecting
 * without end cannot keep the epoll set from being asked.
 */
static void
requeue_listener(void)
{
	struct epoll_event ev = turn.t_evs[turn.t_ev_i - 1];

	if (turn.t_ev_n == EV_BATCH) {
		memmove(turn.t_evs, turn.t_evs + turn.t_ev_i,
		    (size_t)(turn.t_ev_n - turn.t_ev_i) * sizeof(ev));
		turn.t_ev_n -= turn.t_ev_i;
		turn.t_ev_i = 0;
	}
	turn.t_evs[turn.t_ev_n++] = ev;
}

/*
 * TLS handshakes in line.  A step of a handshake (an RSA signature, say)
 * runs on a thread of its own, on at most as many at once as there are
 * CPUs (tls.c).  One that finds them all busy waits in line here: its
 * connection parks, its bytes unread in the socket, and its slot number
 * goes to the back of a ring.  When a step ends, the turn holder is woken
 * (t_wakefd) and takes the first in line as if input had come.  So the
 * turn holder, which serves every other client, never signs for a
 * handshake itself.  The ring is the turn holder's alone; t_defer_n is
 * read by the threads that end a step, and t_defer_in by any that evicts
 * (oldest_in).
 */

/* Puts the connection served on the turn in line: at the back, or with
 * ahead set (a handshake under way: the client's second flight), at the
 * front, as finishing what was begun makes more handshakes whole than
 * beginning more; a flood of ClientHellos cannot hold it back.  Returns
 * 0, or -1 when there is no line (then it goes on now). */
int
server_defer(int ahead)
{
	int i, n = turn.t_defer_n;

	if (!ENABLE_TLS || turn.t_defer_ring == NULL || serving == NULL)
		return -1;
	i = (int)(serving - slots);
	if (!turn.t_defer_in[i]) {	/* else in line from before: kept */
		if (ahead)
			turn.t_defer_head = (turn.t_defer_head + SLOTS - 1) %
			    SLOTS;
		turn.t_defer_ring[(turn.t_defer_head + (ahead ? 0 : n)) %
		    SLOTS] = i;
		__atomic_store_n(&turn.t_defer_in[i], 1, __ATOMIC_RELAXED);
		/* before the look at the threads (defer_take), as a thread
		 * ending a step counts down, then looks here */
		__atomic_store_n(&turn.t_defer_n, n + 1, __ATOMIC_SEQ_CST);
	}
	return 0;
}

/* May the connection served on the turn start a step: is nobody in line
 * before it? */
int
server_defer_first(void)
{
	return turn.t_defer_n == 0 || (serving != NULL &&
	    turn.t_popped == (int)(serving - slots));
}

/* A step ended, off the turn: if some wait in line, wake the holder. */
void
server_defer_room(void)
{
	static const uint64_t one = 1;

	if (__atomic_load_n(&turn.t_defer_n, __ATOMIC_SEQ_CST) > 0)
		(void)!write(turn.t_wakefd, &one, sizeof(one));
}

/* The first in line that is still parked, taken, while a thread is free
 * for its step; or NULL.  Others in line since closed are passed over. */
static struct slot *
defer_take(void)
{
	struct slot *s;
	int i, st;

	while (turn.t_defer_n > 0 && tls_room()) {
		i = turn.t_defer_ring[turn.t_defer_head];
		turn.t_defer_head = (turn.t_defer_head + 1) % SLOTS;
		__atomic_store_n(&turn.t_defer_in[i], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&turn.t_defer_n, turn.t_defer_n - 1,
		    __ATOMIC_SEQ_CST);
		s = &slots[i];
		st = SLOT_PARKED;
		if (__atomic_compare_exchange_n(&s->s_state, &st, SLOT_ACTIVE,
		    0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			turn.t_popped = i;
			return s;
		}
	}
	return NULL;
}

/* The line's ring, behind the batch of events (TLS), and the eventfd
 * that wakes the turn holder (TLS, MEM_TRIM). */
static int
defer_init(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET,
	    .data.u32 = (uint32_t)EV_WAKE };

	if (ENABLE_TLS) {
		turn.t_defer_ring = (int *)(void *)(turn.t_evs + EV_BATCH);
		turn.t_defer_in = (unsigned char *)(turn.t_defer_ring + SLOTS);
	}
	turn.t_popped = -1;
	turn.t_wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return turn.t_wakefd == -1 ? -1 :
	    epoll_ctl(turn.t_epfd, EPOLL_CTL_ADD, turn.t_wakefd, &ev);
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
	uint64_t woken;

	if (ENABLE_TLS)
		turn.t_popped = -1;
	for (;;) {
		if (turn.t_stop_quiet)
			return NULL;
		if (ENABLE_TLS && turn.t_defer_n > 0 && (s = defer_take()) != NULL)
			return s;
		if (turn.t_ev_i == turn.t_ev_n) {
			now = now_ms();
			turn.t_ev_i = turn.t_ev_n = 0;
			if (now >= turn.t_next_sweep)
				turn.t_next_sweep = sweep(now);
			if (turn.t_ev_n > 0)	/* heads out of time: sweep */
				continue;
			if (turn.t_paused_until != 0 && now >= turn.t_paused_until) {
				turn.t_paused_until = 0;
				__atomic_store_n(&listener.l_pausing, 0, __ATOMIC_RELAXED);
				listener_update();
			}
			/* wake for the next sweep, the end of a pause, to let
			 * go of cached files after a second of rest, and,
			 * stopping, to notice that all is quiet */
			until = __atomic_load_n(&conns, __ATOMIC_RELAXED) > 0 ?
			    turn.t_next_sweep : -1;
			if (turn.t_paused_until != 0 &&
			    (until == -1 || turn.t_paused_until < until))
				until = turn.t_paused_until;
			if ((turn.t_cache_used || (MEM_TRIM && __atomic_load_n(
			    &trim_due, __ATOMIC_RELAXED))) &&
			    (until == -1 || now + 1000 < until))
				until = now + 1000;
			if (server_stopping() &&
			    (until == -1 || now + STOP_QUIET_MS < until))
				until = now + STOP_QUIET_MS;
			turn.t_accepts = 0;
			n = epoll_wait(turn.t_epfd, turn.t_evs, EV_BATCH,
			    until == -1 ? -1 : (int)(until - now));
			if (n == 0) {
				file_cache_flush();
				/* none has come back meanwhile: else the
				 * next last one wakes it again */
				if (MEM_TRIM && __atomic_exchange_n(&trim_due,
				    0, __ATOMIC_RELAXED) &&
				    __atomic_load_n(&conns, __ATOMIC_RELAXED) == 0)
					(void)malloc_trim(0);
				turn.t_cache_used = 0;
				if (server_stopping())
					turn.t_stop_quiet = 1;
			}
			if (n > 0) {
				turn.t_ev_n = n;
				turn.t_cache_used = 1;
			}
			continue;
		}
		tag = (int)turn.t_evs[turn.t_ev_i].data.u32;
		hup = turn.t_evs[turn.t_ev_i++].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR);
		if ((ENABLE_TLS || MEM_TRIM) && tag == EV_WAKE) {
			/* a step ended, or the last connection */
			(void)!read(turn.t_wakefd, &woken, sizeof(woken));
			continue;
		}
		if (tag < 0) {		/* EV_LISTENER - i */
			if ((s = conn_accept(EV_LISTENER - tag)) == NULL)
				continue;
			if (++turn.t_accepts < ACCEPT_BATCH)
				requeue_listener();
			return s;
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
		/* its thread waits for the client, with the socket in the set
		 * (served again after a failed park): read again after.  The
		 * wait may have ended since, and the slot parked with this
		 * edge spent: looked at again after the note, the slot is
		 * either seen parked (and taken), or its thread sees the note
		 * (both sides sequentially consistent) */
		if (st == SLOT_WAITING) {
			__atomic_store_n(&s->s_conn.c_more, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&s->s_state, __ATOMIC_SEQ_CST) !=
			    SLOT_WAITING)
				turn.t_ev_i--;	/* this event again */
		}
	}
}

static int spawn_worker(void);

/*
 * About to block: hands the turn to a waiting thread (starting one when
 * none waits), and goes on with this request alone.  When no thread can
 * take it (the thread cap, or pthread_create failing), keeps the turn and
 * returns -1: the event loop must never be left without an owner.
 */
int
server_yield_turn(void)
{
	if (__atomic_load_n(&pool.p_waiting, __ATOMIC_ACQUIRE) == 0 &&
	    spawn_worker() == -1 &&
	    __atomic_load_n(&pool.p_waiting, __ATOMIC_ACQUIRE) == 0)
		return -1;
	server_turn = 0;
	(void)file_cache_trim();	/* blocked, it keeps only its file */
	if (serving != NULL && serving->s_added) {
		epoll_ctl(turn.t_epfd, EPOLL_CTL_DEL, serving->s_conn.c_fd, NULL);
		serving->s_added = 0;
	}
	pthread_mutex_unlock(&turn.t_lock);
	return 0;
}

/*
 * Waits for the turn: 0.  A spare that waited SPARE_IDLE_S exits (-1),
 * so that a burst's threads and their stacks go, but never the last one
 * waiting: the holder hands the turn on only when it sees one waiting,
 * and that one must still be there to take it.
 */
static int
turn_wait(void)
{
	struct timespec ts;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += SPARE_IDLE_S;
		if (pthread_mutex_timedlock(&turn.t_lock, &ts) == 0)
			return 0;
		/* gone from the count, unless it was the last: a holder that
		 * saw none waiting meanwhile starts one, which does no harm */
		if (__atomic_sub_fetch(&pool.p_waiting, 1, __ATOMIC_ACQ_REL) > 0)
			return -1;
		__atomic_add_fetch(&pool.p_waiting, 1, __ATOMIC_ACQ_REL);
	}
}

/*
 * A worker: waits for the turn, then serves whatever has input until it
 * gives the turn away before blocking; after that request, it waits for
 * the turn again.
 */
static void *
worker(void *arg)
{
	char buf[HEAD_MAX + 1];	/* see struct conn */
	struct slot *s;

	(void)arg;
	for (;;) {
		/* counted in p_waiting by whoever let us wait */
		if (turn_wait() == -1)
			break;		/* idle: shrink */
		__atomic_sub_fetch(&pool.p_waiting, 1, __ATOMIC_ACQ_REL);
		server_turn = 1;
		while (server_turn && (s = next_conn()) != NULL) {
			s->s_conn.c_buf = buf;
			if (s->s_conn.c_len > 0) {	/* a head parked half-sent */
				memcpy(buf, stash_of(s), s->s_conn.c_len);
				stash_drop(s);
			}
			serving = s;
			for (;;) {
				if (!s->s_conn.c_proto->p_serve(&s->s_conn)) {
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
			pthread_mutex_unlock(&turn.t_lock);
			break;
		}
		/* an idle worker holds no file open: a deleted file's space
		 * is freed, and descriptors go to connections that need them */
		file_cache_flush();
		if (server_stopping() ||
		    __atomic_load_n(&pool.p_waiting, __ATOMIC_ACQUIRE) >= SPARE_MAX)
			break;		/* the burst is over: shrink */
		__atomic_add_fetch(&pool.p_waiting, 1, __ATOMIC_ACQ_REL);
	}
	file_cache_flush();
	__atomic_sub_fetch(&pool.p_workers, 1, __ATOMIC_ACQ_REL);
	return NULL;
}

/* A worker's thread: the worker, with a file cache on its stack. */
static void *
worker_start(void *arg)
{
	return file_cache_run(worker, arg);
}

/*
 * Starts a worker, which then waits for the turn.  At most one thread per
 * connection (SLOTS) plus the turn holder.  Returns 0 or -1.
 */
static int
spawn_worker(void)
{
	pthread_t t;

	if (__atomic_add_fetch(&pool.p_workers, 1, __ATOMIC_ACQ_REL) >
	    SLOTS + 1) {
		__atomic_sub_fetch(&pool.p_workers, 1, __ATOMIC_ACQ_REL);
		return -1;
	}
	__atomic_add_fetch(&pool.p_waiting, 1, __ATOMIC_ACQ_REL);
	if (pthread_create(&t, &pool.p_attr, worker_start, NULL) != 0) {
		log_warn("pthread_create: %s", strerror(errno));
		__atomic_sub_fetch(&pool.p_waiting, 1, __ATOMIC_ACQ_REL);
		__atomic_sub_fetch(&pool.p_workers, 1, __ATOMIC_ACQ_REL);
		return -1;
	}
	return 0;
}

/* The address (peer.c) of the client of a connection in a slot. */
const unsigned char *
server_peer(const struct conn *c)
{
	return ((const struct slot *)(const void *)((const char *)c -
	    offsetof(struct slot, s_conn)))->s_peer;
}

/*
 * Starts a thread of fn(arg) with the workers' stack and signal mask,
 * detached: HTTP/2 runs a slow stream on one, CGI its reaper.  0, or -1.
 */
int
server_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	if (!ENABLE_HTTP2 && !ENABLE_CGI)
		return -1;
	if (pthread_create(&t, &pool.p_attr, fn, arg) != 0) {
		log_warn("pthread_create: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The pool's thread attributes, the slot table and its stashes, the epoll
 * set and the signalfd, or exit 1.  Returns the signalfd.
 */
static int
run_start(int ready)
{
	size_t stack = (size_t)CONFIG_THREAD_STACK_KB * 1024 + HEAD_MAX +
	    file_cache_size;
	unsigned long long len;
	sigset_t set;
	int i, sfd;

	/* a CGI request needs room for the program's environment and its
	 * buffers: address space only, touched by CGI requests alone */
	if (ENABLE_CGI)
		stack += 3 * HEAD_MAX + 96 * 1024;
	/* TLS: a file's 16 KiB piece (conn_copyfile), the writer's gather
	 * buffer, and mbed TLS's handshake and record code under them;
	 * TLS_REDIRECT: a Location as long as a head */
	if (ENABLE_TLS)
		stack += 48 * 1024;
	if (ENABLE_TLS_REDIRECT)
		stack += HEAD_MAX + HEAD_ROOM + 512;
	/* HTTP/2: the driver's 16 KiB of frames, a stream's path, nghttp2 */
	if (ENABLE_HTTP2)
		stack += 32 * 1024;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	stack *= 8;	/* ASan's redzones, TSan's bigger frames, need room */
#endif
	pthread_mutex_init(&turn.t_lock, NULL);
	pthread_mutex_init(&listener.l_lock, NULL);
	turn.t_spare_fd = -1;
	pthread_attr_init(&pool.p_attr);
	pthread_attr_setdetachstate(&pool.p_attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&pool.p_attr, stack);
	for (i = 0; i < LISTENERS; i++)
		if (listener.l_fd[i] != -1)
			fcntl(listener.l_fd[i], F_SETFL, O_NONBLOCK);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	/* address space: a page is touched per slot, or stash page, used
	 * (configure bounds MAX_CONNECTIONS * HEAD_MAX to 1 GiB) */
	len = (unsigned long long)SLOTS * (stash_size() + sizeof(*slots)) +
	    EV_BATCH * sizeof(*turn.t_evs) +
	    (ENABLE_TLS ? SLOTS * (sizeof(int) + 1) : 0);
	stash = len > SIZE_MAX ? MAP_FAILED : mmap(NULL, (size_t)len,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);
	if (stash != MAP_FAILED) {
		slots = (struct slot *)(stash + (size_t)SLOTS * stash_size());
		turn.t_evs = (struct epoll_event *)(slots + SLOTS);
	}
	if (stash == MAP_FAILED || peer_init() == -1 ||
	    (sfd = signalfd(-1, &set, SFD_CLOEXEC)) == -1 ||
	    (turn.t_epfd = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    ((ENABLE_TLS || MEM_TRIM) && defer_init() == -1) ||
	    (listener_update(), !listener.l_in_set)) {
		static const char msg[] =
		    "mrhttpd: cannot start the event loop\n";

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
	return sfd;
}

/* Shuts for reading the slots in state st, or every one in use with
 * SLOT_FREE.  A stale fd is at worst a file: ENOTSOCK. */
static void
slots_shut(int st)
{
	int i, now;

	for (i = 0; i < __atomic_load_n(&slots_hi, __ATOMIC_ACQUIRE); i++) {
		now = __atomic_load_n(&slots[i].s_state, __ATOMIC_ACQUIRE);
		if (st == SLOT_FREE ? now != SLOT_FREE : now == st)
			shutdown(slots[i].s_conn.c_fd, SHUT_RD);
	}
}

/* Waits until no worker is busy, or until deadline (ms). */
static void
drain(long long deadline)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000000 };

	while (__atomic_load_n(&pool.p_workers, __ATOMIC_ACQUIRE) > 0 &&
	    now_ms() < deadline)
		nanosleep(&tick, NULL);
}

/*
 * Stop: free the port at once, wake every connection (those waiting for
 * a next request end; replies in progress go on), and let them finish
 * for up to 5 s.
 */
static void
run_stop(int sig)
{
	int i;

	(void)sig;	/* for the log alone, which a build may lack */

	__atomic_store_n(&server_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < LISTENERS; i++)
		if (listener.l_fd[i] != -1)
			shutdown(listener.l_fd[i], SHUT_RDWR);
	/* a shut listener reports EPOLLHUP: that wakes the turn holder,
	 * also when the listeners were out of the set (MAX_CONNECTIONS) */
	pthread_mutex_lock(&listener.l_lock);
	if (!listener.l_in_set && listeners_ctl(EPOLL_CTL_ADD) == 0)
		__atomic_store_n(&listener.l_in_set, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&listener.l_lock);
	log_info("stopping on signal %d", sig);
	/* the idle ones end; one at work goes on, a body still coming
	 * included (it was cut), and closes after its reply */
	slots_shut(SLOT_PARKED);
	drain(now_ms() + 5000);
	/* a body that still stalls then is cut, and its upload given a
	 * moment to remove its temporary file and be logged */
	if (ENABLE_BODIES || ENABLE_HTTP2) {
		slots_shut(SLOT_FREE);
		drain(now_ms() + 500);
	}
	for (i = 0; i < LISTENERS; i++)
		if (listener.l_fd[i] != -1)
			close(listener.l_fd[i]);
}

/*
 * Runs the server until SIGINT or SIGTERM.  The signals are blocked in every
 * thread and taken here from a signalfd, so no handler runs in a worker.
 * The first worker starts when the epoll set first has something, so an
 * idle server is this one thread.  ready is written to (then closed) once
 * accepting, for a detaching parent.
 */
void
server_run(int ready)
{
	struct signalfd_siginfo si;
	struct pollfd pfd[2];
	int n, nfd, sig, wait = -1;

	pfd[0].fd = run_start(ready);
	pfd[0].events = pfd[1].events = POLLIN;
	pfd[1].fd = turn.t_epfd;
	for (;;) {
		/* no worker yet: the first client wakes us too, and waits in
		 * the set (the listeners are level-triggered) for the worker
		 * started for it; the first slow request starts the next */
		nfd = wait == -1 &&
		    __atomic_load_n(&pool.p_workers, __ATOMIC_ACQUIRE) == 0 ? 2 : 1;
		n = poll(pfd, nfd, wait);
		wait = -1;
		if (n > 0 && nfd == 2 && pfd[1].revents != 0 &&
		    spawn_worker() == -1)
			wait = 100;	/* no thread to be had: again soon */
		if (n <= 0 || pfd[0].revents == 0 ||
		    read(pfd[0].fd, &si, sizeof(si)) != sizeof(si))
			continue;
		if ((sig = (int)si.ssi_signo) != SIGHUP)
			break;
		/* the configuration is compiled in; only the log is reopened */
		if (log_open("", (uid_t)-1) == -1)
			log_error("SIGHUP: cannot reopen %s: %s", CONFIG_LOG_FILE,
			    strerror(errno));
	}
	run_stop(sig);
}
