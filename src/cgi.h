/* cgi.h - CGI/1.1 below CGI_PATH.  Without CGI, a stub. */
#ifndef MRHTTPD_CGI_H
#define MRHTTPD_CGI_H

#include "mrhttpd.h"

enum { CGI_NOT_MINE = 1 };	/* cgi_serve: not below CGI_PATH */

#if ENABLE_CGI
/*
 * Runs the program a request below CGI_PATH names, any method.  Returns
 * CGI_NOT_MINE for other paths, else 0 when the connection may go on and
 * -1 when it must close.
 */
int	 cgi_serve(struct conn *, struct request *, struct reply *);
#else
static inline int
cgi_serve(struct conn *c, struct request *r, struct reply *rp)
{
	(void)c; (void)r; (void)rp;
	return CGI_NOT_MINE;
}
#endif

#endif
