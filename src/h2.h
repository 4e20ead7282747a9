/*
 * h2.h - HTTP/2 (HTTP2=1): the second protocol, on nghttp2 (h2.c).
 * Without HTTP2, stubs.
 */
#ifndef MRHTTPD_H2_H
#define MRHTTPD_H2_H

#include "mrhttpd.h"
#include "protocol.h"

extern const struct protocol h2_protocol;

#if ENABLE_HTTP2
/* Sets up what every session shares, at start.  0, or -1. */
int	 h2_init(void);
/* The library and its version, for mrhttpd -V. */
const char *h2_library(void);
/* Do the first n bytes of a connection begin the HTTP/2 preface? */
int	 h2_preface(const char *, size_t);
/*
 * An HTTP/1.1 request asking for h2c (Upgrade: h2c, HTTP2-Settings):
 * answers 101 and makes it stream 1 of a new session.  headlen is the
 * request head's length in c_buf.  Returns 1 when switched (the caller
 * goes on with h2_protocol), 0 to serve it as HTTP/1.1.
 */
int	 h2_upgrade(struct conn *, struct request *, size_t);
/* Ends a parked connection's session: GOAWAY, without waiting, and the
 * memory; then the connection is closed. */
void	 h2_close(struct conn *);
/* A stream's thread that polls c_hup for more of its body (a program's
 * pump) marks that wait (on) so that it may be cut, and unmarks it
 * after: -1 when it was cut. */
int	 h2_stream_wait(struct conn *, int);
/* Wakes such a thread from its poll (cgi.c cut its wait). */
void	 h2_stream_poke(struct conn *);
/* Cuts a stream thread's wait for its client to take the reply (cgi.c,
 * for a place of CGI_MAX): the stream is reset, its thread ends. */
void	 h2_stream_cut(struct conn *);
/* The address (peer.c) of such a stream's client. */
const unsigned char *h2_stream_peer(struct conn *);
#else
static inline int h2_init(void) { return 0; }
static inline const char *h2_library(void) { return ""; }
static inline int h2_preface(const char *p, size_t n) { (void)p; (void)n; return 0; }
static inline int h2_upgrade(struct conn *c, struct request *r, size_t n)
{ (void)c; (void)r; (void)n; return 0; }
static inline void h2_close(struct conn *c) { (void)c; }
static inline int h2_stream_wait(struct conn *c, int on) { (void)c; (void)on; return 0; }
static inline void h2_stream_poke(struct conn *c) { (void)c; }
static inline void h2_stream_cut(struct conn *c) { (void)c; }
static inline const unsigned char *h2_stream_peer(struct conn *c) { (void)c; return NULL; }
#endif

#endif
