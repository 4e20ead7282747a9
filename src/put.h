/* put.h - PUT and DELETE below PUT_PATH.  Without PUT_PATH, stubs: 405. */
#ifndef MRHTTPD_PUT_H
#define MRHTTPD_PUT_H

#include "mrhttpd.h"

#if ENABLE_PUT
int	 put_serve(struct conn *, struct request *, struct reply *);
int	 delete_serve(struct conn *, struct request *, struct reply *);
#else
static inline int
put_serve(struct conn *c, struct request *r, struct reply *rp)
{
	return response_error_hdr(c, r, rp, 405, ALLOW_HEADER);
}

static inline int
delete_serve(struct conn *c, struct request *r, struct reply *rp)
{
	return response_error_hdr(c, r, rp, 405, ALLOW_HEADER);
}
#endif

#endif
