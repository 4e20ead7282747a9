/*
 * http1.c - HTTP/1.1 (RFC 9112) on a connection: read a head, parse it,
 * hand it to route_serve(), log it, and again while the client keeps the
 * connection open; the body's framing both ways (Content-Length, chunked,
 * close) and pipelining.
 */
#include <errno.h>
#include <string.h>

#include "mrhttpd.h"
#include "protocol.h"
#include "route.h"
#include "log.h"

enum {
	REQ_BUDGET = 32,	/* requests in a row before others get the turn */
};

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
			    (rc = conn_wait_readable(c, (int)(deadline - now))) == 0)
				return -408;
			if (rc < 0)
				return -503;	/* cannot wait: see server_yield */
			continue;
		}
		if (n <= 0)
			return 0;
		c->c_len += (size_t)n;
	}
}

/*
 * The per-connection loop: head, dispatch, log, while requests are in the
 * buffer.  Returns 1 when the connection waits for its next request (to be
 * parked), 0 when it was closed.
 */
static int
http1_serve(struct conn *c)
{
	struct request req;
	struct reply rp;
	struct access a;
	struct body body;
	size_t used;
	int rc, served = 0;

	for (;;) {
		rp.rp_status = 0;	/* a handler that fails early logs 0 */
		rp.rp_bytes = 0;
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
		if (!req.req_keepalive || server_stopping())
			c->c_close = 1;
		/* the body, if any, is read through c_body by whoever wants it;
		 * what they leave is thrown away below */
		c->c_pos = (size_t)rc;
		c->c_body = &body;
		rc = body_start(c, &req, &body, -1);
		if (rc == 0)
			rc = route_serve(c, &req, &rp);
		else
			rc = response_error(c, &req, &rp, -rc);
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


/* An interim response: nothing but its status line. */
static int
http1_interim(struct conn *c, struct request *r, int status, int flags)
{
	char line[48];
	struct buf b;
	struct iovec iov;

	(void)r;
	buf_init(&b, line, sizeof(line));
	buf_lit(&b, "HTTP/1.1 ");
	buf_uint(&b, (unsigned)status);
	buf_char(&b, ' ');
	buf_str(&b, response_reason(status));
	buf_lit(&b, "\r\n\r\n");
	iov.iov_base = line;
	iov.iov_len = buf_len(&b);
	return conn_writev(c, &iov, 1, flags);
}

const struct protocol http1_protocol = {
	.p_serve = http1_serve,
	.p_interim = http1_interim,
};
