/* upload.h - PUT and DELETE below PUT_PATH.  Without PUT_PATH, stubs: 405. */
#ifndef MRHTTPD_UPLOAD_H
#define MRHTTPD_UPLOAD_H

#include "response.h"

#if ENABLE_PUT
int	 upload_put(struct conn *, struct request *, struct reply *);
int	 upload_delete(struct conn *, struct request *, struct reply *);
#else
static inline int
upload_put(struct conn *c, struct request *r, struct reply *rp)
{
	return response_error_field(c, r, rp, 405, "Allow", ALLOW_METHODS);
}

static inline int
upload_delete(struct conn *c, struct request *r, struct reply *rp)
{
	return response_error_field(c, r, rp, 405, "Allow", ALLOW_METHODS);
}
#endif

#endif
