/*
 * response.h - a response as data.
 *
 * A handler says what to answer: a status, header fields, and where the
 * body comes from.  It never writes a status line, a Content-Length or a
 * chunk: the connection's protocol frames the response (HTTP/1.1 as text
 * with Content-Length, chunks or a close; HTTP/2 as HEADERS and DATA).
 * A HEAD is described as its GET; the protocol leaves the body out.
 */
#ifndef MRHTTPD_RESPONSE_H
#define MRHTTPD_RESPONSE_H

#include "mrhttpd.h"
#include "protocol.h"

enum source {
	SRC_NONE,		/* no body (rs_len 0) */
	SRC_MEM,		/* rs_len bytes at rs_mem */
	SRC_FILE,		/* rs_len bytes of rs_fd from rs_off */
	SRC_STREAM,		/* rs_stream produces it, rs_len or unknown */
};

struct stream;

struct response {
	int		 rs_status;
	enum source	 rs_src;
	long long	 rs_len;	/* the body's length; -1: a stream's, unknown */
	const char	*rs_mem;
	int		 rs_fd;		/* the handler's: it closes it */
	off_t		 rs_off;
	/* SRC_FILE: the rs_len bytes mapped, or NULL.  Only for a transport
	 * with t_kernel_copy: never read here (see there) */
	const char	*rs_map;
	/*
	 * SRC_STREAM: produces the body, handing each piece to stream_put()
	 * as it comes; returns 0 at its end, -1 when it stopped short (the
	 * connection then closes, and a client sees the body is cut).
	 */
	int		(*rs_stream)(void *, struct stream *);
	void		*rs_arg;
	/* the stream is the whole message, head and all, as a program
	 * that frames its own reply (nph-) writes it: HTTP/1 only */
	int		 rs_raw;
	/* the stream's pieces come back to back (a listing, not a
	 * program's output, which may pause): fill whole packets */
	int		 rs_cork;
	/* "Name: value" lines, CRLF-terminated, through response_field() */
	struct buf	 rs_fields;
	const char	*rs_reason;	/* a program's own phrase, or NULL */
};

/*
 * Where a stream's pieces go: the protocol's framing.  Handlers use only
 * stream_put(); the protocol fills in the rest.
 */
struct stream {
	int		(*st_put)(struct stream *, const char *, size_t, int);
	struct conn	*st_conn;
	long long	 st_left;	/* of a known length, or -1 */
	long long	 st_bytes;	/* body bytes passed on */
	int		 st_chunked;
	int		 st_err;	/* a write failed: nothing more goes */
	int		 st_ended;	/* stream_last() was called */
	int		 st_cork;	/* rs_cork: hold packets until the end */
};

/* Passes n bytes of body on.  0, or -1 once the client is gone. */
static inline int
stream_put(struct stream *st, const char *p, size_t n)
{
	return st->st_err ? -1 : n == 0 ? 0 : st->st_put(st, p, n, 0);
}

/* The same for the body's last piece, which may then go out with the
 * body's end in one write.  The stream returns 0 next. */
static inline int
stream_last(struct stream *st, const char *p, size_t n)
{
	return st->st_err ? -1 : st->st_put(st, p, n, 1);
}

/* A response with no body and no fields yet, fields built in mem[0..n)
 * (NULL and 0 for a response that has none). */
static inline void
response_init(struct response *rs, int status, char *mem, size_t n)
{
	*rs = (struct response){ .rs_status = status, .rs_src = SRC_NONE };
	buf_init(&rs->rs_fields, mem, n);
}

/* A header field, its name a literal; the value a string, or n bytes. */
#define response_field(rs, name, value) \
	response_field_n((rs), name, (value), strlen(value))
#define response_field_n(rs, name, value, n) \
	response_field_add((rs), name ": ", sizeof(name ": ") - 1, (value), (n))

static inline void
response_field_add(struct response *rs, const char *name, size_t n,
    const char *value, size_t vn)
{
	buf_add(&rs->rs_fields, name, n);
	buf_add(&rs->rs_fields, value, vn);
	buf_lit(&rs->rs_fields, "\r\n");
}

/* A field whose value is built with the buf_ verbs, then ended. */
#define response_field_begin(rs, name) \
	(buf_lit(&(rs)->rs_fields, name ": "), &(rs)->rs_fields)
#define response_field_end(rs)	buf_lit(&(rs)->rs_fields, "\r\n")

/*
 * Sends rs on the connection's protocol and records it in rp for the
 * log.  Fields that overflowed their buffer make it a 500 instead.
 * Returns 0, or -1 when the connection must close.
 */
int	 response_send(struct conn *, struct request *, struct reply *,
	    struct response *);

/* "404 Not Found", or with a phrase of the program's own when not NULL:
 * written as given, so it must be checked already (cgi_parse_head: no
 * control byte but HTAB, REASON_MAX bytes at most).  A program's status
 * the server has no phrase for (200-599, cgi.c checks) gets an empty one
 * (RFC 9112 4). */
#define REASON_MAX	64
void	 buf_status(struct buf *, int, const char *);

#define ALLOW_METHODS	"GET, HEAD, OPTIONS"
/* An error page: PRIVATE_DIR/<status>.html, else a built-in one. */
int	 response_error(struct conn *, struct request *, struct reply *, int);
/* The same, with one more header field, e.g. Allow or WWW-Authenticate. */
int	 response_error_field(struct conn *, struct request *, struct reply *,
	    int, const char *, const char *);
/* 204 to OPTIONS, with the methods the server serves. */
int	 response_options(struct conn *, struct request *, struct reply *);
const char *response_allow(const struct request *);
#endif
