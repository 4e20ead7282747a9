/* cgi.h - CGI/1.1 below CGI_PATH.  Without CGI, a stub. */
#ifndef MRHTTPD_CGI_H
#define MRHTTPD_CGI_H

#include "response.h"

/* A program's header block, parsed (cgi_parse_head). */
struct cgi_head {
	int		 ch_status;	/* Status, 0 when none */
	const char	*ch_reason;	/* its reason phrase, or NULL when none */
	char		*ch_location;	/* Location, or NULL */
	long long	 ch_clen;	/* Content-Length, -1 when none */
	struct buf	 ch_fields;	/* the fields passed on, CRLF lines */
};
int	 cgi_parse_head(char *, size_t, struct cgi_head *);

#if ENABLE_CGI
/* Is a decoded, normalised path CGI_PATH or below it? */
int	 cgi_below(const char *, ssize_t);
/*
 * Runs the program a request below CGI_PATH names, any method.  Returns 0
 * when the connection may go on and -1 when it must close.
 */
int	 cgi_serve(struct conn *, struct request *, struct reply *);
/* At the server's stop: ends the programs still running. */
void	 cgi_end_all(void);
#else
static inline int
cgi_below(const char *path, ssize_t len)
{
	(void)path; (void)len;
	return 0;
}
static inline int
cgi_serve(struct conn *c, struct request *r, struct reply *rp)
{
	return response_error(c, r, rp, 404);
}
static inline void cgi_end_all(void) { }
#endif

#endif
