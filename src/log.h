/* log.h - leveled logging.  With LOG_LEVEL 0 these are empty stubs and
 * log.c is not built, so no logging code is compiled in at all. */
#ifndef MRHTTPD_LOG_H
#define MRHTTPD_LOG_H

#include "mrhttpd.h"

/*
 * What log_access() is told about a reply.  LOG_LEVEL decides which of
 * them make a line: 1 rejected (a head the parser refused, or a request
 * the route did: a path it cannot take, a method it does not serve,
 * failed credentials), 3 failed (>= 400), 4 successful.
 */
struct access {
	const char	*a_line;	/* request line, or the raw first line */
	size_t		 a_line_len;
	const char	*a_referer;
	const char	*a_ua;
	int		 a_status;
	int		 a_rejected;	/* refused by the parser or the route */
	long long	 a_bytes;	/* body bytes sent, -1 for none */
};

#if ENABLE_LOG
int	 log_open(const char *, uid_t);
void	 log_access(const struct conn *, const struct access *);
void	 log_accepted(const struct conn *, const struct request *);
void	 log_msg(const char *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
#define log_error(...)	log_msg("error", __VA_ARGS__)
#define log_warn(...)	log_msg("warn", __VA_ARGS__)
#define log_info(...)	log_msg("info", __VA_ARGS__)
#else
static inline int log_open(const char *p, uid_t u) { (void)p; (void)u; return 0; }
static inline void log_access(const struct conn *c, const struct access *a)
    { (void)c; (void)a; }
static inline void log_accepted(const struct conn *c, const struct request *r)
    { (void)c; (void)r; }
#define log_error(...)	((void)0)
#define log_warn(...)	((void)0)
#define log_info(...)	((void)0)
#endif

#endif
