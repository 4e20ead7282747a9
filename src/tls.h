/*
 * tls.h - HTTPS (TLS=1): the TLS transport on mbed TLS, its start-up, and
 * what the rest of the server asks of it.  Without TLS, stubs.
 */
#ifndef MRHTTPD_TLS_H
#define MRHTTPD_TLS_H

#include "mrhttpd.h"

#if ENABLE_TLS
/* Reads TLS_CERT, TLS_CHAIN and TLS_KEY and sets up the library, before
 * the jail and the user change.  Returns 0, or -1 with a message in err. */
int	 tls_init(char *, size_t);
/* The library and its version, for mrhttpd -V. */
const char *tls_library(void);

/* Is a thread free for a step of a handshake (server.c's line)? */
int	 tls_room(void);

/* Came this connection over TLS?  (An HTTP/2 stream's view of it
 * keeps the pointer too.) */
static inline int
conn_secure(const struct conn *c)
{
	return c->c_tls != NULL;
}

/* The reply was cut short: close without a close_notify, which would tell
 * the client that a body ended by the close is whole. */
void	 tls_cut(struct conn *);
#else
static inline int tls_init(char *e, size_t n) { (void)e; (void)n; return 0; }
static inline void tls_cut(struct conn *c) { (void)c; }
static inline const char *tls_library(void) { return ""; }
static inline int tls_room(void) { return 0; }
static inline int conn_secure(const struct conn *c) { (void)c; return 0; }
#endif

#endif
