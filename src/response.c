/*
 * response.c - responses every handler may give: errors (with their
 * pages) and OPTIONS; and response_send(), which hands a response to the
 * connection's protocol.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "response.h"

const char *
response_reason(int status)
{
	switch (status) {
	case 100: return "Continue";
	case 102: return "Processing";
	case 200: return "OK";
	case 201: return "Created";
	case 204: return "No Content";
	case 206: return "Partial Content";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 303: return "See Other";
	case 304: return "Not Modified";
	case 307: return "Temporary Redirect";
	case 308: return "Permanent Redirect";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 402: return "Payment Required";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 412: return "Precondition Failed";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 409: return "Conflict";
	case 416: return "Range Not Satisfiable";
	case 417: return "Expectation Failed";
	case 431: return "Request Header Fields Too Large";
	case 410: return "Gone";
	case 422: return "Unprocessable Content";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	case 505: return "HTTP Version Not Supported";
	case 507: return "Insufficient Storage";
	default:  return "Unknown";
	}
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

int
response_must_close(int status)
{
	return status == 400 || status == 408 || status == 413 ||
	    status == 414 || status == 417 || status == 431 || status == 500 ||
	    status == 503 || status == 505 || status == 507;
}

/* The built-in page for a status: "<status> <reason>" as HTML. */
static void
error_page(struct buf *b, int status)
{
	const char *reason = response_reason(status);

	buf_lit(b, "<!DOCTYPE html>\n<html><head><title>");
	buf_uint(b, (unsigned)status);
	buf_char(b, ' ');
	buf_str(b, reason);
	buf_lit(b, "</title></head><body><h1>");
	buf_uint(b, (unsigned)status);
	buf_char(b, ' ');
	buf_str(b, reason);
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

	if (response_must_close(status) || r == NULL)
		c->c_close = 1;
	response_init(&rs, status, fields, sizeof(fields));
	if (name != NULL) {
		buf_str(&rs.rs_fields, name);
		buf_lit(&rs.rs_fields, ": ");
		buf_str(&rs.rs_fields, value);
		buf_lit(&rs.rs_fields, "\r\n");
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

int
response_options(struct conn *c, struct request *r, struct reply *rp)
{
	char fields[64];
	struct response rs;

	response_init(&rs, 204, fields, sizeof(fields));
	/* what the server does; 405 tells what a given path allows */
	response_field(&rs, "Allow", ENABLE_PUT ? ALLOW_METHODS ", PUT, DELETE" :
	    ALLOW_METHODS);
	return response_send(c, r, rp, &rs);
}
