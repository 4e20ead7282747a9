/*
 * response.c - responses every handler may give: errors (with their
 * pages) and OPTIONS; and response_send(), which hands a response to the
 * connection's protocol.
 */
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "response.h"
#include "upload.h"

/*
 * Every status the server sends, with its reason phrase, the frequent ones
 * first, as the list is searched.  The phrases are one block of strings,
 * each member exactly its size, found by offset: no pointers, so nothing
 * to relocate.
 */
#define REASONS(X) \
	X(200, "OK") \
	X(304, "Not Modified") \
	X(404, "Not Found") \
	X(206, "Partial Content") \
	X(301, "Moved Permanently") \
	X(400, "Bad Request") \
	X(403, "Forbidden") \
	X(401, "Unauthorized") \
	X(412, "Precondition Failed") \
	X(416, "Range Not Satisfiable") \
	X(503, "Service Unavailable") \
	X(500, "Internal Server Error") \
	X(408, "Request Timeout") \
	X(413, "Content Too Large") \
	X(405, "Method Not Allowed") \
	X(201, "Created") \
	X(204, "No Content") \
	X(302, "Found") \
	X(303, "See Other") \
	X(307, "Temporary Redirect") \
	X(308, "Permanent Redirect") \
	X(409, "Conflict") \
	X(410, "Gone") \
	X(414, "URI Too Long") \
	X(417, "Expectation Failed") \
	X(422, "Unprocessable Content") \
	X(429, "Too Many Requests") \
	X(431, "Request Header Fields Too Large") \
	X(501, "Not Implemented") \
	X(502, "Bad Gateway") \
	X(504, "Gateway Timeout") \
	X(505, "HTTP Version Not Supported") \
	X(507, "Insufficient Storage") \
	X(402, "Payment Required") \
	X(100, "Continue") \
	X(102, "Processing")

struct reason_text {
#define X(code, s)	char r##code[sizeof(s)];
	REASONS(X)
#undef X
};
static const struct reason_text reason_text = {
#define X(code, s)	s,
	REASONS(X)
#undef X
};
static const struct {
	unsigned short	 code;
	unsigned short	 off;	/* of the phrase, in reason_text */
} reasons[] = {
#define X(code, s)	{ code, offsetof(struct reason_text, r##code) },
	REASONS(X)
#undef X
};

void
buf_status(struct buf *b, int status, const char *reason)
{
	char code[4];
	size_t i;

	for (i = 0; reason == NULL && i < sizeof(reasons) / sizeof(reasons[0]);
	    i++)
		if (reasons[i].code == status)
			reason = (const char *)&reason_text + reasons[i].off;

	code[0] = (char)('0' + status / 100 % 10);
	code[1] = (char)('0' + status / 10 % 10);
	code[2] = (char)('0' + status % 10);
	code[3] = ' ';
	buf_add(b, code, sizeof(code));
	if (reason != NULL)
		buf_str(b, reason);
}

int
response_send(struct conn *c, struct request *r, struct reply *rp,
    struct response *rs)
{
	/* fields cut short are never sent: a plain 500 instead, whose own
	 * fields always fit */
	if (rs->rs_fields.b_over && rs->rs_status != 500)
		return response_error(c, r, rp, 500);
	return c->c_proto->p_respond(c, r, rp, rs);
}

/* The statuses after which the rest of a connection's input cannot be
 * trusted: the connection closes after the reply. */
static int
must_close(int status)
{
	return status == 400 || status == 408 || status == 413 ||
	    status == 414 || status == 417 || status == 431 || status == 500 ||
	    status == 503 || status == 505 || status == 507;
}

/* The built-in page for a status: "<status> <reason>" as HTML. */
static void
error_page(struct buf *b, int status)
{
	char line[64];
	struct buf l;

	buf_init(&l, line, sizeof(line));
	buf_status(&l, status, NULL);
	buf_lit(b, "<!DOCTYPE html>\n<html><head><title>");
	buf_add(b, line, buf_len(&l));
	buf_lit(b, "</title></head><body><h1>");
	buf_add(b, line, buf_len(&l));
	buf_lit(b, "</h1></body></html>\n");
}

/* Opens PRIVATE_DIR/<status>.html, or returns -1. */
static int
error_file(int status, struct stat *st)
{
	char path[sizeof(CONFIG_PRIVATE_DIR) + 16];
	struct buf b;
	int fd;

	buf_init(&b, path, sizeof(path) - 1);
	buf_lit(&b, CONFIG_PRIVATE_DIR "/");
	buf_uint(&b, (unsigned)status);
	buf_lit(&b, ".html");
	fd = open(buf_cstr(&b), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd != -1 && (fstat(fd, st) == -1 || !S_ISREG(st->st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The body is PRIVATE_DIR/<status>.html when that exists, else a small
 * built-in page.  The request path is never echoed.  r may be NULL when
 * the request could not be parsed.
 */
int
response_error_field(struct conn *c, struct request *r, struct reply *rp,
    int status, const char *name, const char *value)
{
	char fields[HEAD_ROOM + 256], page[256];
	struct response rs;
	struct buf p;
	struct stat st;
	int rc;

	if (must_close(status) || r == NULL)
		c->c_close = 1;
	response_init(&rs, status, fields, sizeof(fields));
	if (name != NULL) {
		buf_str(&rs.rs_fields, name);
		response_field_add(&rs, ": ", 2, value, strlen(value));
	} else if (status == 503)	/* shed: busy, not broken */
		response_field(&rs, "Retry-After", "1");
	response_field(&rs, "Content-Type", "text/html");
	if (rs.rs_fields.b_over && status != 500)
		/* a field the caller made too long: a plain 500 instead */
		return response_error(c, r, rp, 500);
	rs.rs_fd = ENABLE_PRIVATE_DIR ? error_file(status, &st) : -1;
	if (rs.rs_fd != -1) {
		rs.rs_src = SRC_FILE;
		rs.rs_off = 0;
		rs.rs_len = st.st_size;
	} else {
		buf_init(&p, page, sizeof(page));
		error_page(&p, status);
		rs.rs_src = SRC_MEM;
		rs.rs_mem = page;
		rs.rs_len = (long long)buf_len(&p);
	}
	rc = c->c_proto->p_respond(c, r, rp, &rs);
	if (rs.rs_fd != -1)
		close(rs.rs_fd);
	return rc;
}

int
response_error(struct conn *c, struct request *r, struct reply *rp, int status)
{
	return response_error_field(c, r, rp, status, NULL, NULL);
}

/* What r's target allows, for OPTIONS and a 405 alike (RFC 9110
 * 9.3.7, 15.5.6): "*" what the server does. */
const char *
response_allow(const struct request *r)
{
	return ENABLE_PUT && (r->req_target[0] == '*' ||
	    upload_below(r->req_decoded, r->req_decoded_len)) ?
	    ALLOW_METHODS ", PUT, DELETE" : ALLOW_METHODS;
}

int
response_options(struct conn *c, struct request *r, struct reply *rp)
{
	char fields[64];
	struct response rs;

	response_init(&rs, 204, fields, sizeof(fields));
	response_field(&rs, "Allow", response_allow(r));
	return response_send(c, r, rp, &rs);
}
