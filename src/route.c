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
#include "put.h"

enum route
route_request(struct conn *c, struct request *r)
{
	/* only origin-form targets name a path: "*" is for OPTIONS, and
	 * CONNECT's authority-form ("%2fcgi-bin/x" too) is never one */
	if (r->req_method == M_CONNECT)
		return ROUTE_NOT_ALLOWED;	/* we proxy nothing, any target */
	if (r->req_target[0] != '/')
		return r->req_method == M_OPTIONS ? ROUTE_OPTIONS : ROUTE_BAD;
	if (cgi_match(c, r))
		return ROUTE_CGI;
	switch (r->req_method) {
	case M_GET:
	case M_HEAD:
		return ROUTE_FILE;
	case M_OPTIONS:
		return ROUTE_OPTIONS;
	case M_PUT:	/* without PUT_PATH, its stubs answer 405 */
		return ROUTE_PUT;
	case M_DELETE:
		return ROUTE_DELETE;
	case M_UNKNOWN:
		return ROUTE_UNKNOWN;
	default:
		return ROUTE_NOT_ALLOWED;
	}
}

/*
 * The way of every request, whatever its protocol: routes it, checks what
 * it may do, and hands it to its handler.  Returns as the handlers: 0 to go on, -1 to close.
 */
int
route_serve(struct conn *c, struct request *r, struct reply *rp)
{
	enum route rt = route_request(c, r);
	int ok;

	if ((ok = route_authorized(r, rt)) < 0)
		return response_error_hdr(c, r, rp, -ok, "Retry-After: 1\r\n");
	if (!ok)
		return response_error_hdr(c, r, rp, 401,
		    "WWW-Authenticate: Basic realm=\"" CONFIG_AUTH_REALM "\"\r\n");
	switch (rt) {
	case ROUTE_CGI:
		return cgi_serve(c, r, rp);
	case ROUTE_FILE:
		return file_serve(c, r, rp);
	case ROUTE_OPTIONS:
		return response_options(c, r, rp);
	case ROUTE_PUT:
		return put_serve(c, r, rp);
	case ROUTE_DELETE:
		return delete_serve(c, r, rp);
	case ROUTE_UNKNOWN:
		return response_error(c, r, rp, 501);
	case ROUTE_BAD:
		return response_error(c, r, rp, 400);
	default:	/* a method we know but do not allow here */
		return response_error_hdr(c, r, rp, 405, ALLOW_HEADER);
	}
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
		return (CONFIG_AUTH_METHODS & (1 | bit)) != 0;
	case ROUTE_FILE:
	case ROUTE_PUT:
	case ROUTE_DELETE:
		return (CONFIG_AUTH_METHODS & bit) != 0;
	default:
		return 0;
	}
}

int
route_authorized(struct request *r, enum route rt)
{
	const char *got = r->req_authorization, *user;

	if (!needs_auth(r, rt))
		return 1;
	if (ENABLE_AUTH_FILE && got != NULL &&
	    strncasecmp(got, "Basic ", 6) == 0) {
		/* crypt(3) takes milliseconds, known user or not */
		if (server_yield() != 0)
			return -503;
		if ((user = auth_file_check(got)) != NULL) {
			r->req_user = user;
			r->req_auth_type = "Basic";
			return 1;
		}
	}
	if (settings.set_auth_len == 0)
		return 0;	/* AUTH_FILE alone */
	if (got == NULL)
		got = "";
	if (!ct_equal(got, strlen(got), settings.set_auth,
	    settings.set_auth_len))
		return 0;
	r->req_user = settings.set_auth_user;
	r->req_auth_type = settings.set_auth_type;
	return 1;
}
#endif
