/* dirlist.h - directory listings (AUTO_INDEX).  Without them, a stub. */
#ifndef MRHTTPD_DIRLIST_H
#define MRHTTPD_DIRLIST_H

#include "response.h"

/* AUTO_INDEX's values: the listing's format. */
enum { LIST_OFF, LIST_JSON, LIST_XML, LIST_HTML };

#if ENABLE_AUTO_INDEX
/*
 * Answers a GET or HEAD for a directory that has no index file with a
 * listing in the AUTO_INDEX format (1 JSON, 2 XML, 3 HTML).  dirfd is the
 * open directory (the caller closes it); the request's path ends in '/'.
 * Returns 0 when the connection may go on, -1 when it must be closed.
 */
int	 dirlist_serve(struct conn *, struct request *, struct reply *, int);
#else
static inline int
dirlist_serve(struct conn *c, struct request *r, struct reply *rp, int fd)
{
	(void)fd;
	return response_error(c, r, rp, 403);
}
#endif

#endif
