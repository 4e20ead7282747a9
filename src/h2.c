/*
 * h2.c - HTTP/2 (RFC 9113) on nghttp2: the second protocol.  nghttp2 does
 * the framing, HPACK and flow control; this file turns its streams into
 * requests for route_serve() and their responses into HEADERS and DATA.
 *
 * A connection is driven by one thread at a time, the *driver*: whoever
 * took it from the epoll set, as for HTTP/1.1.  It reads frames, runs the
 * requests that are quick (files, listings' refusals, errors) itself,
 * and sends.  A request that may take long (a program, an upload, any
 * request with a body, a listing) runs on a thread of its own, which
 * hands its response to the driver and waits (h2_post): so a slow stream
 * never holds up the others.  Only the driver calls nghttp2.  With no
 * such thread running and nothing to read, the connection is parked and
 * has no thread at all.
 *
 * Bodies go out through nghttp2's data provider: a small file is read
 * into the stream, a bigger one stays a descriptor and is sent by
 * sendfile behind the DATA frame header nghttp2 wrote (the no-copy path),
 * unless the transport cannot (TLS), which then reads it a frame at a
 * time.
 */
#include <sys/eventfd.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>

#include "h2.h"
#include "peer.h"
#include "response.h"
#include "route.h"
#include "log.h"
#include "tls.h"

#if NGHTTP2_VERSION_NUM < 0x012b00
#error "HTTP2=1 needs nghttp2 1.43 or later"
#endif

enum {
	H2_OUT = 16384,		/* frames gathered for one write */
	/* bytes one nghttp2_session_send may write before the driver reads
	 * input and threads' posts again: a client that takes a big file
	 * slowly must not hold up the connection's other streams */
	H2_ROUND = 128 * 1024,
	H2_ARENA = 512,		/* a stream's header bytes, kept inside it */
	H2_CHUNK = 1024,	/* more header bytes: malloc'ed, at least this */
	/* header bytes a connection's streams keep outside their arenas
	 * (chunks, Cookie): past it a stream is refused (H2_OVER) until
	 * some end, else each of HTTP2_MAX_STREAMS whose answers a client
	 * holds back keeps a whole header list */
	H2_HELD = 4 * CONFIG_HTTP2_MAX_HEADER_LIST,
	H2_OVER = 1,		/* s_status: refused for H2_HELD or H2_LIVE,
				 * retryable */
	/* streams alive in the server (their answers not all sent: held
	 * back by their clients, or waiting for threads), past which a
	 * connection with H2_FLOOR of them gets no more (H2_OVER) until
	 * some end; so that they are bounded by MAX_CONNECTIONS, not by
	 * MAX_CONNECTIONS times HTTP2_MAX_STREAMS (3.4 KB each).  Past
	 * H2_LIVE_FAIR of them, the connections that hold as many as the
	 * average holder or more get no more: one client's hundreds held
	 * back left every other connection four */
	H2_LIVE = 4 * CONFIG_MAX_CONNECTIONS,
	H2_LIVE_FAIR = H2_LIVE - H2_LIVE / 4,
	H2_FLOOR = 4,
	H2_IN = 65535,		/* a request body's buffer: its window */
	H2_IN_FIRST = 1024,	/* ... as first allocated: it grows, doubling */
	/* a stream's first window (SETTINGS_INITIAL_WINDOW_SIZE): one
	 * frame of the default size; opened to H2_IN when it gets its
	 * thread (h2_open_window), so that streams that wait hold less */
	H2_FIRST = 16384,
	/* body bytes the streams still without a thread may hold between
	 * them, outside the connection's window (h2s_buffer): eight first
	 * windows */
	H2_WAITING = 8 * H2_FIRST,
	/* streams refused as they waited that count as one control frame
	 * (h2_sent): a client may send them again, and does */
	H2_REFUSALS = 16,
	H2_NV = MAX_HEADERS + 8,
	H2_THREADS = 8,		/* streams on threads at once, a connection */
	H2_RETRY_MS = 100,	/* a stream waits for its address's share */
	H2_GRACE_MS = 1000,	/* past HTTP2_IDLE_TIMEOUT, for the threads' */
	H2_CUTS = 4,		/* waits cut at once (h2_cut) */
	H2_INFLIGHT_MS = 10,	/* a wait past its time for a frame in flight */
	/* files the streams answered on the driver may keep open at once,
	 * a connection (h2s_own): past that a file is answered on a thread
	 * (H2_THREADS, the rest waiting without one), so that a client
	 * holding the window at zero keeps at most these and its threads' */
	H2_FDS = 8,
};

/* Where a response body's bytes come from. */
enum src { B_NONE, B_MEM, B_FD, B_PIECE };

struct chunk {
	struct chunk	*k_next;
	size_t		 k_size, k_used;	/* of k_data */
	char		 k_data[];
};

/* A stream: one request. */
struct h2s {
	struct h2s	*s_next, **s_prev;	/* the connection's streams */
	struct h2s	*s_queue;		/* ready to run */
	struct h2	*s_h2;
	int32_t		 s_id;
	int		 s_status;	/* refused while its headers came */
	int		 s_refused;	/* reset by us before it ran */
	int		 s_body;	/* a request body follows the headers */
	int		 s_queued;	/* in h_head (1) or h_later (2) */
	int		 s_thread;	/* a thread of its own runs it */
	int		 s_rerun;	/* its response is a stream: thread */
	int		 s_refusing;	/* answered at once, never on a thread */
	int		 s_answered;	/* a response was submitted */
	int		 s_closed;	/* nghttp2 is done with it */
	size_t		 s_hlist;	/* header list bytes, as RFC 9113 counts */
	const char	*s_method, *s_target;
	size_t		 s_method_len, s_target_len;
	/* the response body, for the data provider */
	enum src	 s_src;
	const char	*s_p;
	int		 s_fd;
	int		 s_own_fd;	/* dup'ed: closed with the stream */
	off_t		 s_off;
	long long	 s_left;
	int		 s_last;	/* B_PIECE: no piece after this one */
	long long	 s_bytes;	/* body bytes handed on, for the log */
	/* the thread's side, under h_lock */
	struct response	*s_rs;		/* posted, to submit */
	int		 s_data;	/* with a body (DATA) */
	int		 s_resume;	/* posted: a piece is there */
	int		 s_interim;	/* posted: 100 Continue */
	int		 s_sent;	/* the whole body is out */
	int		 s_dead;	/* its thread gave up: no source */
	int		 s_inflight;	/* a no-copy frame is being sent */
	int		 s_done;	/* the thread has ended */
	int		 s_cut;		/* its wait for the client was cut: 1 by
					 * h2_cut, 2 by h2_stream_cut */
	int		 s_waits;	/* in waits (2: for its body), under
					 * h_lock and waits_lock */
	struct h2s	*s_wnext, **s_wprev;	/* there, under waits_lock */
	size_t		 s_ack;		/* body bytes read, to acknowledge */
	size_t		 s_free;	/* body bytes that came before it had a
					 * thread: the connection's window is
					 * back already (h2s_buffer) */
	char		*s_in;		/* the request body as it comes */
	size_t		 s_in_pos, s_in_len, s_in_cap;
	int		 s_in_end;
	int		 s_in_gone;	/* stopping: what has not come never will */
	int		 s_poke;	/* its thread polls c_hup for the body */
	int		 s_poked;	/* a byte in that pipe says it came */
	int		 s_hupw;	/* closed when the stream ends: c_hup */
	char		*s_cookie;	/* Cookie, its crumbs joined */
	size_t		 s_cookie_len, s_cookie_cap;
	pthread_cond_t	 s_cond;
	struct request	 s_req;
	struct conn	 s_conn;	/* what its handler sees */
	struct chunk	*s_chunks;
	size_t		 s_used;
	char		 s_arena[H2_ARENA];
};

/* A connection's session. */
struct h2 {
	nghttp2_session	*h_ses;
	struct conn	*h_conn;
	struct h2s	*h_streams;
	struct h2s	*h_head, **h_tail;	/* the run queue */
	struct h2s	*h_later, **h_ltail;	/* waiting for a thread */
	pthread_mutex_t	 h_lock;
	int		 h_efd;		/* threads wake the driver; -1: none yet */
	int		 h_threads;	/* running, under h_lock */
	int		 h_waiting;	/* of them, waiting for the client (waits) */
	int		 h_bodywait;	/* of them, for a request body */
	int		 h_again;	/* the driver's wait for it goes on */
	unsigned	 h_marked;	/* h_moved when it was marked */
	int		 h_fds;		/* descriptors of h2s_own, driver's only */
	unsigned	 h_moved, h_seen;	/* streams begun, DATA sent
						 * and body DATA come; when
						 * last looked at (h2_seen) */
	long long	 h_progress;	/* when h_moved was seen to move */
	long long	 h_frame_at;	/* when it parked after a whole frame
					 * came, or idle after its streams */
	int		 h_framed;	/* a whole frame came since it parked */
	int		 h_parked_busy;	/* it parked last with a stream open */
	int		 h_ctrl;	/* control frames left this second */
	long long	 h_ctrl_at;
	unsigned	 h_refused;	/* streams refused as they waited */
	int		 h_fail;	/* a write failed */
	int		 h_ran;		/* streams run on the turn (REQ_BUDGET) */
	int		 h_goaway;	/* the last GOAWAY is queued */
	int32_t		 h_last_id;	/* the highest stream a HEADERS opened */
	char		*h_out;		/* the driver's write buffer */
	size_t		 h_outlen;
	size_t		 h_round;	/* written in this round (H2_ROUND) */
	size_t		 h_free;	/* the streams' s_free, at most H2_WAITING */
	int		 h_live;	/* its streams, the driver's only */
	size_t		 h_held;	/* the streams' chunks and Cookies, bytes
					 * (H2_HELD); the driver's only */
	int		 h_more;	/* the round ended with more to send */
};

static nghttp2_session_callbacks *callbacks;
static nghttp2_option *options;
static int threads;		/* stream threads in the server, atomic */
static int live;		/* streams in the server, atomic (H2_LIVE) */
static int holders;		/* connections with live streams, atomic */
/* The stream threads waiting for their clients, the longest first (each
 * wait goes to the back when it begins or its body moves); and how many
 * of them were cut and have not ended yet (atomic, raised under
 * waits_lock).  waits_lock is taken under a connection's h_lock, never
 * the other way but with a trylock. */
static pthread_mutex_t waits_lock = PTHREAD_MUTEX_INITIALIZER;
static struct h2s *waits, **waits_tail = &waits;
static int cutting;

extern const struct transport h2s_transport;

static struct h2s *
stream_of(struct conn *c)
{
	return (struct h2s *)(void *)((char *)c - offsetof(struct h2s, s_conn));
}

/* Tells the driver a thread has posted something.  Under h_lock. */
static void
h2_wake(struct h2 *h)
{
	uint64_t one = 1;

	(void)!write(h->h_efd, &one, sizeof(one));
}

/* Takes s out of waits.  Under waits_lock and s's h_lock. */
static void
h2s_unlist(struct h2s *s)
{
	if (!s->s_waits)
		return;
	if ((*s->s_wprev = s->s_wnext) != NULL)
		s->s_wnext->s_wprev = s->s_wprev;
	else
		waits_tail = s->s_wprev;
	s->s_h2->h_bodywait -= s->s_waits == 2;
	s->s_waits = 0;
	s->s_h2->h_waiting--;
}

/* s's thread begins a wait for its client (1; 2 for its body), or ends
 * it (0).  Under its h_lock.  The wait that makes every thread of the
 * connection wait wakes the driver, which may have looked before it and
 * polls without a time-out (h2_wait). */
static void
h2s_waiting(struct h2s *s, int on)
{
	struct h2 *h = s->s_h2;
	int all = h->h_waiting == h->h_threads;

	if (!on && !s->s_waits)
		return;
	pthread_mutex_lock(&waits_lock);
	h2s_unlist(s);
	if ((s->s_waits = !s->s_cut ? on : 0) != 0) {
		s->s_h2->h_waiting++;
		s->s_h2->h_bodywait += on == 2;
		s->s_wnext = NULL;
		s->s_wprev = waits_tail;
		*waits_tail = s;
		waits_tail = &s->s_wnext;
	}
	pthread_mutex_unlock(&waits_lock);
	if (on && !all && h->h_waiting == h->h_threads)
		h2_wake(h);
}

/* More of the body is there, or its wait was cut: its thread, should it
 * poll c_hup for it (a program's pump), sees POLLIN.  Under h_lock, which
 * every close of s_hupw (h2s_hangup) holds too, but h2s_free's, when no
 * thread is left to be cut. */
static void
h2s_poke(struct h2s *s)
{
	if (s->s_poke && s->s_hupw != -1) {
		s->s_poke = 0;
		s->s_poked = write(s->s_hupw, "", 1) == 1;
	}
}

/*
 * Every stream thread the server allows (MAX_CONNECTIONS) runs, and a
 * stream of an address within its share needs one: ends the wait for a
 * client that began longest ago, as server_wait's are for a newcomer, so
 * that bodies that never come (or replies never read) from many addresses
 * cannot keep everyone else's programs out.  The cut thread answers as
 * for a client that stalled, and ends; the new stream's thread starts at
 * once, over the cap until then, as an HTTP/1 newcomer holds the slot
 * over MAX_CONNECTIONS.  At most H2_CUTS are under way.  A stream the
 * driver is sending a frame of (s_inflight: sendfile from its descriptor,
 * without h_lock) is passed over.  Returns 1 when a wait was cut.
 */
static int
h2_cut(void)
{
	struct h2s *s = NULL;

	pthread_mutex_lock(&waits_lock);
	if (__atomic_load_n(&cutting, __ATOMIC_ACQUIRE) < H2_CUTS)
		s = waits;
	for (; s != NULL; s = s->s_wnext) {
		if (pthread_mutex_trylock(&s->s_h2->h_lock) != 0)
			continue;
		if (!s->s_inflight)
			break;
		pthread_mutex_unlock(&s->s_h2->h_lock);
	}
	if (s != NULL) {
		h2s_unlist(s);		/* cut once */
		s->s_cut = 1;
		pthread_cond_signal(&s->s_cond);
		s->s_poke = 1;		/* a pump polls c_hup */
		h2s_poke(s);
		pthread_mutex_unlock(&s->s_h2->h_lock);
		__atomic_add_fetch(&cutting, 1, __ATOMIC_ACQ_REL);
	}
	pthread_mutex_unlock(&waits_lock);
	return s != NULL;
}

/* --- streams ----------------------------------------------------------- */

static struct h2s *
h2s_new(struct h2 *h, int32_t id)
{
	struct h2s *s = malloc(sizeof(*s));
	int n;

	if (s == NULL)
		return NULL;
	/* all but the arena and the request's field table */
	memset(s, 0, offsetof(struct h2s, s_req));
	memset(&s->s_req, 0, offsetof(struct request, req_hdrs));
	s->s_req.req_decoded_len = 0;
	s->s_req.req_h2 = 1;
	s->s_req.req_clen = -1;
	s->s_h2 = h;
	s->s_id = id;
	s->s_fd = -1;
	s->s_hupw = -1;
	/* the connection's fields but c_more, which next_conn may set on
	 * another thread meanwhile (atomic): a plain copy of it races */
	_Static_assert(offsetof(struct conn, c_more) + sizeof(int) ==
	    offsetof(struct conn, c_tr), "c_tr follows c_more");
	memcpy(&s->s_conn, h->h_conn, offsetof(struct conn, c_more));
	memcpy(&s->s_conn.c_tr, &h->h_conn->c_tr,
	    sizeof(struct conn) - offsetof(struct conn, c_tr));
	s->s_conn.c_more = 0;
	s->s_conn.c_hup = -1;
	s->s_conn.c_tr = &h2s_transport;
	s->s_conn.c_proto = &h2_protocol;
	s->s_conn.c_close = 0;
	s->s_conn.c_buf = NULL;
	s->s_conn.c_len = s->s_conn.c_pos = 0;
	s->s_conn.c_h2 = NULL;
	s->s_chunks = NULL;
	s->s_used = 0;
	if ((s->s_next = h->h_streams) != NULL)
		s->s_next->s_prev = &s->s_next;
	s->s_prev = &h->h_streams;
	h->h_streams = s;
	if (h->h_live++ == 0)
		__atomic_add_fetch(&holders, 1, __ATOMIC_RELAXED);
	n = __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
	if (n > H2_LIVE_FAIR && h->h_live > H2_FLOOR && (n > H2_LIVE ||
	    (long long)h->h_live * __atomic_load_n(&holders,
	    __ATOMIC_RELAXED) >= n))
		s->s_status = H2_OVER;	/* refused once its headers end */
	return s;
}

/* The stream has ended: a program it runs sees its client gone (the
 * pipe behind c_hup reports POLLHUP, as a socket would). */
static void
h2s_hangup(struct h2s *s)
{
	if (s->s_hupw != -1)
		close(s->s_hupw);
	s->s_hupw = -1;
}

/* Lets go of its response body's source. */
static void
h2s_release(struct h2s *s)
{
	if (s->s_own_fd) {
		close(s->s_fd);
		s->s_h2->h_fds--;
	}
	s->s_own_fd = 0;
	s->s_fd = -1;
	s->s_src = B_NONE;
	s->s_left = 0;
}

static void
h2s_free(struct h2s *s)
{
	struct chunk *k;

	/* nghttp2 may still know the stream (one the session's end closed):
	 * it must not find it there */
	(void)nghttp2_session_set_stream_user_data(s->s_h2->h_ses, s->s_id, NULL);
	h2s_release(s);
	h2s_hangup(s);
	if (s->s_conn.c_hup != -1)
		close(s->s_conn.c_hup);
	if ((*s->s_prev = s->s_next) != NULL)
		s->s_next->s_prev = s->s_prev;
	if (--s->s_h2->h_live == 0)
		__atomic_sub_fetch(&holders, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
	while ((k = s->s_chunks) != NULL) {
		s->s_chunks = k->k_next;
		s->s_h2->h_held -= k->k_size;
		free(k);
	}
	s->s_h2->h_held -= s->s_cookie_cap;
	if (s->s_thread)
		pthread_cond_destroy(&s->s_cond);
	free(s->s_in);
	free(s->s_cookie);
	free(s);
}

/* Room for n bytes and a NUL, kept with the stream: in its arena, else
 * in its newest chunk, else in a new one (H2_CHUNK, or n + 1 when more).
 * What a stream holds stays near the bytes it was sent, which the header
 * list limit bounds.  NULL when out of memory. */
static char *
h2s_alloc(struct h2s *s, size_t n)
{
	struct chunk *k = s->s_chunks;
	size_t size;
	char *d;

	if (n < sizeof(s->s_arena) - s->s_used) {
		d = s->s_arena + s->s_used;
		s->s_used += n + 1;
	} else {
		if (k == NULL || n >= k->k_size - k->k_used) {
			size = n < H2_CHUNK ? H2_CHUNK : n + 1;
			if ((k = malloc(sizeof(*k) + size)) == NULL)
				return NULL;
			s->s_h2->h_held += size;
			k->k_size = size;
			k->k_used = 0;
			k->k_next = s->s_chunks;
			s->s_chunks = k;
		}
		d = k->k_data + k->k_used;
		k->k_used += n + 1;
	}
	d[n] = '\0';
	return d;
}

static char *
h2s_keep(struct h2s *s, const char *p, size_t n)
{
	char *d = h2s_alloc(s, n);

	if (d != NULL)
		memcpy(d, p, n);
	return d;
}

/* A field's value as the HTTP/1 parser would take it: no controls. */
static int
value_ok(const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (((unsigned char)v[i] < ' ' && v[i] != '\t') || v[i] == 0x7f)
			return 0;
	return 1;
}

/* A cookie crumb appended to the Cookie field already there, in a buffer
 * of the stream's that doubles as it fills (crumbs copied once each, not
 * the whole field again per crumb).  1 when done, 0 when it is the first. */
static int
h2s_cookie(struct h2s *s, const char *v, size_t vlen)
{
	struct request *r = &s->s_req;
	struct header *h = NULL;
	size_t n, need, cap;
	char *p;
	int i;

	for (i = 0; i < r->req_nhdrs && h == NULL; i++)
		if (r->req_hdrs[i].h_name_len == 6 &&
		    memcmp(r->req_hdrs[i].h_name, "cookie", 6) == 0)
			h = &r->req_hdrs[i];
	if (h == NULL)
		return 0;
	n = s->s_cookie != NULL ? s->s_cookie_len : strlen(h->h_value);
	need = n + 2 + vlen + 1;
	if (need > s->s_cookie_cap) {
		cap = need < 2 * s->s_cookie_cap ? 2 * s->s_cookie_cap : need;
		if ((p = realloc(s->s_cookie, cap)) == NULL) {
			s->s_status = 400;
			return 1;
		}
		s->s_h2->h_held += cap - s->s_cookie_cap;
		if (s->s_cookie == NULL)	/* the first crumb moves in */
			memcpy(p, h->h_value, n);
		s->s_cookie = p;
		s->s_cookie_cap = cap;
	}
	memcpy(s->s_cookie + n, "; ", 2);
	memcpy(s->s_cookie + n + 2, v, vlen);
	s->s_cookie_len = n + 2 + vlen;
	s->s_cookie[s->s_cookie_len] = '\0';
	h->h_value = s->s_cookie;
	return 1;
}

/* Stores a field (its name kept already) in the request and reads it as
 * the HTTP/1 parser would (request_header); a refusal goes to s_status. */
static void
h2s_store(struct h2s *s, const char *name, size_t nlen, const char *v)
{
	struct request *r = &s->s_req;
	struct header *h;
	int rc;

	if (r->req_nhdrs == MAX_HEADERS) {
		s->s_status = 431;
		return;
	}
	h = &r->req_hdrs[r->req_nhdrs++];
	*h = (struct header){ .h_name = name, .h_name_len = nlen,
	    .h_value = v };
	if ((rc = request_header(r, h, v)) != 0)
		s->s_status = -rc;
}

/* One field of a request's header list.  A refusal is remembered in
 * s_status (the stream is answered with it), never an error of the
 * connection. */
static void
h2s_field(struct h2s *s, const char *name, size_t nlen, const char *value,
    size_t vlen)
{
	struct request *r = &s->s_req;
	const char *v, *kept;

	s->s_hlist += nlen + vlen + 32;
	if (s->s_hlist > CONFIG_HTTP2_MAX_HEADER_LIST)
		s->s_status = 431;
	else if (s->s_status == 0 && s->s_h2->h_held > H2_HELD)
		s->s_status = H2_OVER;
	if (s->s_status != 0)
		return;
	if (!value_ok(value, vlen) || (v = h2s_keep(s, value, vlen)) == NULL) {
		s->s_status = 400;
		return;
	}
	if (name[0] == ':') {	/* nghttp2 checked which, and that once */
		if (nlen == 7 && memcmp(name, ":method", 7) == 0) {
			s->s_method = v;
			s->s_method_len = vlen;
			r->req_method = method_lookup(v, vlen);
		} else if (nlen == 5 && memcmp(name, ":path", 5) == 0) {
			s->s_target = v;
			s->s_target_len = vlen;
		} else if (nlen == 10 && memcmp(name, ":authority", 10) == 0)
			h2s_store(s, "Host", 4, v);	/* checked, passed on
						 * (HTTP_HOST) as Host is */
		return;
	}
	/* :authority stands for Host; a Host beside it names the same
	 * authority or the request is malformed (RFC 9113 8.3.1) */
	if (nlen == 4 && strncasecmp(name, "host", 4) == 0 &&
	    r->req_host != NULL) {
		if (strlen(r->req_host) != vlen ||
		    strncasecmp(r->req_host, v, vlen) != 0)
			s->s_status = 400;
		return;
	}
	/* cookie crumbs are one Cookie again, joined with "; " (RFC 9113
	 * 8.2.3), as a program expects it in HTTP_COOKIE */
	if (nlen == 6 && memcmp(name, "cookie", 6) == 0 && h2s_cookie(s, v, vlen))
		return;
	if ((kept = h2s_keep(s, name, nlen)) == NULL)
		s->s_status = 400;
	else
		h2s_store(s, kept, nlen, v);
}

/* The target's bytes, as the HTTP/1 parser allows them. */
static int
target_ok(const char *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)t[i] <= ' ' || t[i] == 0x7f || t[i] == '#')
			return 0;
	return 1;
}

/* Its headers are all in: the request line for the log and CGI, the
 * target split at '?', and the stream queued to run. */
static void
h2s_ready(struct h2 *h, struct h2s *s, int body)
{
	struct request *r = &s->s_req;
	const char *q;
	char *line;
	size_t n;

	s->s_body = body;
	s->s_in_end = !body;
	r->req_minor = 1;
	r->req_keepalive = 1;
	if (body && r->req_clen < 0)
		r->req_clen = REQ_CLEN_STREAM;
	/* CONNECT names an authority, no path (RFC 9113 8.5; nghttp2 checked
	 * that): it stands in for the target, as over HTTP/1, and the
	 * request gets the same 405 */
	if (r->req_method == M_CONNECT && s->s_target == NULL &&
	    r->req_host != NULL) {
		s->s_target = r->req_host;
		s->s_target_len = strlen(r->req_host);
	}
	if (s->s_method == NULL || s->s_target == NULL) {
		s->s_method = "-";
		s->s_method_len = 1;
		s->s_target = "";
		s->s_target_len = 0;
		if (s->s_status == 0)
			s->s_status = 400;
	}
	if (s->s_status == 0 && !target_ok(s->s_target, s->s_target_len))
		s->s_status = 400;
	/* "GET /x HTTP/2.0" */
	n = s->s_method_len + 1 + s->s_target_len + 9;
	if ((line = h2s_alloc(s, n)) != NULL) {
		memcpy(line, s->s_method, s->s_method_len);
		line[s->s_method_len] = ' ';
		memcpy(line + s->s_method_len + 1, s->s_target, s->s_target_len);
		memcpy(line + n - 9, " HTTP/2.0", 9);
		r->req_line = line;
		r->req_method_len = s->s_method_len;
	} else {
		r->req_line = "- - HTTP/2.0";
		r->req_method_len = 1;
		s->s_target_len = 0;
		if (s->s_status == 0)
			s->s_status = 500;
	}
	r->req_target = r->req_line + r->req_method_len + 1;
	r->req_target_len = s->s_target_len;
	r->req_path_len = s->s_target_len;
	if ((q = memchr(r->req_target, '?', s->s_target_len)) != NULL) {
		r->req_path_len = (size_t)(q - r->req_target);
		r->req_query = q + 1;
		r->req_query_len = s->s_target_len - r->req_path_len - 1;
	}
	s->s_queued = 1;
	s->s_queue = NULL;
	*h->h_tail = s;
	h->h_tail = &s->s_queue;
}

/* --- the response ------------------------------------------------------ */

static int
h2_nocopy(const struct h2 *h)
{
	return ENABLE_SENDFILE && h->h_conn->c_tr->t_sendfile != NULL;
}

/* The whole body is out: its thread may go on. */
static void
h2s_sent(struct h2s *s)
{
	s->s_sent = 1;
	if (s->s_thread)
		pthread_cond_signal(&s->s_cond);
	else
		h2s_release(s);
}

/*
 * nghttp2's data provider: up to len bytes of the body into buf, or with
 * NO_COPY only counted, for h2_send_data to send from the file.
 */
static ssize_t
h2s_take(struct h2 *h, struct h2s *s, uint8_t *buf, size_t len,
    uint32_t *flags)
{
	ssize_t n, got;

	if (s->s_dead)		/* its thread gave up: reset */
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	if (s->s_left == 0 && s->s_src == B_PIECE && !s->s_last)
		return NGHTTP2_ERR_DEFERRED;	/* resumed by the next piece */
	n = s->s_left < (long long)len ? (ssize_t)s->s_left : (ssize_t)len;
	switch (s->s_src) {
	case B_MEM:
	case B_PIECE:
		if (n > 0)	/* the last piece may be none (NULL) */
			memcpy(buf, s->s_p, (size_t)n);
		s->s_p += n;
		break;
	case B_FD:
		if (h2_nocopy(h)) {	/* h2_send_data sends it */
			*flags |= NGHTTP2_DATA_FLAG_NO_COPY;
			s->s_inflight = 1;
			break;
		}
		do
			got = pread(s->s_fd, buf, (size_t)n, s->s_off);
		while (got == -1 && errno == EINTR);
		if (got != n)	/* it shrank under us: the length is wrong */
			return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
		s->s_off += n;
		break;
	default:
		n = 0;
	}
	s->s_left -= n;
	s->s_bytes += n;
	h->h_moved += (unsigned)n;
	if (s->s_left > 0)
		return n;
	if (s->s_src != B_PIECE || s->s_last) {
		*flags |= NGHTTP2_DATA_FLAG_EOF;
		if (!(*flags & NGHTTP2_DATA_FLAG_NO_COPY))
			h2s_sent(s);
	} else if (s->s_thread)
		pthread_cond_signal(&s->s_cond);	/* piece taken */
	return n;
}

static ssize_t
h2_read(nghttp2_session *ses, int32_t id, uint8_t *buf, size_t len,
    uint32_t *flags, nghttp2_data_source *src, void *arg)
{
	struct h2s *s = src->ptr;
	struct h2 *h = arg;
	ssize_t n;

	(void)ses;
	(void)id;
	if (!s->s_thread)
		return h2s_take(h, s, buf, len, flags);
	pthread_mutex_lock(&h->h_lock);
	n = h2s_take(h, s, buf, len, flags);
	pthread_mutex_unlock(&h->h_lock);
	return n;
}

/* Writes out what the frames gathered.  0, or -1 when the client is gone. */
static int
h2_flush(struct h2 *h, int more)
{
	struct iovec iov = { .iov_base = h->h_out, .iov_len = h->h_outlen };

	if (h->h_outlen == 0)
		return h->h_fail ? -1 : 0;
	h->h_outlen = 0;
	if (!h->h_fail && conn_writev(h->h_conn, &iov, 1, more ? IO_MORE : 0) == -1)
		h->h_fail = 1;
	return h->h_fail ? -1 : 0;
}

/* Does the round of writes end before n more bytes?  Then it is to go on
 * once input and posts have been looked at. */
static int
h2_round_over(struct h2 *h, size_t n)
{
	if (h->h_round >= H2_ROUND)
		return h->h_more = 1;
	h->h_round += n;
	return 0;
}

/* nghttp2's frames, gathered into one write. */
static ssize_t
h2_send(nghttp2_session *ses, const uint8_t *p, size_t n, int flags, void *arg)
{
	struct h2 *h = arg;

	(void)ses;
	(void)flags;
	if (h2_round_over(h, n))
		return NGHTTP2_ERR_WOULDBLOCK;
	if (h->h_outlen + n > H2_OUT && h2_flush(h, 1) == -1)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	if (n >= H2_OUT) {
		if (conn_writev(h->h_conn, &(struct iovec){ .iov_base = (void *)p,
		    .iov_len = n }, 1, IO_MORE) == -1) {
			h->h_fail = 1;
			return NGHTTP2_ERR_CALLBACK_FAILURE;
		}
		return (ssize_t)n;
	}
	memcpy(h->h_out + h->h_outlen, p, n);
	h->h_outlen += n;
	return (ssize_t)n;
}

/* A DATA frame on the no-copy path: its 9-byte header behind what is
 * gathered, then the payload straight from the file. */
static int
h2_send_data(nghttp2_session *ses, nghttp2_frame *f, const uint8_t *hd,
    size_t len, nghttp2_data_source *src, void *arg)
{
	struct h2 *h = arg;
	struct h2s *s = src->ptr;
	struct iovec iov[2] = {
		{ .iov_base = h->h_out, .iov_len = h->h_outlen },
		{ .iov_base = (void *)hd, .iov_len = 9 },
	};
	int k = h->h_outlen > 0 ? 0 : 1;

	(void)ses;
	(void)f;	/* never padded: no padding callback */
	if (h2_round_over(h, 9 + len))
		return NGHTTP2_ERR_WOULDBLOCK;
	h->h_outlen = 0;
	if (h->h_fail || conn_writev(h->h_conn, iov + k, 2 - k, IO_MORE) == -1 ||
	    (len > 0 && conn_sendfile(h->h_conn, s->s_fd, s->s_off,
	    (off_t)len) == -1)) {
		h->h_fail = 1;
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	}
	s->s_off += (off_t)len;
	if (s->s_thread)
		pthread_mutex_lock(&h->h_lock);
	s->s_inflight = 0;
	if (s->s_left == 0)
		h2s_sent(s);
	else if (s->s_thread)	/* progress: a waiting thread sees it */
		pthread_cond_signal(&s->s_cond);
	if (s->s_thread)
		pthread_mutex_unlock(&h->h_lock);
	return 0;
}

/* Is this response field one HTTP/2 forbids (RFC 9113 8.2.2)?  n is in
 * lower case already. */
static int
hop_by_hop(const char *n, size_t len)
{
	switch (len) {
	case 2:		/* a request's field alone (RFC 9113 8.2.2) */
		return memcmp(n, "te", 2) == 0;
	case 7:
		return memcmp(n, "upgrade", 7) == 0;
	case 10:
		return memcmp(n, "connection", 10) == 0 ||
		    memcmp(n, "keep-alive", 10) == 0;
	case 16:
		return memcmp(n, "proxy-connection", 16) == 0;
	case 17:
		return memcmp(n, "transfer-encoding", 17) == 0;
	}
	return 0;
}

#define NV(n, v, vl) ((nghttp2_nv){ .name = (uint8_t *)(n), \
	.value = (uint8_t *)(v), .namelen = sizeof(n) - 1, .valuelen = (vl) })

/*
 * Submits rs as HEADERS: the status, the common fields, the handler's
 * (names in lower case, in place), and the length.  With body, DATA from
 * the stream's source follows.  0, or -1.
 */
static int
h2_submit(struct h2 *h, struct h2s *s, struct response *rs, int body)
{
	nghttp2_data_provider prd = { .source.ptr = s, .read_callback = h2_read };
	nghttp2_nv nv[H2_NV];
	char status[4], len[24], *p, *end, *colon, *v, *q;
	struct buf b;
	time_t now;
	size_t n = 0;
	int st = rs->rs_status;

	status[0] = (char)('0' + st / 100 % 10);
	status[1] = (char)('0' + st / 10 % 10);
	status[2] = (char)('0' + st % 10);
	nv[n++] = NV(":status", status, 3);
	nv[n++] = NV("date", http_date_now(&now), 29);
	nv[n++] = NV("server", "mrhttpd/" MRHTTPD_VERSION,
	    sizeof("mrhttpd/" MRHTTPD_VERSION) - 1);
	if (ENABLE_PRAGMA)
		nv[n++] = NV("pragma", CONFIG_PRAGMA, sizeof(CONFIG_PRAGMA) - 1);
	/* "Name: value\r\n" lines, which the handler built */
	for (p = rs->rs_fields.b_start; p != NULL && p < rs->rs_fields.b_p;
	    p = end + 2) {
		if ((end = memchr(p, '\r', (size_t)(rs->rs_fields.b_p - p))) == NULL ||
		    (colon = memchr(p, ':', (size_t)(end - p))) == NULL)
			break;
		for (q = p; q < colon; q++)
			if (*q >= 'A' && *q <= 'Z')
				*q = (char)(*q - 'A' + 'a');
		for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
			;
		if (hop_by_hop(p, (size_t)(colon - p)))
			continue;
		if (n == H2_NV - 1)
			return -1;
		nv[n++] = (nghttp2_nv){ .name = (uint8_t *)p,
		    .value = (uint8_t *)v, .namelen = (size_t)(colon - p),
		    .valuelen = (size_t)(end - v) };
	}
	if (!(st < 200 || st == 204 || st == 304) && rs->rs_len >= 0) {
		buf_init(&b, len, sizeof(len));
		buf_uint(&b, (unsigned long long)rs->rs_len);
		nv[n++] = NV("content-length", len, buf_len(&b));
	}
	if (nghttp2_submit_response(h->h_ses, s->s_id, nv, n, body ? &prd : NULL)
	    != 0)
		return -1;
	s->s_answered = 1;
	if (!body)
		s->s_sent = 1;
	return 0;
}

/* Would an inline response's body keep a descriptor (h2s_own)?  The
 * length compared whole: a 32-bit size_t took a file of 4 GiB + 10 bytes
 * for 10, copied them, and sent on past the arena */
static int
h2s_keeps_fd(const struct h2s *s, const struct response *rs)
{
	return rs->rs_src != SRC_MEM && (unsigned long long)rs->rs_len >=
	    sizeof(s->s_arena) - s->s_used;
}

/* An inline response's body, made the stream's own: a small one copied
 * in, a file's descriptor duplicated.  0, or -1. */
static int
h2s_own(struct h2s *s, const struct response *rs)
{
	size_t len = (size_t)rs->rs_len;
	char *p;
	ssize_t got;

	if (!h2s_keeps_fd(s, rs)) {
		if ((p = h2s_alloc(s, len)) == NULL)
			return -1;
		if (rs->rs_src == SRC_MEM)
			memcpy(p, rs->rs_mem, len);
		else {
			do
				got = pread(rs->rs_fd, p, len, rs->rs_off);
			while (got == -1 && errno == EINTR);
			if (got != (ssize_t)len)
				return -1;
		}
		s->s_src = B_MEM;
		s->s_p = p;
	} else {
		if ((s->s_fd = fcntl(rs->rs_fd, F_DUPFD_CLOEXEC, 0)) == -1)
			return -1;
		s->s_own_fd = 1;
		s->s_h2->h_fds++;
		s->s_src = B_FD;
		s->s_off = rs->rs_off;
	}
	s->s_left = rs->rs_len;
	return 0;
}

/* The body source of a thread's response: its handler's own memory or
 * descriptor, which stay valid while the thread waits for s_sent. */
static void
h2s_borrow(struct h2s *s, const struct response *rs)
{
	s->s_left = rs->rs_len;
	switch (rs->rs_src) {
	case SRC_MEM:
		s->s_src = B_MEM;
		s->s_p = rs->rs_mem;
		break;
	case SRC_FILE:
		s->s_src = B_FD;
		s->s_fd = rs->rs_fd;
		s->s_off = rs->rs_off;
		break;
	default:	/* pieces, as h2_put hands them over */
		s->s_src = B_PIECE;
		s->s_left = 0;
		s->s_last = 0;
	}
}

static int	h2_post(struct h2s *, struct reply *, struct response *, int);

/* Has a response more field lines than h2_submit's table takes?  A
 * line is 4 bytes at least ("x:\r\n"): the usual response, shorter than
 * that many of them, is not counted. */
static int
h2_too_many(const struct buf *f)
{
	const char *p;
	size_t n = 0;

	if (buf_len(f) <= 4 * (H2_NV - 6))
		return 0;
	for (p = f->b_start; p < f->b_p; p++)
		n += *p == '\n';
	return n > H2_NV - 6;
}

/* p_respond: a handler's response on its stream. */
static int
h2_respond(struct conn *c, struct request *r, struct reply *rp,
    struct response *rs)
{
	struct h2s *s = stream_of(c);
	int st = rs->rs_status;
	int body = !(st < 200 || st == 204 || st == 304) && rs->rs_len != 0 &&
	    rs->rs_src != SRC_NONE && (r == NULL || r->req_method != M_HEAD);

	rp->rp_status = st;
	rp->rp_bytes = 0;
	/* nph-: a message of its own, HTTP/1 only; more fields than
	 * h2_submit takes (a program's; HTTP/1 takes them): both a 502, not
	 * a reset stream */
	if (rs->rs_raw || h2_too_many(&rs->rs_fields))
		return response_error(c, r, rp, 502);
	if (s->s_thread)
		return h2_post(s, rp, rs, body);
	/* a stream body (a listing) is produced on a thread of its own,
	 * where it may wait for the client: run it again there; so is a
	 * file past the connection's H2_FDS.  A refusal's page (a file of
	 * PRIVATE_DIR) past it is left out: its status still goes out */
	if (body && (rs->rs_src == SRC_STREAM || (h2s_keeps_fd(s, rs) &&
	    s->s_h2->h_fds >= H2_FDS))) {
		if (!s->s_refusing) {
			s->s_rerun = 1;
			return -1;
		}
		rs->rs_len = 0;
		body = 0;
	}
	if ((body && h2s_own(s, rs) == -1) ||
	    h2_submit(s->s_h2, s, rs, body) == -1) {
		h2s_release(s);
		return -1;
	}
	rp->rp_bytes = body ? rs->rs_len : 0;
	return 0;
}

/* 100 Continue, from a thread reading a body.  102 has no use here. */
static int
h2_interim(struct conn *c, struct request *r, int status, int flags)
{
	struct h2s *s = stream_of(c);

	(void)r;
	(void)flags;
	if (status != 100 || !s->s_thread)
		return 0;
	pthread_mutex_lock(&s->s_h2->h_lock);
	s->s_interim = 1;
	h2_wake(s->s_h2);
	pthread_mutex_unlock(&s->s_h2->h_lock);
	return 0;
}

/* --- streams on threads of their own -------------------------------------- */

static int is_submitted(const struct h2s *s) { return s->s_rs == NULL; }
static int is_sent(const struct h2s *s) { return s->s_sent; }
static int is_taken(const struct h2s *s)
{
	return s->s_left == 0 && (!s->s_last || s->s_sent);
}

/*
 * A thread waits for the driver (h_lock held) until done(s).  Returns 0,
 * or -1 when the stream closed first, or when its body moved no byte for
 * HTTP2_IDLE_TIMEOUT (a client holding the window at zero): then the
 * stream loses its source, which is the handler's and goes with it, and
 * the driver resets it.
 */
static int
h2s_await(struct h2s *s, int (*done)(const struct h2s *))
{
	struct timespec t;
	long long seen = -1, ms;

	/* cut, it still waits for a frame in flight: the driver sends it
	 * from the descriptor its handler closes once this returns */
	while (!done(s) && !s->s_closed && !(s->s_cut && !s->s_inflight)) {
		if (seen != s->s_bytes) {
			seen = s->s_bytes;
			/* a program's reply: no wait past its CGI_TIMEOUT
			 * (c_wdue), however slowly the client takes it */
			ms = conn_wait_ms(&s->s_conn,
			    CONFIG_HTTP2_IDLE_TIMEOUT * 1000LL);
			if (ms <= 0 && !s->s_inflight)
				break;
			abstime(&t, ms > 0 ? ms : H2_INFLIGHT_MS);
			h2s_waiting(s, 1);
		}
		if (pthread_cond_timedwait(&s->s_cond, &s->s_h2->h_lock, &t) ==
		    ETIMEDOUT && seen == s->s_bytes) {
			if (!s->s_inflight)
				break;
			/* a frame in flight is sent soon: wait, not spin */
			abstime(&t, H2_INFLIGHT_MS);
		}
	}
	h2s_waiting(s, 0);
	if (done(s) && !s->s_cut)
		return 0;
	s->s_dead = 1;
	s->s_src = B_NONE;
	return -1;
}

/*
 * A thread's response: handed to the driver, which submits it; then its
 * body, which the driver takes from the handler's memory, descriptor or
 * stream pieces while this thread waits.  0, or -1 when the stream ended
 * first.
 */
static int	h2_put(struct stream *, const char *, size_t, int);

static int
h2_post(struct h2s *s, struct reply *rp, struct response *rs, int body)
{
	struct h2 *h = s->s_h2;
	struct stream st = { .st_put = h2_put, .st_conn = &s->s_conn,
	    .st_left = rs->rs_len };
	int rc;

	pthread_mutex_lock(&h->h_lock);
	if (!s->s_closed) {
		s->s_rs = rs;
		s->s_data = body;
		h2_wake(h);
		(void)h2s_await(s, is_submitted);
	}
	s->s_rs = NULL;
	pthread_mutex_unlock(&h->h_lock);
	if (!s->s_answered)
		return -1;
	if (body && rs->rs_src == SRC_STREAM) {
		rc = rs->rs_stream(rs->rs_arg, &st);
		/* short of its Content-Length, it must not end cleanly: the
		 * driver resets it (h2_posts) */
		if (rc == 0 && !st.st_ended && !st.st_err && st.st_left <= 0)
			rc = h2_put(&st, NULL, 0, 1);
		rp->rp_bytes = st.st_bytes;
		return rc != 0 || st.st_err || st.st_left > 0 ? -1 : 0;
	}
	pthread_mutex_lock(&h->h_lock);
	rc = h2s_await(s, is_sent);
	pthread_mutex_unlock(&h->h_lock);
	rp->rp_bytes = rc == 0 && body ? rs->rs_len : 0;
	return rc;
}

/* A piece of a thread's stream body: handed over, and waited for until
 * the driver has taken it (the last one: until it is out). */
static int
h2_put(struct stream *st, const char *p, size_t n, int last)
{
	struct h2s *s = stream_of(st->st_conn);
	struct h2 *h = s->s_h2;
	int fail = 1;

	if (st->st_left >= 0) {		/* no more than announced */
		if ((long long)n > st->st_left)
			n = (size_t)st->st_left;
		st->st_left -= (long long)n;
	}
	st->st_ended |= last;
	pthread_mutex_lock(&h->h_lock);
	if (!s->s_closed) {
		s->s_p = p;
		s->s_left = (long long)n;
		s->s_last = last;
		s->s_resume = 1;
		h2_wake(h);
		fail = h2s_await(s, is_taken);
	}
	pthread_mutex_unlock(&h->h_lock);
	if (fail) {
		st->st_err = 1;
		return -1;
	}
	st->st_bytes += (long long)n;
	return 0;
}

/* The access log line of a stream. */
static void
h2s_log(struct h2s *s, const struct reply *rp)
{
	const struct request *r = &s->s_req;
	struct access a = { .a_line = r->req_line,
	    .a_line_len = strlen(r->req_line), .a_referer = r->req_referer,
	    .a_ua = r->req_ua, .a_status = rp->rp_status,
	    .a_rejected = rp->rp_rejected, .a_bytes = rp->rp_bytes };

	log_access(&s->s_conn, &a);
}

static void *
h2s_thread(void *arg)
{
	struct h2s *s = arg;
	struct h2 *h = s->s_h2;
	char path[PATH_MAX_LEN];
	struct reply rp = { 0 };
	struct body body;
	int rc, cut;

	s->s_req.req_decoded = path;
	s->s_conn.c_body = &body;
	if (!s->s_rerun)
		log_accepted(&s->s_conn, &s->s_req);
	if ((rc = body_start(&s->s_conn, &s->s_req, &body, -1)) == 0)
		(void)route_serve(&s->s_conn, &s->s_req, &rp);
	else
		(void)response_error(&s->s_conn, &s->s_req, &rp, -rc);
	h2s_log(s, &rp);
	file_cache_flush();
	pthread_mutex_lock(&h->h_lock);
	h2s_waiting(s, 0);
	cut = s->s_cut;
	s->s_done = 1;		/* the driver may free s from now on */
	h2_wake(h);
	pthread_mutex_unlock(&h->h_lock);
	__atomic_sub_fetch(&threads, 1, __ATOMIC_ACQ_REL);
	if (cut == 1)		/* after: never over the cap meanwhile */
		__atomic_sub_fetch(&cutting, 1, __ATOMIC_ACQ_REL);
	return NULL;
}

/*
 * Gives back the window of s's body bytes its thread has read, and with
 * all those still buffered too.  The first s_free of them came before it
 * had a thread, and gave the connection's window back as they came.  On
 * the driver only, under h_lock where s has a thread.
 */
static void
h2s_ack(struct h2 *h, struct h2s *s, int all)
{
	size_t n = s->s_ack, early = s->s_free;

	if (all) {
		n += s->s_in_len - s->s_in_pos;
		s->s_in_pos = s->s_in_len = 0;
	}
	if (early > n)
		early = n;
	s->s_free -= early;
	h->h_free -= early;
	s->s_ack = 0;
	if (n > 0 && !s->s_closed)
		(void)nghttp2_session_consume_stream(h->h_ses, s->s_id, n);
	if (n > early)
		(void)nghttp2_session_consume_connection(h->h_ses, n - early);
}

/*
 * No one will read the rest of its body: what is buffered gives its window
 * back to the stream and the connection at once, and what still comes is
 * dropped as it comes (h2_data).  Without this, a client that goes on
 * sending a body no one wants would fill the connection's window for the
 * other streams.
 */
static void
h2s_drop_body(struct h2 *h, struct h2s *s)
{
	h2s_ack(h, s, 1);
	s->s_body = 0;
	free(s->s_in);
	s->s_in = NULL;
	s->s_in_cap = 0;
}

/* Answers a stream at once, without running it: a refusal. */
static void
h2s_refuse(struct h2s *s, int status)
{
	struct reply rp = { 0 };

	h2s_drop_body(s->s_h2, s);
	s->s_refusing = 1;
	(void)response_error(&s->s_conn, &s->s_req, &rp, status);
	h2s_log(s, &rp);
	if (!s->s_answered)
		(void)nghttp2_submit_rst_stream(s->s_h2->h_ses, NGHTTP2_FLAG_NONE,
		    s->s_id, NGHTTP2_INTERNAL_ERROR);
}

/* s waits for a thread: behind the others, or first again (front). */
static void
h2s_later(struct h2 *h, struct h2s *s, int front)
{
	s->s_queued = 2;
	if (front) {
		if ((s->s_queue = h->h_later) == NULL)
			h->h_ltail = &s->s_queue;
		h->h_later = s;
	} else {
		s->s_queue = NULL;
		*h->h_ltail = s;
		h->h_ltail = &s->s_queue;
	}
}

/* A body's whole window, once a thread reads it.  A stream opened
 * before the client had our SETTINGS (its first request, as a rule) is
 * cut to H2_FIRST by nghttp2 when they are acknowledged: opened again
 * then (h2_open_windows). */
static void
h2_open_window(struct h2 *h, struct h2s *s)
{
	if (s->s_body && s->s_thread && !s->s_closed)
		(void)nghttp2_session_set_local_window_size(h->h_ses,
		    NGHTTP2_FLAG_NONE, s->s_id, H2_IN);
}

static void
h2_open_windows(struct h2 *h)
{
	struct h2s *s;

	for (s = h->h_streams; s != NULL; s = s->s_next)
		h2_open_window(h, s);
}

/*
 * Starts s on a thread of its own.  The driver first hands the turn on,
 * as it will wait for the thread with the connection's other streams; a
 * 503 when it cannot, or no thread can be had.  Past the connection's
 * share (H2_THREADS) or its address's (peer_thread), s waits for one of
 * the connection's own threads to end: returns 1 (queued, first when
 * front).  Refused when the address's share is full and the connection
 * has no thread to wait for.
 */
static int
h2s_spawn(struct h2 *h, struct h2s *s, int front)
{
	const unsigned char *peer = server_peer(h->h_conn);
	int p[2];

	if (h->h_threads >= H2_THREADS) {
		h2s_later(h, s, front);
		return 1;
	}
	if (peer_thread(peer, 1) == -1) {
		if (h->h_threads > 0) {
			h2s_later(h, s, front);
			return 1;
		}
		h2s_refuse(s, 503);
		return 0;
	}
	if (server_yield() != 0 || (h->h_efd == -1 &&
	    (h->h_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1))
		goto refuse;
	if ((__atomic_add_fetch(&threads, 1, __ATOMIC_ACQ_REL) >
	    CONFIG_MAX_CONNECTIONS && !h2_cut()) ||
	    pipe2(p, O_CLOEXEC | O_NONBLOCK) == -1) {
		__atomic_sub_fetch(&threads, 1, __ATOMIC_ACQ_REL);
		goto refuse;
	}
	s->s_conn.c_hup = p[0];
	s->s_hupw = p[1];
	cond_init_mono(&s->s_cond);
	s->s_thread = 1;
	pthread_mutex_lock(&h->h_lock);
	h->h_threads++;
	pthread_mutex_unlock(&h->h_lock);
	if (server_thread(h2s_thread, s) == 0) {
		h2_open_window(h, s);
		return 0;
	}
	pthread_mutex_lock(&h->h_lock);
	h->h_threads--;
	pthread_mutex_unlock(&h->h_lock);
	pthread_cond_destroy(&s->s_cond);
	s->s_thread = 0;
	__atomic_sub_fetch(&threads, 1, __ATOMIC_ACQ_REL);
refuse:
	(void)peer_thread(peer, -1);
	h2s_refuse(s, 503);
	return 0;
}

/* Takes s out of a queue (pp, *tail its end): the run queue, or the one
 * of streams waiting for a thread.  Each holds only open streams, at
 * most HTTP2_MAX_STREAMS. */
static void
h2_unqueue(struct h2s **pp, struct h2s ***tail, struct h2s *s)
{
	for (; *pp != NULL; pp = &(*pp)->s_queue)
		if (*pp == s) {
			if ((*pp = s->s_queue) == NULL)
				*tail = pp;
			s->s_queued = 0;
			return;
		}
}

/* Streams that waited for a thread of their own get one, in order, as
 * threads end. */
static void
h2_later(struct h2 *h)
{
	struct h2s *s;

	while (h->h_threads < H2_THREADS && (s = h->h_later) != NULL) {
		if ((h->h_later = s->s_queue) == NULL)
			h->h_ltail = &h->h_later;
		s->s_queued = 0;
		if (s->s_closed)	/* reset while it waited */
			h2s_free(s);
		else if (!s->s_refused && h2s_spawn(h, s, 1))
			break;		/* its address has its share */
	}
}

/* What threads posted, under h_lock: responses to submit, pieces to
 * send, body bytes read, threads ended. */
static void
h2_posts(struct h2 *h)
{
	static const nghttp2_nv cont = NV(":status", "100", 3);
	struct h2s *s, *next;

	pthread_mutex_lock(&h->h_lock);
	for (s = h->h_streams; s != NULL; s = next) {
		next = s->s_next;
		if (!s->s_thread)
			continue;
		if (s->s_interim) {
			s->s_interim = 0;
			(void)nghttp2_submit_headers(h->h_ses, NGHTTP2_FLAG_NONE,
			    s->s_id, NULL, &cont, 1, NULL);
		}
		if (s->s_rs != NULL) {
			if (s->s_data)
				h2s_borrow(s, s->s_rs);
			if (h2_submit(h, s, s->s_rs, s->s_data) == -1)
				(void)nghttp2_submit_rst_stream(h->h_ses,
				    NGHTTP2_FLAG_NONE, s->s_id,
				    NGHTTP2_INTERNAL_ERROR);
			s->s_rs = NULL;
			pthread_cond_signal(&s->s_cond);
		}
		if (s->s_resume) {
			s->s_resume = 0;
			(void)nghttp2_session_resume_data(h->h_ses, s->s_id);
		}
		if (s->s_ack > 0)
			h2s_ack(h, s, 0);
		if (s->s_done != 1)
			continue;
		s->s_done = 2;		/* its thread is gone */
		h->h_threads--;
		(void)peer_thread(server_peer(h->h_conn), -1);
		h2s_hangup(s);
		h2s_drop_body(h, s);
		if (s->s_closed)
			h2s_free(s);
		else if (!s->s_sent)	/* it stopped short */
			(void)nghttp2_submit_rst_stream(h->h_ses,
			    NGHTTP2_FLAG_NONE, s->s_id, NGHTTP2_INTERNAL_ERROR);
	}
	pthread_mutex_unlock(&h->h_lock);
	h2_later(h);
}

/* --- the stream's transport: its request body --------------------------- */

static ssize_t
h2s_read(struct conn *c, void *buf, size_t n)
{
	struct h2s *s = stream_of(c);
	struct h2 *h = s->s_h2;
	ssize_t r = -1;

	pthread_mutex_lock(&h->h_lock);
	if (s->s_poked) {	/* the poke is read: h2s_poke */
		char b;

		s->s_poked = read(c->c_hup, &b, 1) != 1;
	}
	if (s->s_in_pos < s->s_in_len) {
		if (n > s->s_in_len - s->s_in_pos)
			n = s->s_in_len - s->s_in_pos;
		memcpy(buf, s->s_in + s->s_in_pos, n);
		s->s_in_pos += n;
		s->s_ack += n;		/* the driver opens the window again */
		h2_wake(h);
		r = (ssize_t)n;
	} else if (s->s_in_end)
		r = 0;
	else if (s->s_closed || s->s_in_gone)
		errno = ECONNRESET;
	else {
		errno = EAGAIN;
		/* a program's pump polls c_hup for more */
		s->s_poke = c->c_body != NULL && c->c_body->b_nowait;
	}
	pthread_mutex_unlock(&h->h_lock);
	return r;
}

static int
h2s_ready_locked(const struct h2s *s)
{
	return s->s_in_pos < s->s_in_len || s->s_in_end || s->s_closed ||
	    s->s_in_gone;
}

static int
h2s_pending(struct conn *c)
{
	struct h2s *s = stream_of(c);
	int r;

	pthread_mutex_lock(&s->s_h2->h_lock);
	r = h2s_ready_locked(s);
	pthread_mutex_unlock(&s->s_h2->h_lock);
	return r;
}

static int
h2s_wait(struct conn *c, short events, int ms)
{
	struct h2s *s = stream_of(c);
	struct h2 *h = s->s_h2;
	struct timespec t;
	int r;

	if (!(events & POLLIN))
		return -1;
	abstime(&t, ms);
	pthread_mutex_lock(&h->h_lock);
	h2s_waiting(s, 2);	/* for the body */
	while (!h2s_ready_locked(s) && !s->s_cut &&
	    pthread_cond_timedwait(&s->s_cond, &h->h_lock, &t) == 0)
		;
	h2s_waiting(s, 0);
	r = s->s_cut ? -1 : h2s_ready_locked(s);
	pthread_mutex_unlock(&h->h_lock);
	return r;
}

const unsigned char *
h2_stream_peer(struct conn *c)
{
	return server_peer(stream_of(c)->s_h2->h_conn);
}

void
h2_stream_poke(struct conn *c)
{
	struct h2s *s = stream_of(c);

	pthread_mutex_lock(&s->s_h2->h_lock);
	s->s_poke = 1;
	h2s_poke(s);
	pthread_mutex_unlock(&s->s_h2->h_lock);
}

void
h2_stream_cut(struct conn *c)
{
	struct h2s *s = stream_of(c);

	pthread_mutex_lock(&s->s_h2->h_lock);
	pthread_mutex_lock(&waits_lock);
	h2s_unlist(s);
	if (!s->s_cut) {
		/* 2: not one of h2_cut's, which start a thread over the cap
		 * (cutting): no thread waits for this one's end */
		s->s_cut = 2;
		pthread_cond_signal(&s->s_cond);
	}
	pthread_mutex_unlock(&waits_lock);
	pthread_mutex_unlock(&s->s_h2->h_lock);
}

/* Stopping, the socket shut for reading: a request body still to come
 * never will.  Reading past what came fails as for a client gone (an
 * upload ends, its temporary file removed; a program's pump is woken to
 * see it), while a stream that has its whole body may still answer. */
static void
h2_end_bodies(struct h2 *h)
{
	struct h2s *s;

	pthread_mutex_lock(&h->h_lock);
	for (s = h->h_streams; s != NULL; s = s->s_next)
		if (s->s_body && !s->s_in_end) {
			s->s_in_gone = 1;
			if (s->s_thread)
				pthread_cond_signal(&s->s_cond);
			s->s_poke = 1;
			h2s_poke(s);
		}
	pthread_mutex_unlock(&h->h_lock);
}

int
h2_stream_wait(struct conn *c, int on)
{
	struct h2s *s = stream_of(c);
	int r;

	pthread_mutex_lock(&s->s_h2->h_lock);
	h2s_waiting(s, on ? 2 : 0);	/* for the body */
	r = s->s_cut ? -1 : 0;
	pthread_mutex_unlock(&s->s_h2->h_lock);
	return r;
}

/* Nothing writes a stream but its protocol. */
static int
h2s_writev(struct conn *c, struct iovec *iov, int n, int flags)
{
	(void)c; (void)iov; (void)n; (void)flags;
	errno = EPIPE;
	return -1;
}

static void
h2s_close(struct conn *c, int drain)
{
	(void)c;
	(void)drain;
}

const struct transport h2s_transport = {
	.t_read = h2s_read,
	.t_writev = h2s_writev,
	.t_sendfile = NULL,
	.t_pending = h2s_pending,
	.t_wait = h2s_wait,
	.t_close = h2s_close,
};

/* --- nghttp2's callbacks: what the client sent ---------------------------- */

/*
 * Frames that make us answer or work without a request being served:
 * PING, SETTINGS, RST_STREAM ("rapid reset", CVE-2023-44487), PRIORITY
 * and empty DATA, frames that make us reset a stream (h2_sent), and
 * header lists past the limit (431s, h2_header).
 * HTTP2_MAX_CONTROL a second; past that, GOAWAY.  Returns 1 when this one
 * ended the session.
 */
static int
h2_control(struct h2 *h)
{
	long long now = now_ms();

	if (now - h->h_ctrl_at >= 1000) {
		h->h_ctrl_at = now;
		h->h_ctrl = CONFIG_HTTP2_MAX_CONTROL;
	}
	if (--h->h_ctrl >= 0 || h->h_goaway)
		return 0;
	log_warn("%s: HTTP/2 control frame flood, closing", h->h_conn->c_addr);
	(void)nghttp2_session_terminate_session(h->h_ses,
	    NGHTTP2_ENHANCE_YOUR_CALM);
	h->h_goaway = 1;
	return 1;
}

/*
 * A request's HEADERS on a stream below one already opened, which nghttp2
 * no longer knows: a stream that was never opened (RFC 9113 5.1.1), or
 * one long closed.  Either is a connection error.
 */
static int
h2_begin_frame(nghttp2_session *ses, const nghttp2_frame_hd *hd, void *arg)
{
	struct h2 *h = arg;

	if (hd->type != NGHTTP2_HEADERS || h->h_goaway)
		return 0;
	if (hd->stream_id > h->h_last_id) {
		h->h_last_id = hd->stream_id;
		return 0;
	}
	if (nghttp2_session_find_stream(ses, hd->stream_id) == NULL) {
		(void)nghttp2_session_terminate_session(ses,
		    NGHTTP2_PROTOCOL_ERROR);
		h->h_goaway = 1;
	}
	return 0;
}

static int
h2_begin(nghttp2_session *ses, const nghttp2_frame *f, void *arg)
{
	struct h2s *s;

	if (f->hd.type != NGHTTP2_HEADERS ||
	    f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	if ((s = h2s_new(arg, f->hd.stream_id)) == NULL)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	(void)nghttp2_session_set_stream_user_data(ses, f->hd.stream_id, s);
	return 0;
}

/*
 * One field of a header block.  Past HTTP2_MAX_HEADER_LIST the stream is
 * answered 431 (h2s_field); past twice that, counting trailers, which are
 * read and dropped, the block is a decompression bomb (a byte of HPACK
 * can name a 4 KB field of the dynamic table, and nghttp2 checks every
 * byte of every value it decodes, on the turn): the connection ends with
 * GOAWAY (ENHANCE_YOUR_CALM), and nothing more of the block is decoded.
 * The same bomb spread over streams, each under twice the limit, is
 * bounded by counting each list past the limit as a control frame.
 * (Fields nghttp2 finds invalid never come here: it resets their stream
 * and skips the rest of the block unchecked.  An on_invalid_header
 * callback would have to count them too.)
 */
static int
h2_header(nghttp2_session *ses, const nghttp2_frame *f, const uint8_t *name,
    size_t nlen, const uint8_t *value, size_t vlen, uint8_t flags, void *arg)
{
	struct h2 *h = arg;
	struct h2s *s;
	size_t before;

	(void)flags;
	if (f->hd.type != NGHTTP2_HEADERS || (s =
	    nghttp2_session_get_stream_user_data(ses, f->hd.stream_id)) == NULL)
		return 0;
	before = s->s_hlist;
	if (f->headers.cat == NGHTTP2_HCAT_REQUEST)
		h2s_field(s, (const char *)name, nlen, (const char *)value, vlen);
	else
		s->s_hlist += nlen + vlen + 32;
	if (before <= CONFIG_HTTP2_MAX_HEADER_LIST &&
	    s->s_hlist > CONFIG_HTTP2_MAX_HEADER_LIST && h2_control(h))
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	if (s->s_hlist <= 2 * (size_t)CONFIG_HTTP2_MAX_HEADER_LIST)
		return 0;
	log_warn("%s: HTTP/2 header list past twice the limit, closing",
	    h->h_conn->c_addr);
	(void)nghttp2_session_terminate_session(ses, NGHTTP2_ENHANCE_YOUR_CALM);
	h->h_goaway = 1;
	return NGHTTP2_ERR_CALLBACK_FAILURE;
}

/* The request body has ended. */
static void
h2s_input_end(struct h2 *h, struct h2s *s)
{
	pthread_mutex_lock(&h->h_lock);
	s->s_in_end = 1;
	if (s->s_thread) {
		pthread_cond_signal(&s->s_cond);
		h2s_poke(s);
	}
	pthread_mutex_unlock(&h->h_lock);
}

static int
h2_frame(nghttp2_session *ses, const nghttp2_frame *f, void *arg)
{
	struct h2 *h = arg;
	struct h2s *s = nghttp2_session_get_stream_user_data(ses, f->hd.stream_id);
	int end = (f->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;

	h->h_framed = 1;	/* timed as it parks: no clock read a frame */
	switch (f->hd.type) {
	case NGHTTP2_HEADERS:
		if (s != NULL && f->headers.cat == NGHTTP2_HCAT_REQUEST)
			h2s_ready(h, s, !end);
		else if (s != NULL && end)	/* trailers */
			h2s_input_end(h, s);
		break;
	case NGHTTP2_DATA:
		if (s != NULL && end)
			h2s_input_end(h, s);
		else if (f->hd.length == 0 && !end)
			(void)h2_control(h);
		break;
	case NGHTTP2_PING:
	case NGHTTP2_SETTINGS:
		if (f->hd.flags & NGHTTP2_FLAG_ACK) {
			h2_open_windows(h);
			break;
		}
		/* FALLTHROUGH */
	case NGHTTP2_RST_STREAM:
	case NGHTTP2_PRIORITY:
		(void)h2_control(h);
		break;
	}
	return 0;
}

/*
 * A frame sent.  A RST_STREAM that nghttp2 sent of itself (an invalid
 * field, DATA past the content-length, a stream past the concurrency
 * limit: any code but the INTERNAL_ERROR of our own) is a reset the client
 * made us send ("MadeYouReset", CVE-2025-8671): counted as one it sent
 * itself, or the rapid-reset bound would not hold.  A stream refused as
 * it waited counts as one in H2_REFUSALS: a client that sends it again,
 * as it may, is no flood, but one that opens streams only to have them
 * refused (a byte of body each, over 300,000 a second) is.
 */
static int
h2_sent(nghttp2_session *ses, const nghttp2_frame *f, void *arg)
{
	struct h2s *s;

	if (f->hd.type != NGHTTP2_RST_STREAM ||
	    f->rst_stream.error_code == NGHTTP2_INTERNAL_ERROR)
		return 0;
	/* a stream refused as it waited (h2s_buffer) never ran, and cost
	 * its client the body it sent: one it may send again at once */
	s = nghttp2_session_get_stream_user_data(ses, f->hd.stream_id);
	if (s == NULL || !s->s_refused ||
	    ++((struct h2 *)arg)->h_refused % H2_REFUSALS == 0)
		(void)h2_control(arg);
	return 0;
}

/* Resets s: it never runs, if it has not yet, and its body is dropped. */
static void
h2s_reset(struct h2 *h, struct h2s *s, uint32_t code)
{
	s->s_refused = 1;
	h2s_drop_body(h, s);
	(void)nghttp2_submit_rst_stream(h->h_ses, NGHTTP2_FLAG_NONE, s->s_id,
	    code);
}

/*
 * Makes s_in hold need bytes: it starts small and doubles, up to H2_IN,
 * so that a stream sent a byte of its body takes a kilobyte, not the
 * whole window (thousands of them waiting for threads took 64 KiB of
 * memory each).  Under h_lock: its thread reads s_in under it.  0, or
 * -1 when out of memory or past the window.
 */
static int
h2s_room(struct h2s *s, size_t need)
{
	size_t cap = s->s_in_cap ? s->s_in_cap : H2_IN_FIRST;
	char *in;

	if (need <= s->s_in_cap)
		return 0;
	if (need > H2_IN)
		return -1;
	while (cap < need)
		cap *= 2;
	if (cap > H2_IN)
		cap = H2_IN;
	if ((in = realloc(s->s_in, cap)) == NULL)
		return -1;
	s->s_in = in;
	s->s_in_cap = cap;
	return 0;
}

/*
 * Keeps n body bytes for s's thread, within its window (nghttp2 checks
 * it), under h_lock.  A stream without a thread yet gives the
 * connection's window back at once: else streams that wait for a thread
 * could hold all of it, and those running would wait for bytes that
 * cannot come.  Together they hold at most H2_WAITING; one past that is
 * refused, which a client may retry, as it never ran.  0: not kept.
 */
static int
h2s_buffer(struct h2 *h, struct h2s *s, const uint8_t *p, size_t n)
{
	int early = !s->s_thread;

	if (early && h->h_free + n > H2_WAITING) {
		h2s_reset(h, s, NGHTTP2_REFUSED_STREAM);
		return 0;
	}
	if (s->s_in_pos == s->s_in_len)
		s->s_in_pos = s->s_in_len = 0;
	else if (s->s_in_len + n > s->s_in_cap) {
		memmove(s->s_in, s->s_in + s->s_in_pos,
		    s->s_in_len - s->s_in_pos);
		s->s_in_len -= s->s_in_pos;
		s->s_in_pos = 0;
	}
	if (h2s_room(s, s->s_in_len + n) != 0) {
		/* out of memory: better no body than a cut one */
		h2s_reset(h, s, NGHTTP2_INTERNAL_ERROR);
		return 0;
	}
	memcpy(s->s_in + s->s_in_len, p, n);
	s->s_in_len += n;
	if (early) {
		s->s_free += n;
		h->h_free += n;
		(void)nghttp2_session_consume_connection(h->h_ses, n);
	} else {
		pthread_cond_signal(&s->s_cond);
		h2s_poke(s);
	}
	return 1;
}

/* Request body bytes: kept for the stream's thread; those no one will
 * read are acknowledged at once. */
static int
h2_data(nghttp2_session *ses, uint8_t flags, int32_t id, const uint8_t *p,
    size_t n, void *arg)
{
	struct h2 *h = arg;
	struct h2s *s = nghttp2_session_get_stream_user_data(ses, id);
	int kept = 0;

	(void)flags;
	if (s != NULL && s->s_body) {
		h->h_moved++;	/* a body coming is progress */
		pthread_mutex_lock(&h->h_lock);
		if (s->s_done == 0)
			kept = h2s_buffer(h, s, p, n);
		pthread_mutex_unlock(&h->h_lock);
	}
	if (!kept)
		(void)nghttp2_session_consume(ses, id, n);
	return 0;
}

static int
h2_stream_close(nghttp2_session *ses, int32_t id, uint32_t err, void *arg)
{
	struct h2 *h = arg;
	struct h2s *s = nghttp2_session_get_stream_user_data(ses, id);
	int gone;

	(void)err;
	if (s == NULL)
		return 0;
	pthread_mutex_lock(&h->h_lock);
	s->s_closed = 1;
	/* the window its unread body took goes back to the connection */
	h2s_ack(h, s, 1);
	if (s->s_thread)
		pthread_cond_signal(&s->s_cond);
	/* one waiting for a thread, or to run, leaves its queue now: else
	 * a client that opens and resets streams while 8 run keeps each
	 * one's memory */
	if (s->s_queued == 2)
		h2_unqueue(&h->h_later, &h->h_ltail, s);
	else if (s->s_queued == 1)
		h2_unqueue(&h->h_head, &h->h_tail, s);
	/* a thread still running frees nothing: h2_posts does, after it */
	gone = !s->s_queued && (!s->s_thread || s->s_done == 2);
	h2s_hangup(s);
	pthread_mutex_unlock(&h->h_lock);
	if (!s->s_thread)
		h2s_release(s);
	if (gone)
		h2s_free(s);
	return 0;
}

/* --- the driver ---------------------------------------------------------- */

/* Runs a complete request: here when it is quick, else on a thread. */
static void
h2s_start(struct h2 *h, struct h2s *s)
{
	char path[PATH_MAX_LEN];
	struct request *r = &s->s_req;
	struct reply rp = { 0 };
	enum route rt = ROUTE_FILE;
	int redirect = ENABLE_TLS_REDIRECT && !conn_secure(&s->s_conn);

	if (s->s_status == H2_OVER) {	/* never ran: may come again;
					 * no progress (h_moved) either */
		h2s_reset(h, s, NGHTTP2_REFUSED_STREAM);
		return;
	}
	s->s_conn.c_fresh = h->h_conn->c_fresh;
	h->h_conn->c_fresh = 0;
	h->h_moved++;
	r->req_decoded = path;
	if (s->s_status != 0) {
		h2s_refuse(s, s->s_status);
		return;
	}
	if (!redirect) {
		rt = route_request(r);
		if (s->s_body || rt == ROUTE_CGI || rt == ROUTE_PUT ||
		    rt == ROUTE_DELETE) {
			(void)h2s_spawn(h, s, 0);
			return;
		}
	}
	log_accepted(&s->s_conn, r);
	(void)(redirect ? route_serve(&s->s_conn, r, &rp) :
	    route_serve_as(&s->s_conn, r, &rp, rt));
	if (s->s_rerun && !s->s_answered) {
		(void)h2s_spawn(h, s, 0);
		return;
	}
	if (s->s_body)		/* answered here (a redirect): unread */
		h2s_drop_body(h, s);
	h2s_log(s, &rp);
	if (!s->s_answered)
		(void)nghttp2_submit_rst_stream(h->h_ses, NGHTTP2_FLAG_NONE,
		    s->s_id, NGHTTP2_INTERNAL_ERROR);
}

/* The requests that came complete, in order. */
static void
h2_run(struct h2 *h)
{
	struct h2s *s;

	while ((s = h->h_head) != NULL) {
		if ((h->h_head = s->s_queue) == NULL)
			h->h_tail = &h->h_head;
		s->s_queued = 0;
		if (s->s_closed) {	/* reset before it ran */
			h2s_free(s);
			continue;
		}
		if (!s->s_refused)	/* else its RST_STREAM is on the way */
			h2s_start(h, s);
		/* fairness, as http1.c's: a client that sends streams
		 * without pause gets REQ_BUDGET on the turn, then this
		 * thread goes on with it alone */
		if (++h->h_ran >= REQ_BUDGET) {
			h->h_ran = 0;
			(void)server_yield();
		}
	}
}

/* Bytes from the client, into nghttp2.  A broken preface, a flood or
 * no memory ends the session with GOAWAY. */
static void
h2_feed(struct h2 *h, const char *p, size_t n)
{
	ssize_t r = nghttp2_session_mem_recv(h->h_ses, (const uint8_t *)p, n);

	if (r >= 0 || h->h_goaway)
		return;
	(void)nghttp2_session_terminate_session(h->h_ses, r == NGHTTP2_ERR_FLOODED ?
	    NGHTTP2_ENHANCE_YOUR_CALM : NGHTTP2_PROTOCOL_ERROR);
	h->h_goaway = 1;
}

static struct h2 *
h2_start(struct conn *c)
{
	nghttp2_settings_entry iv[] = {
		{ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, CONFIG_HTTP2_MAX_STREAMS },
		{ NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, CONFIG_HTTP2_MAX_HEADER_LIST },
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_FIRST },
	};
	struct h2 *h = calloc(1, sizeof(*h));

	if (h == NULL)
		return NULL;
	h->h_conn = c;
	h->h_efd = -1;
	h->h_frame_at = h->h_progress = now_ms();
	h->h_tail = &h->h_head;
	h->h_ltail = &h->h_later;
	if (nghttp2_session_server_new2(&h->h_ses, callbacks, h, options) != 0) {
		free(h);
		return NULL;
	}
	pthread_mutex_init(&h->h_lock, NULL);
	(void)nghttp2_submit_settings(h->h_ses, NGHTTP2_FLAG_NONE, iv,
	    sizeof(iv) / sizeof(iv[0]));
	c->c_h2 = h;
	return h;
}

/* No thread runs any of its streams any more: lets go of everything. */
static void
h2_free(struct conn *c)
{
	struct h2 *h = c->c_h2;

	while (h->h_streams != NULL)
		h2s_free(h->h_streams);
	nghttp2_session_del(h->h_ses);
	if (h->h_efd != -1)
		close(h->h_efd);
	pthread_mutex_destroy(&h->h_lock);
	free(h);
	c->c_h2 = NULL;
}

/* The session is over: every stream ends, and its thread is told. */
static void
h2_kill(struct h2 *h)
{
	struct h2s *s;

	pthread_mutex_lock(&h->h_lock);
	for (s = h->h_streams; s != NULL; s = s->s_next) {
		s->s_closed = 1;
		if (s->s_thread)
			pthread_cond_signal(&s->s_cond);
		h2s_hangup(s);
	}
	pthread_mutex_unlock(&h->h_lock);
}

/* The connection ends: its streams' threads are told, and waited for. */
static void
h2_end(struct conn *c)
{
	struct h2 *h = c->c_h2;
	struct pollfd p = { .fd = h->h_efd, .events = POLLIN };
	uint64_t v;

	for (;;) {
		h2_kill(h);
		h2_posts(h);	/* reaps the threads that ended */
		if (h->h_threads == 0)
			break;
		(void)poll(&p, 1, 100);
		(void)!read(h->h_efd, &v, sizeof(v));
	}
	h2_free(c);
}

/* Notes when h_moved moved, as of now. */
static void
h2_seen(struct h2 *h)
{
	if (h->h_moved != h->h_seen) {
		h->h_seen = h->h_moved;
		h->h_progress = now_ms();
	}
}

/*
 * Waits for input, or for a stream's thread.  The driver has handed the
 * turn on already (h2s_spawn).  A thread's every wait is bounded
 * (CGI_TIMEOUT, REQUEST_TIMEOUT for a body, HTTP2_IDLE_TIMEOUT for a
 * body that does not move), and once none runs the connection is parked,
 * where the sweep applies HTTP2_IDLE_TIMEOUT.  A stream that waits for
 * its address's share (peer_thread) is looked at again every
 * H2_RETRY_MS: the threads of the address's other connections end
 * without a word to this one.  While every thread waits for the client
 * (slow bodies, unread replies), the connection waits for its client as
 * an HTTP/1 one in server_wait does, and can be cut for a newcomer as
 * that one can; and it ends at HTTP2_IDLE_TIMEOUT from its last progress
 * (h2_seen), as a parked one does: -1 then.
 */
static int
h2_wait(struct h2 *h, struct conn *c, int eof)
{
	struct pollfd p[2] = {
		{ .fd = eof ? -1 : conn_socket(c), .events = POLLIN },
		{ .fd = h->h_efd, .events = POLLIN },
	};
	uint64_t v;
	long long left, idle = CONFIG_HTTP2_IDLE_TIMEOUT * 1000LL;
	int r, client, ms;

	if (!eof && conn_pending(c))
		return 1;
	pthread_mutex_lock(&h->h_lock);
	client = !eof && h->h_threads > 0 && h->h_waiting == h->h_threads;
	/* a wait for a body has REQUEST_TIMEOUT of its own */
	if (h->h_bodywait > 0 && CONFIG_REQUEST_TIMEOUT * 1000LL > idle)
		idle = CONFIG_REQUEST_TIMEOUT * 1000LL;
	pthread_mutex_unlock(&h->h_lock);
	ms = h->h_later != NULL && h->h_threads < H2_THREADS ? H2_RETRY_MS : -1;
	if (client && !h->h_goaway) {
		/* HTTP2_IDLE_TIMEOUT from the last progress, as parked: each
		 * thread's own wait starts afresh, and would let the streams
		 * queued behind them wait as long again, wave after wave.
		 * The threads' own time-outs come first (H2_GRACE_MS): a
		 * stream of theirs is reset, as it was */
		h2_seen(h);
		if ((left = h->h_progress + idle + H2_GRACE_MS - now_ms()) <=
		    0) {
			(void)nghttp2_session_terminate_session(h->h_ses,
			    NGHTTP2_NO_ERROR);
			h->h_goaway = 1;	/* sent, then the end */
			return 1;
		}
		if (ms == -1 || left < ms)
			ms = (int)left;
	}
	/* the same wait: nothing from the client, nothing moved */
	if (client && server_waiting(c, h->h_again && h->h_marked ==
	    h->h_moved ? 2 : 1) == -1)
		return -1;
	h->h_marked = h->h_moved;
	r = poll(p, 2, ms);
	if (r > 0 && (p[1].revents & POLLIN))
		(void)!read(h->h_efd, &v, sizeof(v));
	/* nothing from the client: a wait marked next goes on from this
	 * one, not cut last for looking again every H2_RETRY_MS */
	h->h_again = client && (r == 0 || p[0].revents == 0);
	if (client && server_waiting(c, 0) == -1)
		return -1;
	return r < 0 ? 0 : r;
}

/*
 * The connection parks.  With a stream still open (an answer the client's
 * window holds back, a request not yet whole), the sweep ends it at
 * HTTP2_IDLE_TIMEOUT from its last progress (a stream begun, DATA sent,
 * a body's DATA come): frames that move nothing, PINGs, do not keep it.
 * Else it is idle, and the sweep counts from its last whole frame, or
 * from its streams' end: bytes that make no frame (a frame's byte each
 * second, TLS alerts) kept it for good, as each parking counted anew.
 */
static void
h2_due(struct h2 *h, struct conn *c)
{
	h2_seen(h);
	if (h->h_streams == NULL) {
		h->h_progress = now_ms();
		/* the frames came in the pass this parking ends; idle
		 * from now too after streams, not from a frame before */
		if (h->h_framed || h->h_parked_busy)
			h->h_frame_at = h->h_progress;
	}
	h->h_framed = 0;
	h->h_parked_busy = h->h_streams != NULL;
	c->c_due = (h->h_streams == NULL ? h->h_frame_at : h->h_progress) +
	    CONFIG_HTTP2_IDLE_TIMEOUT * 1000LL;
}

/*
 * p_serve: drives the connection while it has input or a stream on a
 * thread.  Returns 1 to park it (nothing to read, no thread running),
 * 0 when it was closed.
 */
static int
h2_serve(struct conn *c)
{
	char out[H2_OUT];
	struct h2 *h = c->c_h2;
	int eof = 0;
	ssize_t n;

	if (h == NULL && (h = h2_start(c)) == NULL) {
		conn_close(c, 0);
		return 0;
	}
	h->h_out = out;
	h->h_outlen = 0;
	h->h_ran = 0;
	for (;;) {
		if (c->c_len > 0)
			h2_feed(h, c->c_buf, c->c_len);
		c->c_len = 0;
		h2_run(h);
		if (h->h_efd != -1)
			h2_posts(h);
		if (server_stopping() && !h->h_goaway) {
			/* SIGTERM: no new streams; those open may finish */
			(void)nghttp2_submit_goaway(h->h_ses, NGHTTP2_FLAG_NONE,
			    nghttp2_session_get_last_proc_stream_id(h->h_ses),
			    NGHTTP2_NO_ERROR, NULL, 0);
			h->h_goaway = 1;
		}
		h->h_round = 0;
		h->h_more = 0;
		if (nghttp2_session_send(h->h_ses) != 0 || h2_flush(h, 0) == -1)
			break;
		if (!nghttp2_session_want_read(h->h_ses)) {
			/* GOAWAY said: what still runs can send nothing */
			if (h->h_threads > 0)
				h2_kill(h);
			else if (!nghttp2_session_want_write(h->h_ses))
				break;
		}
		/* stopping, its reads over: done once the threads are and
		 * all is sent (a stream without END_STREAM keeps nghttp2
		 * wanting to read) */
		if (eof && h->h_threads == 0 &&
		    !nghttp2_session_want_write(h->h_ses))
			break;
		if (!eof) {
			if ((n = conn_read(c, c->c_buf, HEAD_MAX)) > 0) {
				c->c_len = (size_t)n;
				/* a client whose frames never make a stream
				 * run (opened and reset) counts by its reads */
				if (++h->h_ran >= REQ_BUDGET) {
					h->h_ran = 0;
					(void)server_yield();
				}
				continue;
			}
			if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
				/* gone; or, stopping, our own shutdown: what
				 * runs on threads may still finish */
				if (!server_stopping() || h->h_threads == 0)
					break;
				eof = 1;
				h2_end_bodies(h);
			} else if (h->h_threads == 0 && !h->h_more) {
				__atomic_store_n(&c->c_more, 0, __ATOMIC_RELAXED);
				h2_due(h, c);
				h->h_out = NULL;
				h->h_again = 0;	/* a wait after this is new */
				return 1;
			}
		}
		if (h->h_more)		/* a long send: off the turn, as plain's */
			(void)server_yield();
		else if (h2_wait(h, c, eof) == -1) {
			eof = 1;	/* cut for a newcomer: shut down */
			break;
		}
	}
	h->h_out = NULL;
	eof = eof || h->h_fail;
	h2_end(c);
	/* what the client sent after our GOAWAY must not turn our last
	 * frames into a reset: drained a moment, unless it is gone */
	conn_close(c, !eof);
	return 0;
}

void
h2_close(struct conn *c)
{
	struct h2 *h = c->c_h2;
	const uint8_t *p;
	ssize_t n;

	if (h == NULL)
		return;
	if (!h->h_goaway)
		(void)nghttp2_submit_goaway(h->h_ses, NGHTTP2_FLAG_NONE,
		    nghttp2_session_get_last_proc_stream_id(h->h_ses),
		    NGHTTP2_NO_ERROR, NULL, 0);
	/* best effort, never waiting: the client may be gone */
	while ((n = nghttp2_session_mem_send(h->h_ses, &p)) > 0)
		if (conn_writev(c, &(struct iovec){ .iov_base = (void *)p,
		    .iov_len = (size_t)n }, 1, IO_NOWAIT) == -1)
			break;
	h2_free(c);
}

/* --- how a connection comes to HTTP/2 ------------------------------------- */

int
h2_preface(const char *p, size_t n)
{
	static const char pri[] = NGHTTP2_CLIENT_MAGIC;

	return n >= 4 && memcmp(p, pri, n < sizeof(pri) - 1 ? n :
	    sizeof(pri) - 1) == 0;
}

/* A field the upgrade does not carry over into HTTP/2. */
static int
upgrade_only(const struct header *f)
{
	static const char *const names[] = { "Connection", "Upgrade",
	    "HTTP2-Settings", "Keep-Alive", "TE", "Transfer-Encoding",
	    "Proxy-Connection" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == f->h_name_len &&
		    strncasecmp(f->h_name, names[i], f->h_name_len) == 0)
			return 1;
	return 0;
}

/* HTTP2-Settings, base64url (RFC 7540 3.2.1) into buf.  Its length, or -1. */
static ssize_t
settings_decode(const char *v, char *buf, size_t n)
{
	char b64[512];
	size_t i;

	for (i = 0; v[i] != '\0'; i++) {
		if (i + 1 >= sizeof(b64))
			return -1;
		b64[i] = v[i] == '-' ? '+' : v[i] == '_' ? '/' : v[i];
	}
	b64[i] = '\0';
	return base64_decode(b64, buf, n);
}

/* Would these SETTINGS be a protocol error (RFC 9113 6.5.2)?  Checked
 * before the 101: a client whose upgrade cannot work is served HTTP/1.1. */
static int
settings_bad(const unsigned char *p, size_t n)
{
	uint32_t v;

	if (n % 6 != 0)
		return 1;
	for (; n > 0; p += 6, n -= 6) {
		v = (uint32_t)p[2] << 24 | (uint32_t)p[3] << 16 |
		    (uint32_t)p[4] << 8 | p[5];
		switch (p[0] << 8 | p[1]) {
		case NGHTTP2_SETTINGS_ENABLE_PUSH:
			if (v > 1)
				return 1;
			break;
		case NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE:
			if (v > (uint32_t)NGHTTP2_MAX_WINDOW_SIZE)
				return 1;
			break;
		case NGHTTP2_SETTINGS_MAX_FRAME_SIZE:
			if (v < 16384 ||	/* RFC 9113 6.5.2 */
			    v > 16777215)
				return 1;
			break;
		}
	}
	return 0;
}

/*
 * Are Upgrade and HTTP2-Settings both named in Connection, as a client
 * sends them (RFC 9110 7.8, RFC 7540 3.2.1)?  Without, they came through
 * a proxy that passed them on, with a Connection of its own ("upgrade"
 * for WebSockets): a 101 would open an HTTP/2 tunnel past its rules.
 */
static int
upgrade_named(const struct request *r)
{
	const char *v;
	struct list_item li;
	int i, got = 0;

	for (i = 0; i < r->req_nhdrs; i++) {
		if (r->req_hdrs[i].h_name_len != 10 ||
		    strncasecmp(r->req_hdrs[i].h_name, "Connection", 10) != 0)
			continue;
		for (v = r->req_hdrs[i].h_value; list_next(&v, &li); )
			if (li.li_len == 7 &&
			    strncasecmp(li.li_name, "upgrade", 7) == 0)
				got |= 1;
			else if (li.li_len == 14 &&
			    strncasecmp(li.li_name, "http2-settings", 14) == 0)
				got |= 2;
	}
	return got == 3;
}

/* The upgraded request's target as :path, with its query. */
static void
h2s_path(struct h2s *s, const struct request *r)
{
	size_t n = r->req_target_len;
	char *p;

	/* "http://h?q" left req_target "/", its query apart */
	if (r->req_query == NULL ||
	    r->req_query == r->req_target + r->req_path_len + 1) {
		h2s_field(s, ":path", 5, r->req_target, n);
		return;
	}
	n += 1 + r->req_query_len;
	if ((p = h2s_alloc(s, n)) == NULL) {
		s->s_status = 500;
		return;
	}
	memcpy(p, r->req_target, r->req_target_len);
	p[r->req_target_len] = '?';
	memcpy(p + r->req_target_len + 1, r->req_query, r->req_query_len);
	h2s_field(s, ":path", 5, p, n);
}

int
h2_upgrade(struct conn *c, struct request *r, size_t headlen)
{
	static const char ok[] = "HTTP/1.1 101 Switching Protocols\r\n"
	    "Connection: Upgrade\r\nUpgrade: h2c\r\n\r\n";
	const char *up = NULL, *set = NULL;
	char sets[384];
	struct list_item li;
	struct h2s *s;
	struct h2 *h;
	ssize_t sn;
	int i;

	/* a request with a body would have to be read whole first */
	if (conn_secure(c) || r->req_minor != 1 || r->req_clen > 0 ||
	    r->req_chunked)
		return 0;
	for (i = 0; i < r->req_nhdrs; i++)
		if (r->req_hdrs[i].h_name_len == 7 &&
		    strncasecmp(r->req_hdrs[i].h_name, "Upgrade", 7) == 0)
			up = r->req_hdrs[i].h_value;
		else if (r->req_hdrs[i].h_name_len == 14 &&
		    strncasecmp(r->req_hdrs[i].h_name, "HTTP2-Settings", 14) == 0) {
			if (set != NULL)
				return 0;	/* more than one: RFC 7540 3.2.1 */
			set = r->req_hdrs[i].h_value;
		}
	if (up == NULL || set == NULL || !upgrade_named(r) ||
	    (sn = settings_decode(set, sets, sizeof(sets))) < 0 ||
	    settings_bad((const unsigned char *)sets, (size_t)sn))
		return 0;
	for (i = 0; !i && list_next(&up, &li); )
		i = li.li_len == 3 && strncasecmp(li.li_name, "h2c", 3) == 0;
	if (!i || (h = h2_start(c)) == NULL)
		return 0;
	if (nghttp2_session_upgrade2(h->h_ses, (const uint8_t *)sets,
	    (size_t)sn, r->req_method == M_HEAD, NULL) != 0 ||
	    (s = h2s_new(h, 1)) == NULL) {
		h2_free(c);
		return 0;
	}
	(void)nghttp2_session_set_stream_user_data(h->h_ses, 1, s);
	h->h_fail = conn_write(c, ok, sizeof(ok) - 1) == -1;
	/* the request, as stream 1 */
	h2s_field(s, ":method", 7, r->req_line, r->req_method_len);
	h2s_path(s, r);
	for (i = 0; i < r->req_nhdrs; i++)
		if (!upgrade_only(&r->req_hdrs[i]))
			h2s_field(s, r->req_hdrs[i].h_name,
			    r->req_hdrs[i].h_name_len, r->req_hdrs[i].h_value,
			    strlen(r->req_hdrs[i].h_value));
	h2s_ready(h, s, 0);
	/* the client's preface may have come behind the request */
	c->c_len -= headlen;
	memmove(c->c_buf, c->c_buf + headlen, c->c_len);
	c->c_proto = &h2_protocol;
	return 1;
}

/* --- start-up -------------------------------------------------------------- */

int
h2_init(void)
{
	nghttp2_session_callbacks *cb;

	if (nghttp2_session_callbacks_new(&cb) != 0 ||
	    nghttp2_option_new(&options) != 0)
		return -1;
	nghttp2_session_callbacks_set_send_callback(cb, h2_send);
	nghttp2_session_callbacks_set_send_data_callback(cb, h2_send_data);
	nghttp2_session_callbacks_set_on_begin_frame_callback(cb, h2_begin_frame);
	nghttp2_session_callbacks_set_on_begin_headers_callback(cb, h2_begin);
	nghttp2_session_callbacks_set_on_header_callback(cb, h2_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, h2_frame);
	nghttp2_session_callbacks_set_on_frame_send_callback(cb, h2_sent);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, h2_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb,
	    h2_stream_close);
	callbacks = cb;
	/* request bodies are acknowledged as their threads read them */
	nghttp2_option_set_no_auto_window_update(options, 1);
	nghttp2_option_set_max_outbound_ack(options, CONFIG_HTTP2_MAX_CONTROL);
	return 0;
}

const char *
h2_library(void)
{
	return nghttp2_version(0)->version_str;
}

const struct protocol h2_protocol = {
	.p_serve = h2_serve,
	.p_respond = h2_respond,
	.p_interim = h2_interim,
};
