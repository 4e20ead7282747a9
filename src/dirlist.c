/* dirlist.c - directory listings: AUTO_INDEX 1 JSON, 2 XML, 3 HTML. */
#include "dirlist.h"

/* XXX placeholder until the listing formats land */
int
dirlist_serve(struct conn *c, struct request *r, struct reply *rp, int dirfd)
{
	(void)dirfd;
	return response_error(c, r, rp, 403);
}
