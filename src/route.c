/*
 * route.c - decides what a request will do (serve a file, run a program,
 * write or delete one), and whether its credentials allow that.  Both
 * are decided here, once, before any handler runs: authorization follows
 * what the request would do, not the name of its method.
 */
#include <string.h>
#include <strings.h>

#include "route.h"
#include "auth.h"
#include "cgi.h"
#include "upload.h"
#include "tls.h"

/* Does a decoded query hold a ".." segment ("x/../y", "/..")? */
static int
climbs(const char *q)
{
	for (; (q = strstr(q, "/..")) != NULL; q += 3)
		if (q[3] == '/' || q[3] == '\0')
			return 1;
	return 0;
}

/*
 * The file system path a request names: PATH_PREFIX checked and removed,
 * the query kept only under QUERY_HACK (when query_hack is set: not for
 * CGI, whose programs get it as QUERY_STRING), percent-decoded and
 * normalised into the request's own path buffer, req_decoded.  Returns
 * its length, or -status.
 */
static ssize_t
decode_path(struct request *r, int query_hack)
{
	const char *src = r->req_target;
	size_t srclen = r->req_path_len;
	int root_only = 0;
	ssize_t len, q;
	char *path = r->req_decoded;

	/* PATH_PREFIX: required, and not part of the file's path */
	if (ENABLE_PATH_PREFIX) {
		size_t n = sizeof(CONFIG_PATH_PREFIX) - 1;

		if (srclen < n || memcmp(src, CONFIG_PATH_PREFIX, n) != 0 ||
		    (srclen > n && src[n] != '/'))
			return -404;
		src += n;
		srclen -= n;
		if (srclen == 0) {	/* "/prefix" alone: its root */
			src = "/";
			srclen = 1;
			root_only = 1;
		}
	}
	if (srclen >= PATH_MAX_LEN)
		return -414;
	if ((len = url_decode(src, srclen, path, PATH_MAX_LEN)) < 0)
		return -400;
	r->req_qhack = 0;
	if ((len = path_normalize(path)) < 0)
		return len == -2 ? -414 : -400;
	/* QUERY_HACK: "?query" is part of the file name below its prefix
	 * (the path's prefix, normalised: "/m/../a?x" is not below "/m/");
	 * decoded on its own, as the target and the query need not be
	 * next to each other (an absolute-form target without a path).  A
	 * ".." in it would climb out of that name ("/a?/../private"), past
	 * the rules of a proxy in front, which leave queries alone: 404 */
	if (ENABLE_QUERY_HACK && query_hack && r->req_query != NULL &&
	    !root_only && strncmp(path, CONFIG_QUERY_HACK,
	    sizeof(CONFIG_QUERY_HACK) - 1) == 0) {
		if ((size_t)len + 2 >= PATH_MAX_LEN)
			return -414;
		path[len] = '?';
		if ((q = url_decode(r->req_query, r->req_query_len,
		    path + len + 1, PATH_MAX_LEN - (size_t)len - 1)) < 0)
			return -400;
		if (climbs(path + len + 1))
			return -404;
		len += 1 + q;
		r->req_qhack = 1;
		if ((len = path_normalize(path)) < 0)
			return len == -2 ? -414 : -400;
	}
	return len;
}

enum route
route_request(struct request *r)
{
	r->req_decoded_len = -400;
	/* only origin-form targets name a path: "*" is for OPTIONS, and
	 * CONNECT's authority-form ("%2fcgi-bin/x" too) is never one */
	if (r->req_method == M_CONNECT)
		return ROUTE_NOT_ALLOWED;	/* we proxy nothing, any target */
	if (r->req_target[0] != '/')
		return r->req_method == M_OPTIONS ? ROUTE_OPTIONS : ROUTE_BAD;
	/* a path that cannot be decoded gets its 400 or 414, whatever the
	 * method: a program below CGI_PATH is not found without it */
	if ((r->req_decoded_len = decode_path(r, 0)) < 0)
		return ROUTE_BAD;
	if (cgi_below(r->req_decoded, r->req_decoded_len))
		return ROUTE_CGI;
	switch (r->req_method) {
	case M_GET:
	case M_HEAD:
	case M_PUT:	/* without PUT_PATH, its stubs answer 405 */
	case M_DELETE:
		/* a file's name may take the query in (QUERY_HACK); one
		 * whose ".." leads below CGI_PATH ("/x?/../cgi-bin/a") names
		 * a program, which is run, never read, written or removed */
		if (ENABLE_QUERY_HACK && r->req_query != NULL &&
		    (r->req_decoded_len = decode_path(r, 1)) >= 0 &&
		    cgi_below(r->req_decoded, r->req_decoded_len)) {
			r->req_decoded_len = -404;
			return ROUTE_BAD;
		}
		return r->req_method == M_PUT ? ROUTE_PUT :
		    r->req_method == M_DELETE ? ROUTE_DELETE : ROUTE_FILE;
	case M_OPTIONS:
		return ROUTE_OPTIONS;
	case M_UNKNOWN:
		return ROUTE_UNKNOWN;
	default:
		return ROUTE_NOT_ALLOWED;
	}
}

/*
 * The Host a request named, without its port, if it is a plain name or
 * address: only those go into a Location.  Its length, or 0.
 */
static size_t
host_name(const char *h)
{
	size_t n;

	if (h == NULL)
		return 0;
	if (h[0] == '[') {
		n = 1 + strspn(h + 1, "0123456789abcdefABCDEF:.");
		if (n < 3 || h[n] != ']')	/* "[]" is no address */
			return 0;
		n++;
	} else
		n = strspn(h, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-");
	if (h[n] == ':' && h[n + 1 + strspn(h + n + 1, "0123456789")] == '\0')
		return n < 256 ? n : 0;
	return n > 0 && n < 256 && h[n] == '\0' ? n : 0;
}

/*
 * TLS_REDIRECT: every request on the plain port goes to the same target
 * over HTTPS, 301 for GET and HEAD, 308 (the method kept) for the rest.
 * The host comes from a Host that is a plain name or address (else
 * SERVER_NAME, else 400): nothing else of the request is echoed but its
 * target, whose characters the parser checked.
 */
static int
redirect_https(struct conn *c, struct request *r, struct reply *rp)
{
	char fields[HEAD_ROOM + 256 + 8 + HEAD_MAX];	/* see server_run */
	const char *host = r->req_host;
	struct response rs;
	struct buf *b;
	size_t n = host_name(host);

	if (n == 0) {	/* SERVER_NAME, without a port it may have */
		host = CONFIG_SERVER_NAME;
		n = host_name(host);
	}
	if (n == 0)
		return response_error(c, r, rp, 400);
	response_init(&rs, r->req_method == M_GET ||
	    r->req_method == M_HEAD ? 301 : 308, fields, sizeof(fields));
	b = response_field_begin(&rs, "Location");
	buf_lit(b, "https://");
	buf_add(b, host, n);
	if (settings.set_tls_port != 443) {
		buf_char(b, ':');
		buf_uint(b, (unsigned)settings.set_tls_port);
	}
	if (r->req_target[0] == '/')
		buf_add(b, r->req_target, r->req_target_len);
	else
		buf_char(b, '/');
	response_field_end(&rs);
	if (b->b_over)
		return response_error(c, r, rp, 414);
	return response_send(c, r, rp, &rs);
}

/* Checks what r may do on route rt, and hands it to its handler. */
static int
route_run(struct conn *c, struct request *r, struct reply *rp, enum route rt)
{
	int ok = route_authorized(c, r, rt);

	/* refused before any handler, as the parser refuses a head: what
	 * LOG_LEVEL 1 logs (upstream's "rejected requests": paths that do
	 * not decode or climb out, methods, failed logins; a 404 is none) */
	if (CONFIG_LOG_LEVEL > 0 && ((ok <= 0 && ok != -503) ||
	    (rt >= ROUTE_NOT_ALLOWED && !(rt == ROUTE_BAD &&
	    r->req_decoded_len == -404))))
		rp->rp_rejected = 1;
	if (ok < 0)
		return response_error(c, r, rp, -ok);
	if (!ok)
		return response_error_field(c, r, rp, 401, "WWW-Authenticate",
		    "Basic realm=\"" CONFIG_AUTH_REALM "\"");
	switch (rt) {
	case ROUTE_CGI:
		return cgi_serve(c, r, rp);
	case ROUTE_FILE:
		return file_serve(c, r, rp);
	case ROUTE_OPTIONS:
		return response_options(c, r, rp);
	case ROUTE_PUT:
		return upload_put(c, r, rp);
	case ROUTE_DELETE:
		return upload_delete(c, r, rp);
	case ROUTE_UNKNOWN:
		return response_error(c, r, rp, 501);
	case ROUTE_BAD:	/* route_request set the status */
		return response_error(c, r, rp, (int)-r->req_decoded_len);
	default:	/* a method we know but do not allow here */
		return response_error_field(c, r, rp, 405, "Allow",
		    response_allow(r));
	}
}

/*
 * The way of every request, whatever its protocol: routes it, checks what
 * it may do, and hands it to its handler.  Returns as the handlers: 0 to
 * go on, -1 to close.
 */
int
route_serve(struct conn *c, struct request *r, struct reply *rp)
{
	if (ENABLE_TLS_REDIRECT && !conn_secure(c))
		return redirect_https(c, r, rp);
	return route_run(c, r, rp, route_request(r));
}

/* The same for a request whose route was decided already (HTTP/2, which
 * runs slow routes on a thread of their own).  Without HTTP2, unused. */
int
route_serve_as(struct conn *c, struct request *r, struct reply *rp,
    enum route rt)
{
	if (!ENABLE_HTTP2)
		return -1;
	return route_run(c, r, rp, rt);
}

#if ENABLE_AUTH
/* AUTH_METHODS' bit for a method: 1 GET, 2 HEAD, 4 PUT, 8 DELETE. */
static int
method_bit(enum method m)
{
	switch (m) {
	case M_GET:	return 1;
	case M_HEAD:	return 2;
	case M_PUT:	return 4;
	case M_DELETE:	return 8;
	default:	return 0;
	}
}

/*
 * Does this route need credentials?  Files, uploads and deletions follow
 * their method's bit.  Running a program needs them whenever a GET of it
 * would, whatever the method (POST, OPTIONS, an unknown one): a program
 * can do anything, so it is never less protected than reading it.  What
 * does nothing (OPTIONS, 405, 501) needs none.
 */
static int
needs_auth(const struct request *r, enum route rt)
{
	int bit = method_bit(r->req_method);

	switch (rt) {
	case ROUTE_CGI:
		return (settings.set_auth_methods & (1 | bit)) != 0;
	case ROUTE_FILE:
	case ROUTE_PUT:
	case ROUTE_DELETE:
		return (settings.set_auth_methods & bit) != 0;
	default:
		return 0;
	}
}

int
route_authorized(struct conn *c, struct request *r, enum route rt)
{
	const char *got = r->req_authorization, *user, *sp;
	size_t n, k;

	if (!needs_auth(r, rt))
		return 1;
	if (ENABLE_AUTH_FILE && got != NULL &&
	    strncasecmp(got, "Basic ", 6) == 0) {
		/* crypt(3) takes milliseconds, known user or not, unless
		 * the password passed it lately */
		if ((user = auth_file_seen(got)) == NULL &&
		    server_yield() != 0)
			return -503;
		if (user != NULL || (user = auth_file_check(got, c->c_addr)) != NULL) {
			r->req_user = user;
			r->req_auth_type = "Basic";
			return 1;
		}
	}
	if (settings.set_auth_len == 0)
		return 0;	/* AUTH_FILE alone */
	if (got == NULL)
		got = "";
	/* the scheme is a case-insensitive token (RFC 9110 11.1), what
	 * follows it is compared exactly, in constant time */
	n = strlen(got);
	sp = memchr(settings.set_auth, ' ', settings.set_auth_len);
	k = sp != NULL ? (size_t)(sp - settings.set_auth) : 0;
	if (n < k || strncasecmp(got, settings.set_auth, k) != 0 ||
	    !ct_equal(got + k, n - k, settings.set_auth + k,
	    settings.set_auth_len - k))
		return 0;
	r->req_user = settings.set_auth_user;
	r->req_auth_type = settings.set_auth_type;
	return 1;
}
#endif
