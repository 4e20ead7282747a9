/* upload.h - PUT and DELETE below PUT_PATH.  Without PUT_PATH, stubs: 405. */
#ifndef MRHTTPD_UPLOAD_H
#define MRHTTPD_UPLOAD_H

#include "response.h"

#if ENABLE_PUT
/* Is a decoded path below PUT_PATH, where PUT and DELETE are allowed? */
int	 upload_below(const char *, ssize_t);
int	 upload_put(struct conn *, struct request *, struct reply *);
int	 upload_delete(struct conn *, struct request *, struct reply *);
/* At start-up: removes what uploads cut short by a crash left below PUT_PATH. */
void	 upload_sweep(void);
#else
static inline int
upload_below(const char *path, ssize_t len)
{
	(void)path; (void)len;
	return 0;
}

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

static inline void
upload_sweep(void)
{
}
#endif

#endif
