/*
 * body.c - a request's body, with Content-Length or chunked (RFC 9112 6,
 * 7.1), streamed into the caller's buffer: never held whole, never read
 * past its end into the next pipelined request.
 */
#include <errno.h>
#include <string.h>

#include "mrhttpd.h"
#include "protocol.h"


/*
 * Prepares to read r's body.  max is the largest acceptable body, -1 for
 * no limit.  Returns 0, or -413 when Content-Length is already too big,
 * or -417 for an expectation we do not know.
 */
int
body_start(struct conn *c, struct request *r, struct body *b, long long max)
{
	memset(b, 0, sizeof(*b));
	b->b_chunked = r->req_chunked;
	b->b_left = r->req_chunked ? 0 : (r->req_clen > 0 ? r->req_clen : 0);
	/* HTTP/2 without Content-Length: up to the stream's end */
	if (ENABLE_HTTP2 && r->req_clen == REQ_CLEN_STREAM) {
		b->b_left = BODY_TO_END;
		b->b_to_end = 1;
	}
	b->b_max = max;
	b->b_head = c->c_pos;
	b->b_state = CH_SIZE;
	if (max >= 0 && r->req_clen > max)
		return -413;
	if (r->req_expect != NULL) {
		if (strncasecmp(r->req_expect, "100-continue", 13) != 0)
			return -417;
		/* only worth it when the body is not on its way already */
		b->b_continue = r->req_minor == 1 && c->c_pos == c->c_len;
	}
	return 0;
}

/* Raw bytes: what followed the head in the buffer first, then the socket. */
static ssize_t
body_raw(struct conn *c, struct body *b, char *buf, size_t n)
{
	size_t have = c->c_len - c->c_pos;

	if (have > 0) {
		if (n > have)
			n = have;
		memcpy(buf, c->c_buf + c->c_pos, n);
		c->c_pos += n;
		return (ssize_t)n;
	}
	if (b->b_continue) {
		b->b_continue = 0;
		if (c->c_proto->p_interim(c, NULL, 100, 0) == -1)
			return -1;
	}
	/* what has arrived, without waiting (and without giving the turn
	 * away); then each wait for more of the body may last
	 * REQUEST_TIMEOUT, and not past the caller's deadline (CGI_TIMEOUT).
	 * Readable is not always readable enough: over TLS the bytes may be
	 * part of a record, which gives nothing until it is whole */
	{
		long long until = now_ms() + CONFIG_REQUEST_TIMEOUT * 1000LL,
		    left;
		ssize_t r;
		int w;

		if (b->b_deadline > 0 && b->b_deadline < until)
			until = b->b_deadline;
		while ((r = conn_read(c, buf, n)) < 0 &&
		    (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (b->b_nowait)
				return BODY_AGAIN;
			/* meanwhile, at MAX_CONNECTIONS, a newcomer may have
			 * this connection closed: see server_wait */
			if ((left = until - now_ms()) <= 0 ||
			    (w = conn_wait_readable(c, (int)left)) == 0)
				return -408;	/* stalled */
			if (w < 0)
				return -1;
		}
		return r;
	}
}

/*
 * Gives back bytes read past the end of a chunked body: they belong to the
 * next request.  Taken from c_buf (inbuf), they are still there, right
 * before c_pos.  Read from the socket, they go behind the received bytes,
 * where the connection loop keeps pipelined data; if they do not fit, the
 * connection closes.
 */
static void
body_unread(struct conn *c, struct body *b, const char *p, size_t n,
    int inbuf)
{
	if (inbuf)
		c->c_pos -= n;
	else if (n == 0)
		return;
	/* where the body began, right after the head (which the log still
	 * needs): the body is consumed, so there is room up to HEAD_MAX */
	else if (b->b_head + n <= HEAD_MAX) {
		memmove(c->c_buf + b->b_head, p, n);
		c->c_pos = b->b_head;
		c->c_len = b->b_head + n;
	} else
		c->c_close = 1;
}

/*
 * One byte of the chunk extensions (RFC 9112 7.1.1), from state st:
 * *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] ), then
 * CR.  Returns the next state, CH_SIZE_LF at the CR, or -1.  They are
 * read only to be checked: a front end that reads them otherwise must
 * not see a chunk line end where we do not.
 */
static int
chunk_ext(int st, unsigned char ch)
{
	int ws = ch == ' ' || ch == '\t', tc = http_cls[ch] & C_TCHAR;

	switch (st) {
	case CH_EXT:		/* after ';': BWS, then a name */
		return ws ? CH_EXT : tc ? CH_EXT_NAME : -1;
	case CH_EXT_NAME:
		if (tc)
			return st;
		if (ch == '\r')
			return CH_SIZE_LF;
		/* FALLTHROUGH */
	case CH_EXT_NAME_WS:	/* BWS, then '=' or the next ';' */
		return ws ? CH_EXT_NAME_WS : ch == '=' ? CH_EXT_EQ :
		    ch == ';' ? CH_EXT : -1;
	case CH_EXT_EQ:		/* BWS, then the value */
		return ws ? CH_EXT_EQ : ch == '"' ? CH_EXT_QUOTED :
		    tc ? CH_EXT_VAL : -1;
	case CH_EXT_VAL:
		if (tc)
			return st;
		/* FALLTHROUGH */
	case CH_EXT_QEND:	/* a value ended: CR, or BWS and ';' */
		if (ch == '\r')
			return CH_SIZE_LF;
		/* FALLTHROUGH */
	case CH_EXT_VAL_WS:
		return ws ? CH_EXT_VAL_WS : ch == ';' ? CH_EXT : -1;
	case CH_EXT_QUOTED:	/* qdtext, or a quoted-pair */
		return ch == '"' ? CH_EXT_QEND : ch == '\\' ? CH_EXT_QPAIR :
		    http_cls[ch] & C_VALUE ? st : -1;
	default:		/* CH_EXT_QPAIR */
		return http_cls[ch] & C_VALUE ? CH_EXT_QUOTED : -1;
	}
}

/*
 * The chunked framing (RFC 9112 7.1) of the raw bytes buf[0..got): chunk
 * data moves to the front of buf, everything else is consumed.  Lines of
 * the framing end in CRLF, never a bare LF, the trailer section's too: a
 * front end that reads them otherwise must not be able to hide a request
 * in a body (smuggling).  Extensions are skipped, without controls;
 * trailer fields are checked as fields (a token, ':', a value without
 * controls; no obs-fold) and dropped.
 * No I/O, so it can be tested and fuzzed alone.  Returns the count of data bytes,
 * with *used set to the raw bytes consumed (less than got only once the
 * body ended: the rest belongs to the next request), or -400 for broken
 * framing, -413 past b_max.
 */
ssize_t
body_dechunk(struct body *b, char *buf, size_t got, size_t *used)
{
	size_t i, out = 0;
	unsigned char ch;
	int d;

	for (i = 0; i < got && b->b_state != CH_DONE; i++) {
		ch = (unsigned char)buf[i];
		switch (b->b_state) {
		case CH_SIZE:
			d = hex_digit(ch);
			if (d >= 0) {
				/* 16 digits are 64 bits: more, even zeros,
				 * only keep a thread reading a size line */
				if (b->b_left > (0x7fffffffffffffffLL >> 4) ||
				    b->b_digits >= 16)
					return -400;	/* absurd size */
				b->b_left = b->b_left * 16 + d;
				b->b_digits++;
			} else if (b->b_digits == 0)
				return -400;
			else
				goto size_end;
			break;
		case CH_SIZE_WS:	/* BWS, which only a ';' may follow */
			if (++b->b_ext > 1024)
				return -400;
 size_end:
			if (ch == ';')
				b->b_state = CH_EXT;
			else if (ch == ' ' || ch == '\t')
				b->b_state = CH_SIZE_WS;
			else if (ch == '\r' && b->b_state == CH_SIZE)
				b->b_state = CH_SIZE_LF;
			else
				return -400;	/* a bare LF too: CRLF only */
			break;
		case CH_EXT: case CH_EXT_NAME: case CH_EXT_NAME_WS:
		case CH_EXT_EQ: case CH_EXT_VAL: case CH_EXT_VAL_WS:
		case CH_EXT_QUOTED: case CH_EXT_QPAIR: case CH_EXT_QEND:
			if (++b->b_ext > 1024 ||
			    (d = chunk_ext(b->b_state, ch)) < 0)
				return -400;
			b->b_state = d;
			break;
		case CH_SIZE_LF:
			if (ch != '\n')
				return -400;
			b->b_digits = b->b_ext = 0;
			/* checked against what is left of the limit: the
			 * sum b_total + b_left could overflow */
			if (b->b_max >= 0 && b->b_left > b->b_max - b->b_total)
				return -413;
			b->b_state = b->b_left == 0 ? CH_TRAILER : CH_DATA;
			break;
		case CH_DATA: {
			size_t take = got - i;

			if ((long long)take > b->b_left)
				take = (size_t)b->b_left;
			memmove(buf + out, buf + i, take);
			out += take;
			i += take - 1;
			b->b_left -= (long long)take;
			b->b_total += (long long)take;
			if (b->b_left == 0)
				b->b_state = CH_DATA_CR;
			break;
		}
		case CH_DATA_CR:
			if (ch != '\r')
				return -400;	/* a bare LF too: CRLF only */
			b->b_state = CH_DATA_LF;
			break;
		case CH_DATA_LF:
			if (ch != '\n')
				return -400;
			b->b_state = CH_SIZE;
			break;
		case CH_TRAILER:	/* start of a trailer line, or the end */
			if (ch == '\r')
				b->b_state = CH_END_LF;
			else if (http_cls[ch] & C_TCHAR)
				b->b_state = CH_TRAILER_NAME;
			else
				return -400;	/* bare LF, obs-fold, junk */
			break;
		case CH_TRAILER_NAME:	/* trailers are checked and dropped */
			if (++b->b_ext > 8192)
				return -400;
			if (ch == ':')
				b->b_state = CH_TRAILER_VALUE;
			else if (!(http_cls[ch] & C_TCHAR))
				return -400;	/* space before ':' too */
			break;
		case CH_TRAILER_VALUE:
			if (++b->b_ext > 8192)
				return -400;
			if (ch == '\r')
				b->b_state = CH_TRAILER_LF;
			else if (!(http_cls[ch] & C_VALUE))
				return -400;	/* bare LF, controls */
			break;
		case CH_TRAILER_LF:
			if (ch != '\n')
				return -400;
			b->b_state = CH_TRAILER;
			break;
		case CH_END_LF:
			if (ch != '\n')
				return -400;
			b->b_state = CH_DONE;
			break;
		}
	}
	*used = i;
	return (ssize_t)out;
}

/*
 * Reads up to n bytes of the body into buf.  Returns the count, 0 at the
 * end of the body, -1 when the client is gone, -408 when it stalled for
 * REQUEST_TIMEOUT (or up to b_deadline), -400 for broken chunked framing,
 * -413 past the limit; with b_nowait, BODY_AGAIN where it would wait for
 * the client.  After any of those but 0 the connection must close.
 */
ssize_t
body_read(struct conn *c, struct body *b, char *buf, size_t n)
{
	ssize_t got, out;
	size_t used, pos;

	if (n == 0)
		return 0;
	if (!b->b_chunked) {
		if (b->b_left == 0)
			return 0;
		if ((long long)n > b->b_left)
			n = (size_t)b->b_left;
		if ((got = body_raw(c, b, buf, n)) <= 0) {
			if (got < 0)
				return got;	/* BODY_AGAIN, -1 or -408 */
			if (ENABLE_HTTP2 && got == 0 && b->b_to_end) {
				b->b_left = 0;	/* its stream ended */
				return 0;
			}
			return -1;	/* ended early: the client is gone */
		}
		b->b_left -= got;
		b->b_total += got;
		/* a length not announced is held to the limit as it comes */
		if (ENABLE_HTTP2 && b->b_to_end &&
		    b->b_max >= 0 && b->b_total > b->b_max)
			return -413;
		return got;
	}

	for (;;) {
		if (b->b_state == CH_DONE)
			return 0;
		pos = c->c_pos;
		if ((got = body_raw(c, b, buf, n)) <= 0)
			return got < 0 ? got : -1;
		if ((out = body_dechunk(b, buf, (size_t)got, &used)) < 0)
			return out;
		if (b->b_state == CH_DONE)
			body_unread(c, b, buf + used, (size_t)got - used,
			    c->c_pos != pos);
		if (out > 0)
			return out;
	}
}

/*
 * Reads and drops what is left of the body, within DISCARD_MAX bytes.
 * Returns 0 when it is all gone, -1 when the connection must close instead.
 */
int
body_discard(struct conn *c, struct body *b)
{
	char sink[2048];
	ssize_t r;

	while ((r = body_read(c, b, sink, sizeof(sink))) > 0)
		if (b->b_total > BODY_DISCARD_MAX)
			return -1;
	return r == 0 ? 0 : -1;
}

/* Is part of the body still unread? */
int
body_pending(const struct body *b)
{
	return b->b_chunked ? b->b_state != CH_DONE : b->b_left > 0;
}
