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
 * Writes the status line and the headers every reply has: Date, Server,
 * Pragma, and Connection when it differs from the version's default.
 * Returns the end; the caller adds its own headers and the blank line.
 * Needs at most 200 bytes plus the length of PRAGMA.
 */
char *
response_head(char *p, int status, int minor, struct conn *c)
{
	const char *reason = response_reason(status);
	time_t now;

	p = PUTS(p, "HTTP/1.1 ");
	p = fmt_uint(p, (unsigned)status);
	*p++ = ' ';
	p = put(p, reason, strlen(reason));
	p = PUTS(p, "\r\nDate: ");
	p = put(p, http_date_now(&now), 29);
	p = PUTS(p, "\r\nServer: mrhttpd/" MRHTTPD_VERSION "\r\n");
	if (ENABLE_PRAGMA)
		p = PUTS(p, "Pragma: " CONFIG_PRAGMA "\r\n");
	if (c->c_close)
		p = PUTS(p, "Connection: close\r\n");
	else if (minor == 0)
		p = PUTS(p, "Connection: keep-alive\r\n");
	return p;
}

/* Status codes after which the rest of the input cannot be trusted. */
static int
must_close(int status)
{
	return status == 400 || status == 408 || status == 413 ||
	    status == 414 || status == 417 || status == 431 || status == 500 ||
	    status == 505 || status == 507;
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

/* The same, with one more header line (CRLF included), e.g. Allow. */
int
response_error_hdr(struct conn *c, struct request *r, struct reply *rp,
    int status, const char *extra)
{
	char head[640], body[256], *p, *b;
	const char *reason = response_reason(status);
	struct iovec iov[2];
	struct stat st;
	int fd = -1, head_only = r != NULL && r->req_method == M_HEAD, rc;
	off_t len;

	if (must_close(status) || r == NULL)
		c->c_close = 1;
	if (ENABLE_PRIVATE_DIR) {
		char path[sizeof(CONFIG_PRIVATE_DIR) + 16];

		p = PUTS(path, CONFIG_PRIVATE_DIR "/");
		p = fmt_uint(p, (unsigned)status);
		memcpy(p, ".html", 6);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd != -1 && (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -1;
		}
	}
	if (fd != -1)
		len = st.st_size;
	else {
		b = PUTS(body, "<!DOCTYPE html>\n<html><head><title>");
		b = fmt_uint(b, (unsigned)status);
		*b++ = ' ';
		b = put(b, reason, strlen(reason));
		b = PUTS(b, "</title></head><body><h1>");
		b = fmt_uint(b, (unsigned)status);
		*b++ = ' ';
		b = put(b, reason, strlen(reason));
		b = PUTS(b, "</h1></body></html>\n");
		len = b - body;
	}

	p = response_head(head, status, r != NULL ? r->req_minor : 1, c);
	if (extra != NULL)
		p = put(p, extra, strlen(extra));
	p = PUTS(p, "Content-Type: text/html\r\nContent-Length: ");
	p = fmt_uint(p, (unsigned long long)len);
	p = PUTS(p, "\r\n\r\n");
	iov[0].iov_base = head;
	iov[0].iov_len = (size_t)(p - head);
	iov[1].iov_base = body;
	iov[1].iov_len = fd == -1 && !head_only ? (size_t)len : 0;
	rp->rp_status = status;
	rp->rp_bytes = head_only ? 0 : len;
	rc = conn_writev(c, iov, 2);
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
	char head[320 + sizeof(CONFIG_PRAGMA)], *p;

	p = response_head(head, 204, r->req_minor, c);
	/* what the server does; 405 tells what a given path allows */
	if (ENABLE_PUT)
		p = PUTS(p, "Allow: GET, HEAD, OPTIONS, PUT, DELETE\r\n\r\n");
	else
		p = PUTS(p, ALLOW_HEADER "\r\n");
	rp->rp_status = 204;
	rp->rp_bytes = 0;
	return conn_write(c, head, (size_t)(p - head));
}
