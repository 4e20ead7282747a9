/* peer.h - open connections per client address (MAX_CONNECTIONS_PER_IP).
 * Without the limit, stubs. */
#ifndef MRHTTPD_PEER_H
#define MRHTTPD_PEER_H

#include <sys/socket.h>

#include "mrhttpd.h"

enum { PEER_KEY = 16 };		/* an address as IPv6 (IPv4 mapped) */

#if ENABLE_PER_IP
/* Sets up the table, at start-up.  Returns 0 or -1. */
int	 peer_init(void);
/* Counts a new connection from ss, its key written to key.  Returns 0, or
 * -1 when that address has MAX_CONNECTIONS_PER_IP open already. */
int	 peer_add(const struct sockaddr_storage *, unsigned char *);
/* The connection with this key closed. */
void	 peer_del(const unsigned char *);
/* One of key's HTTP/2 stream threads starts (+1) or ends (-1).  Returns
 * 0, or -1 when the address has MAX_CONNECTIONS_PER_IP running. */
int	 peer_thread(const unsigned char *, int);
/* key's CGI_MAX places change by delta (0: asks).  Returns how many it
 * holds then; 0 for an address with no connection open. */
int	 peer_cgi(const unsigned char *, int);
#else
static inline int peer_init(void) { return 0; }
static inline int
peer_add(const struct sockaddr_storage *ss, unsigned char *key)
{
	(void)ss;
	memset(key, 0, PEER_KEY);	/* the slot keeps it, unused */
	return 0;
}
static inline void peer_del(const unsigned char *key) { (void)key; }
static inline int
peer_thread(const unsigned char *key, int delta)
{
	(void)key;
	(void)delta;
	return 0;
}
static inline int
peer_cgi(const unsigned char *key, int delta)
{
	(void)key;
	(void)delta;
	return 0;
}
#endif

#endif
