/* route.h - what a request will do, decided once, before any handler. */
#ifndef MRHTTPD_ROUTE_H
#define MRHTTPD_ROUTE_H

#include "mrhttpd.h"

enum route {
	ROUTE_FILE,		/* GET, HEAD: a file or a listing */
	ROUTE_CGI,		/* run a program below CGI_PATH, any method */
	ROUTE_PUT,		/* write a file below PUT_PATH */
	ROUTE_DELETE,		/* remove one */
	ROUTE_OPTIONS,		/* what the server allows: reads nothing */
	ROUTE_NOT_ALLOWED,	/* a method we know but do not serve: 405 */
	ROUTE_UNKNOWN,		/* a method we do not know: 501 */
	ROUTE_BAD,		/* "*" with a method other than OPTIONS: 400;
				 * a path that does not decode: its status
				 * (400, 414, 404 outside PATH_PREFIX) */
};

/* Where r goes.  Decodes its path into req_decoded on the way. */
enum route route_request(struct request *);

/* Routes r, checks it is allowed, and runs its handler: 0, or -1 to close. */
int	 route_serve(struct conn *, struct request *, struct reply *);
/* The same, on the route route_request() gave (TLS_REDIRECT aside). */
int	 route_serve_as(struct conn *, struct request *, struct reply *,
	    enum route);

/*
 * May r do what its route says?  Returns 1, with req_user and
 * req_auth_type set when credentials were checked and passed, 0 for a
 * 401, or -503 when checking would block and no thread can take the turn
 * meanwhile.  Without AUTH, a stub: always.
 */
#if ENABLE_AUTH
int	 route_authorized(struct conn *, struct request *, enum route);
#else
static inline int
route_authorized(struct conn *c, struct request *r, enum route rt)
{
	(void)c; (void)r; (void)rt;
	return 1;
}
#endif

#endif
