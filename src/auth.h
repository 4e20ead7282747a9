/* auth.h - AUTH_FILE: users with crypt(3) hashes.  Without it, stubs. */
#ifndef MRHTTPD_AUTH_H
#define MRHTTPD_AUTH_H

#include "mrhttpd.h"

#if ENABLE_AUTH_FILE
/* Reads AUTH_FILE (at prefix + path) at start-up.  Returns 0, or -1. */
int	 auth_load(const char *);
/* Does "Basic ..." name a user of AUTH_FILE with the right password?
 * Returns the user's name, or NULL.  Takes milliseconds (crypt(3)), and
 * waits for the checks ahead in line, one per client address (the second
 * argument, printable) a round: the caller yields the turn first. */
const char *auth_file_check(const char *, const char *);
/* The same, answered from memory without crypt(3) for a password that
 * passed it lately (auth.c); NULL otherwise, right or wrong. */
const char *auth_file_seen(const char *);
#else
static inline int auth_load(const char *p) { (void)p; return 0; }
static inline const char *auth_file_check(const char *v, const char *a)
    { (void)v; (void)a; return NULL; }
static inline const char *auth_file_seen(const char *v)
    { (void)v; return NULL; }
#endif

#endif
