/* response.c - status lines, common headers and error replies. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrhttpd.h"

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

/*
 * Appends the status line and the headers every reply has: Date, Server,
 * Pragma, and Connection when it differs from the version's default.  The
 * caller adds its own headers and the blank line, and checks b_over.
 */
void
response_head(struct buf *b, int status, int minor, struct conn *c)
{
	time_t now;

	buf_lit(b, "HTTP/1.1 ");
	buf_uint(b, (unsigned)status);
	buf_char(b, ' ');
	buf_str(b, response_reason(status));
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

/*
 * Sends a head that has no body (or whose body the caller sends next).
 * A head that did not fit its buffer is never sent cut short: the reply
 * becomes a 500 instead (whose own head always fits).  Returns as
 * conn_write.
 */
int
response_send_head(struct conn *c, struct request *r, struct reply *rp,
    struct buf *b)
{
	if (b->b_over)
		return response_error(c, r, rp, 500);
	return conn_write(c, b->b_start, buf_len(b));
}

/* Status codes after which the rest of the input cannot be trusted. */
static int
must_close(int status)
{
	return status == 400 || status == 408 || status == 413 ||
	    status == 414 || status == 417 || status == 431 || status == 500 ||
	    status == 503 || status == 505 || status == 507;
}

/*
 * Sends an error reply.  The body is PRIVATE_DIR/<status>.html when that
 * exists, else a small built-in page.  The request path is never echoed.
 * r may be NULL when the request could not be parsed.
 * Returns 0, or -1 when the client is gone.
 */
int
response_error(struct conn *c, struct request *r, struct reply *rp, int status)
{
	return response_error_hdr(c, r, rp, status, NULL);
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

/* The same, with one more header line (CRLF included), e.g. Allow. */
int
response_error_hdr(struct conn *c, struct request *r, struct reply *rp,
    int status, const char *extra)
{
	char head[HEAD_ROOM + 256], body[256];
	struct buf h, p;
	struct iovec iov[2];
	struct stat st;
	int fd = -1, head_only = r != NULL && r->req_method == M_HEAD, rc;
	off_t len;

	if (must_close(status) || r == NULL)
		c->c_close = 1;
	buf_init(&p, body, sizeof(body));
	if (ENABLE_PRIVATE_DIR)
		fd = error_file(status, &st);
	if (fd != -1)
		len = st.st_size;
	else {
		error_page(&p, status);
		len = (off_t)buf_len(&p);
	}

	buf_init(&h, head, sizeof(head));
	response_head(&h, status, r != NULL ? r->req_minor : 1, c);
	if (extra != NULL)
		buf_str(&h, extra);
	else if (status == 503)	/* shed: busy, not broken */
		buf_lit(&h, "Retry-After: 1\r\n");
	buf_lit(&h, "Content-Type: text/html\r\nContent-Length: ");
	buf_uint(&h, (unsigned long long)len);
	buf_lit(&h, "\r\n\r\n");
	if (h.b_over && status != 500) {
		/* a header the caller made too long: a plain 500 instead */
		if (fd != -1)
			close(fd);
		return response_error_hdr(c, r, rp, 500, NULL);
	}
	iov[0].iov_base = head;
	iov[0].iov_len = buf_len(&h);
	iov[1].iov_base = body;
	iov[1].iov_len = fd == -1 && !head_only ? (size_t)len : 0;
	rp->rp_status = status;
	rp->rp_bytes = head_only ? 0 : len;
	rc = conn_writev(c, iov, 2, 0);
	if (fd != -1) {
		if (rc == 0 && !head_only)
			rc = conn_sendfile(c, fd, 0, len);
		close(fd);
	}
	return rc;
}

/* OPTIONS, for "*" or any path: 204 with the methods we serve. */
int
response_options(struct conn *c, struct request *r, struct reply *rp)
{
	char head[HEAD_ROOM];
	struct buf b;

	buf_init(&b, head, sizeof(head));
	response_head(&b, 204, r->req_minor, c);
	/* what the server does; 405 tells what a given path allows */
	if (ENABLE_PUT)
		buf_lit(&b, "Allow: GET, HEAD, OPTIONS, PUT, DELETE\r\n\r\n");
	else
		buf_lit(&b, ALLOW_HEADER "\r\n");
	rp->rp_status = 204;
	rp->rp_bytes = 0;
	return response_send_head(c, r, rp, &b);
}
