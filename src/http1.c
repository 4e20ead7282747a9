/*
 * http1.c - HTTP/1.1 (RFC 9112) on a connection: read a head, parse it,
 * hand it to route_serve(), log it, and again while the client keeps the
 * connection open; the body's framing both ways (Content-Length, chunked,
 * close) and pipelining.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "response.h"
#include "route.h"
#include "log.h"
#include "h2.h"
#include "tls.h"

enum {
	OUT_SIZE = 2048,	/* a head, and a small file behind it */
};

/* What read_head() found. */
enum head {
	HEAD_READY,		/* a complete head: its length */
	HEAD_IDLE,		/* nothing more yet: park */
	HEAD_GONE,		/* the client closed */
	HEAD_REFUSED,		/* a head to refuse: the status */
	HEAD_SWITCH,		/* HTTP/2: its preface, or h2 by ALPN */
};

/* Reads until a complete head is in the buffer; *n as enum head says. */
static enum head
read_head(struct conn *c, struct request *r, int *n)
{
	size_t scanned = 0;
	long long now;
	ssize_t got;
	int rc;

	for (;;) {
		/* HTTP/2 chosen in the TLS handshake, or with prior
		 * knowledge on a plain port only (RFC 9113 3.3) */
		if (ENABLE_HTTP2 && c->c_fresh && (c->c_proto != &http1_protocol ||
		    (!conn_secure(c) && h2_preface(c->c_buf, c->c_len)))) {
			c->c_due = 0;
			return HEAD_SWITCH;
		}
		if (c->c_len > 0 &&
		    (rc = request_parse(r, c->c_buf, c->c_len, &scanned)) != 0) {
			c->c_due = 0;
			*n = rc > 0 ? rc : -rc;
			return rc > 0 ? HEAD_READY : HEAD_REFUSED;
		}
		*n = 431;
		if (c->c_len >= HEAD_MAX)
			return HEAD_REFUSED;
		got = conn_read(c, c->c_buf + c->c_len, HEAD_MAX - c->c_len);
		if (got == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* the socket is drained: park, between requests or
			 * mid-head.  A head gets REQUEST_TIMEOUT in all, from
			 * its first wait; parked half-sent, its bytes are
			 * kept by server.c, and the sweep wakes it at c_due */
			__atomic_store_n(&c->c_more, 0, __ATOMIC_RELAXED);
			if (c->c_len == 0)
				return HEAD_IDLE;
			now = now_ms();
			if (c->c_due == 0)
				c->c_due = now + CONFIG_REQUEST_TIMEOUT * 1000LL;
			*n = 408;
			return now >= c->c_due ? HEAD_REFUSED : HEAD_IDLE;
		}
		if (got <= 0)
			return HEAD_GONE;
		c->c_len += (size_t)got;
	}
}

/* The first line in the buffer, past the empty lines request_parse skips
 * too (RFC 9112 2.2): its start, its length up to LF or the buffer's end,
 * and whether it has ended. */
static const char *
http1_first(const struct conn *c, size_t *n, int *whole)
{
	const char *p = c->c_buf, *end = c->c_buf + c->c_len, *nl;

	p += request_skip_empty(p, c->c_len);
	nl = memchr(p, '\n', (size_t)(end - p));
	*whole = nl != NULL;
	*n = (size_t)((nl != NULL ? nl : end) - p);
	return p;
}

/* Could the first line be HTTP/1?  Only a whole line (it has ended) that
 * names no "HTTP/1." is not: one too long or not finished yet is a client
 * of HTTP/1's, owed its 431 or 408. */
static int
http1_line(const struct conn *c)
{
	size_t n;
	int whole;
	const char *p = http1_first(c, &n, &whole);

	return !whole || memmem(p, n, " HTTP/1.", 8) != NULL;
}

/* A head refused: answered (unless answer is 0), logged with its raw
 * first line, and closed. */
static void
http1_refuse(struct conn *c, int status, int answer)
{
	struct reply rp = { 0 };
	struct access a = { .a_status = status, .a_rejected = 1 };
	int whole;

	if (answer)
		response_error(c, NULL, &rp, status);
	a.a_line = http1_first(c, &a.a_line_len, &whole);
	/* the parser put a NUL where a line's CR or LF was: the line ends
	 * there, not at a later LF (and the fields after it, credentials
	 * too, stay out of the log) */
	a.a_line_len = strnlen(a.a_line, a.a_line_len);
	if (a.a_line_len > 0 && a.a_line[a.a_line_len - 1] == '\r')
		a.a_line_len--;
	a.a_bytes = rp.rp_bytes;
	log_access(c, &a);
	/* a 408 comes right after a read found the socket drained: nothing
	 * to linger for, and lingering would take a thread each from a
	 * crowd of half-sent heads timing out at once */
	conn_close(c, answer && status != 408);
}

/*
 * Serves one parsed request: its body framed, route_serve(), the log
 * line, and what the body left unread.  Returns 0 when the connection
 * goes on, -1 when it was closed.
 */
static int
http1_request(struct conn *c, struct request *r, int headlen)
{
	struct reply rp = { 0 };	/* a handler that fails early logs 0 */
	struct body body;
	struct access a;
	int rc;

	log_accepted(c, r);
	if (!r->req_keepalive || server_stopping())
		c->c_close = 1;
	/* the body, if any, is read through c_body by whoever wants it;
	 * what they leave is thrown away below */
	c->c_pos = (size_t)headlen;
	c->c_body = &body;
	if ((rc = body_start(c, r, &body, -1)) == 0) {
		/* without PUT and CGI nobody reads a body: the request is
		 * answered, and the connection closed, the body never parsed */
		if (!ENABLE_BODIES && body_pending(&body))
			c->c_close = 1;
		rc = route_serve(c, r, &rp);
	} else
		rc = response_error(c, r, &rp, -rc);
	a = (struct access){ .a_line = r->req_line,
	    .a_line_len = strlen(r->req_line), .a_referer = r->req_referer,
	    .a_ua = r->req_ua, .a_status = rp.rp_status,
	    .a_rejected = rp.rp_rejected, .a_bytes = rp.rp_bytes };
	log_access(c, &a);

	/* an unread body must go before the next request is read: small
	 * ones are drained, big ones cost the connection.  One answered
	 * before the client was asked for it (Expect: 100-continue) may
	 * never come, so it is not waited for */
	if (body.b_continue && body_pending(&body))
		c->c_close = 1;
	if (ENABLE_BODIES && rc == 0 && !c->c_close &&
	    body_discard(c, &body) != 0)
		c->c_close = 1;
	if (rc != 0 || c->c_close) {
		if (rc != 0)
			tls_cut(c);	/* the reply may be cut short */
		/* linger only when input is, or may be, left unread */
		conn_close(c, rc == 0 && (c->c_pos < c->c_len ||
		    __atomic_load_n(&c->c_more, __ATOMIC_RELAXED) ||
		    body_pending(&body)));
		return -1;
	}
	return 0;
}

/*
 * Whether the last write before a close may wait for the FIN, to go out
 * in one packet with it.  Only when the client asked for the close, so
 * sends nothing more, and none of its input is left: a close() with
 * unread input resets the connection and throws away what it has not
 * sent yet.  Not before a program's output is read to its end either,
 * which may take long.
 */
static int
fin_rides(struct conn *c, const struct request *r, const struct response *rs)
{
	return c->c_close && r != NULL && !r->req_keepalive &&
	    c->c_pos == c->c_len &&
	    !__atomic_load_n(&c->c_more, __ATOMIC_RELAXED) &&
	    !body_pending(c->c_body) && rs->rs_src != SRC_STREAM;
}

/*
 * The connection's loop: a head, its request, while requests are in the
 * buffer.  Returns 1 when the connection waits for its next request (to
 * be parked), 0 when it was closed.
 */
static int
http1_serve(struct conn *c)
{
	char path[PATH_MAX_LEN];	/* req_decoded */
	struct request req;
	size_t used;
	int n, served = 0;

	for (;;) {
		req.req_decoded = path;
		if (ENABLE_HTTP2)
			req.req_h2 = 0;
		switch (read_head(c, &req, &n)) {
		case HEAD_IDLE:
			return 1;
		case HEAD_GONE:
			conn_close(c, 0);
			return 0;
		case HEAD_REFUSED:
			/* on a port that speaks HTTP/2 too, a whole first
			 * line that is no HTTP/1 is taken for a broken
			 * preface: closed without an answer (RFC 9113 3.4) */
			http1_refuse(c, n, !(ENABLE_HTTP2 && c->c_fresh &&
			    !http1_line(c)));
			return 0;
		case HEAD_SWITCH:	/* only where HTTP/2 is built */
			if (ENABLE_HTTP2) {
				c->c_proto = &h2_protocol;
				return c->c_proto->p_serve(c);
			}
			break;
		case HEAD_READY:
			break;
		}
		if (ENABLE_HTTP2 && h2_upgrade(c, &req, (size_t)n))
			return c->c_proto->p_serve(c);
		if (http1_request(c, &req, n) != 0)
			return 0;
		/* keep what was pipelined behind this request; with nothing
		 * there, wait for the next one in the epoll set: the client
		 * is only now reading the reply, so a read would find nothing */
		used = c->c_pos;
		c->c_len -= used;
		c->c_fresh = 0;
		if (c->c_len == 0 &&
		    !__atomic_load_n(&c->c_more, __ATOMIC_RELAXED))
			return 1;
		/* fairness: a client that pipelines without pause gets
		 * REQ_BUDGET requests in a row on the turn, then the turn
		 * goes to the others and this thread goes on with it alone */
		if (++served >= REQ_BUDGET) {
			served = 0;
			(void)server_yield();
		}
		if (c->c_len > 0)
			memmove(c->c_buf, c->c_buf + used, c->c_len);
	}
}

/*
 * The status line and the fields every response has: Date, Server,
 * Pragma, and Connection when it differs from the version's default.
 */
static void
http1_head(struct buf *b, const struct response *rs, int minor,
    const struct conn *c)
{
	time_t now;

	if (rs->rs_status == 200 && rs->rs_reason == NULL)
		buf_lit(b, "HTTP/1.1 200 OK");	/* the usual one, no lookup */
	else {
		buf_lit(b, "HTTP/1.1 ");
		buf_status(b, rs->rs_status, rs->rs_reason);
	}
	buf_lit(b, "\r\nDate: ");
	buf_add(b, http_date_now(&now), 29);
	buf_lit(b, "\r\nServer: mrhttpd/" MRHTTPD_VERSION "\r\n");
	if (ENABLE_PRAGMA)
		buf_lit(b, "Pragma: " CONFIG_PRAGMA "\r\n");
	if (c->c_close)
		buf_lit(b, "Connection: close\r\n");
	else if (minor == 0)
		buf_lit(b, "Connection: keep-alive\r\n");
}

/* A piece of a stream: as it is, or as a chunk (RFC 9112 7.1); the last
 * one with the chunk that ends the body, in one write. */
static int
http1_put(struct stream *st, const char *p, size_t n, int last)
{
	char size[24];
	struct iovec iov[3];
	struct buf b;
	int k = 0;

	if (st->st_left >= 0) {		/* no more than announced */
		if ((long long)n > st->st_left)
			n = (size_t)st->st_left;
		st->st_left -= (long long)n;
	}
	st->st_ended |= last;
	buf_init(&b, size, sizeof(size));
	if (st->st_chunked && n > 0) {
		buf_hex(&b, n, 0);
		buf_lit(&b, "\r\n");
		iov[k++] = (struct iovec){ .iov_base = size, .iov_len = buf_len(&b) };
	}
	if (n > 0)
		iov[k++] = (struct iovec){ .iov_base = (void *)p, .iov_len = n };
	buf_init(&b, size + buf_len(&b), sizeof(size) - buf_len(&b));
	if (st->st_chunked && n > 0)
		buf_lit(&b, "\r\n");
	if (st->st_chunked && last)
		buf_lit(&b, "0\r\n\r\n");
	if (buf_len(&b) > 0)
		iov[k++] = (struct iovec){ .iov_base = b.b_start,
		    .iov_len = buf_len(&b) };
	if (k == 0)
		return 0;
	if (conn_writev(st->st_conn, iov, k, st->st_cork && !last ? IO_MORE :
	    0) == -1) {
		st->st_err = 1;
		return -1;
	}
	st->st_bytes += (long long)n;
	return 0;
}

/* Runs a stream after its head.  0, or -1 to close. */
static int
http1_stream(struct conn *c, struct reply *rp, struct response *rs,
    int chunked)
{
	struct stream st = { .st_put = http1_put, .st_conn = c,
	    .st_left = rs->rs_len, .st_chunked = chunked,
	    .st_cork = rs->rs_cork };
	int rc;

	rc = rs->rs_stream(rs->rs_arg, &st);
	if (rc == 0 && !st.st_ended && !st.st_err)
		rc = http1_put(&st, NULL, 0, 1);
	rp->rp_bytes = st.st_bytes;
	/* cut short, or short of the length announced: only a close can
	 * tell the client */
	return rc != 0 || st.st_err || st.st_left > 0 ? -1 : 0;
}

/* Reads a small file's range in behind the head.  0, or -1 when it came
 * short: it shrank under us. */
static int
http1_pread(const struct response *rs, char *p, struct iovec *iov)
{
	ssize_t n;

	do
		n = pread(rs->rs_fd, p, (size_t)rs->rs_len, rs->rs_off);
	while (n == -1 && errno == EINTR);
	if (n != rs->rs_len)
		return -1;
	iov->iov_len += (size_t)n;
	return 0;
}

/*
 * Frames a response as HTTP/1.1: the head (common fields, the handler's,
 * then Content-Length or Transfer-Encoding), then the body.  The head is
 * built in one buffer, with a small file read in behind it, so that the
 * usual reply is one write; big fields (a program's, a long Location)
 * go in their own piece of the write, and a big file follows the head by
 * sendfile.  The buffer is kept small: each stack page a thread touches
 * is resident memory.
 */
static int
http1_respond(struct conn *c, struct request *r, struct reply *rp,
    struct response *rs)
{
	char out[OUT_SIZE];
	struct iovec iov[4];
	struct buf h;
	int minor = r != NULL ? r->req_minor : 1, status = rs->rs_status;
	int bodyless = status < 200 || status == 204 || status == 304;
	int body = !bodyless && (r == NULL || r->req_method != M_HEAD);
	size_t nf = buf_len(&rs->rs_fields), split;
	long long len = rs->rs_len;
	int k = 1, more = 0, last = 0, rc;

	rp->rp_status = status;
	rp->rp_bytes = 0;
	if ((ENABLE_CGI || ENABLE_AUTO_INDEX) && rs->rs_raw) {
		/* the stream is the message */
		c->c_close = 1;
		return http1_stream(c, rp, rs, 0);
	}
	/* HTTP/1.0 has no other way to say where the body ends */
	if (len < 0 && minor == 0 && body)
		c->c_close = 1;
	buf_init(&h, out, sizeof(out));
	http1_head(&h, rs, minor, c);
	/* the fields go in behind, or apart when they are big */
	split = buf_len(&h);
	if (nf + 64 <= buf_room(&h)) {
		if (nf > 0)	/* none: the buffer may be NULL */
			buf_add(&h, rs->rs_fields.b_start, nf);
		split = 0;
	}
	if (!bodyless && len >= 0) {
		buf_lit(&h, "Content-Length: ");
		buf_uint(&h, (unsigned long long)len);
		buf_lit(&h, "\r\n\r\n");
	} else if (!bodyless && minor >= 1)
		buf_lit(&h, "Transfer-Encoding: chunked\r\n\r\n");
	else
		buf_lit(&h, "\r\n");
	if (h.b_over)
		return status == 500 ? -1 : response_error(c, r, rp, 500);
	iov[0] = (struct iovec){ .iov_base = out, .iov_len = buf_len(&h) };
	if (split > 0) {
		iov[0].iov_len = split;
		iov[k++] = (struct iovec){ .iov_base = rs->rs_fields.b_start,
		    .iov_len = nf };
		iov[k++] = (struct iovec){ .iov_base = out + split,
		    .iov_len = buf_len(&h) - split };
	}
	if (fin_rides(c, r, rs))
		last = IO_MORE;
	if (!body || len == 0 || rs->rs_src == SRC_NONE)
		return conn_writev(c, iov, k, last);
	switch (rs->rs_src) {
	case SRC_MEM:
		iov[k++] = (struct iovec){ .iov_base = (void *)rs->rs_mem,
		    .iov_len = (size_t)len };
		break;
	case SRC_FILE:
		/* mapped (small, and cached): from there, in the same write */
		if (rs->rs_map != NULL && c->c_tr->t_kernel_copy) {
			iov[k++] = (struct iovec){ .iov_base = (void *)rs->rs_map,
			    .iov_len = (size_t)len };
			break;
		}
		/* small: read in behind the head, for one write */
		more = k > 1 || len > (long long)buf_room(&h);
		if (!more && http1_pread(rs, h.b_p, &iov[0]) == -1)
			return -1;	/* shrank: the length is wrong */
		break;
	default:	/* SRC_STREAM: only programs and listings have one */
		if (!(ENABLE_CGI || ENABLE_AUTO_INDEX) ||
		    conn_writev(c, iov, k, rs->rs_cork ? IO_MORE : 0) == -1)
			return -1;
		return http1_stream(c, rp, rs, len < 0 && minor >= 1);
	}
	/* a big file follows the head by sendfile */
	rc = conn_writev(c, iov, k, more ? IO_MORE : last);
	if (rc == 0 && more)
		rc = conn_sendfile(c, rs->rs_fd, rs->rs_off, len);
	if (rc == 0)
		rp->rp_bytes = len;
	return rc;
}

/* An interim response: nothing but its status line (100 or 102). */
static int
http1_interim(struct conn *c, struct request *r, int status, int flags)
{
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
	static const char proc[] = "HTTP/1.1 102 Processing\r\n\r\n";
	struct iovec iov = { .iov_base = (void *)(status == 100 ? cont : proc),
	    .iov_len = status == 100 ? sizeof(cont) - 1 : sizeof(proc) - 1 };

	(void)r;
	return conn_writev(c, &iov, 1, flags);
}

const struct protocol http1_protocol = {
	.p_serve = http1_serve,
	.p_respond = http1_respond,
	.p_interim = http1_interim,
};
