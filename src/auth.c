/*
 * auth.c - AUTH_FILE: lines of "user:hash" with crypt(3) hashes (as made
 * by mkpasswd or openssl passwd -6), so that no password is stored in
 * the clear, in the binary or on disk.  Read once at start-up, before the
 * jail; a change needs a restart.
 *
 * crypt(3) costs milliseconds on a PC and tens of them on a router's CPU,
 * for every request of a page behind a login.  So a password that passed
 * it is kept in memory a while (AUTH_SEEN_MS from that check, in one of
 * AUTH_SEEN entries; once expired, wiped by the next check that looks,
 * or when replaced) and a request that brings it again is let in without
 * crypt(3): it neither waits for another's crypt(3) nor takes its lock.
 * Only a right password gets in there.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"

enum { AUTH_FILE_MAX = 65536, AUTH_USERS_MAX = 256 };
enum { AUTH_SEEN = 8, AUTH_SEEN_MS = 5 * 60 * 1000, AUTH_SEEN_PASS = 128 };

static struct {
	const char	*u_name;
	const char	*u_hash;
} users[AUTH_USERS_MAX];
static int nusers;
/*
 * crypt(3) keeps its result in static storage in glibc and musl alike, so
 * one check runs at a time, and the turn goes round the addresses in line:
 * each waiter has a round, one past the last of its address's waiters
 * ahead of it (or the round served last), and the lowest round goes first,
 * the earliest of equals.  An address with many checks waiting gets one
 * per round like any other, so a flood of wrong passwords from one address
 * delays another's login by one check, not by all of them.  Only requests
 * that check a password take crypt_lock.
 */
struct waiter {
	const char	*w_addr;	/* the client's address, printable */
	unsigned long	 w_round;
	int		 w_go;		/* its turn now */
	pthread_cond_t	 w_cond;
	struct waiter	*w_next;
};
static pthread_mutex_t crypt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct waiter *queue;		/* in order of arrival */
static unsigned long served;		/* the round of the last turn given */
static int busy;			/* a check runs */

/* Passwords that passed crypt(3) lately, under seen_lock. */
static struct seen {
	long long	 s_until;	/* 0: free */
	int		 s_user;
	size_t		 s_len;
	char		 s_pass[AUTH_SEEN_PASS];
} seen[AUTH_SEEN];
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

int
auth_load(const char *prefix)
{
	char path[2048], *buf, *line, *next, *colon;
	ssize_t n, got = 0;
	int fd;

	snprintf(path, sizeof(path), "%s%s", prefix, CONFIG_AUTH_FILE);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return -1;
	/* once, at start-up: the one allocation that lives for good */
	if ((buf = malloc(AUTH_FILE_MAX + 1)) == NULL) {
		close(fd);
		return -1;
	}
	while (got < AUTH_FILE_MAX &&
	    (n = read(fd, buf + got, (size_t)(AUTH_FILE_MAX - got))) > 0)
		got += n;
	close(fd);
	if (got == AUTH_FILE_MAX) {
		errno = EFBIG;
		return -1;
	}
	buf[got] = '\0';
	for (line = buf; *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (*line == '#' || *line == '\0' ||
		    (colon = strchr(line, ':')) == NULL || colon == line)
			continue;
		*colon = '\0';
		if (nusers == AUTH_USERS_MAX) {
			errno = E2BIG;
			return -1;
		}
		users[nusers].u_name = line;
		users[nusers++].u_hash = colon + 1;
		/* an optional third field (as in /etc/shadow) is cut off */
		if ((colon = strchr(colon + 1, ':')) != NULL)
			*colon = '\0';
	}
	return 0;
}

/* Splits "Basic user:password" into cred: the user's index (nusers when
 * unknown) and *pass, or -1 when it is none of that.  A NUL would cut
 * the password short: "secret\0junk" is no secret. */
static int
auth_parse(const char *v, char *cred, size_t n, char **pass)
{
	ssize_t len;
	int u;

	if (v == NULL || nusers == 0 || strncasecmp(v, "Basic ", 6) != 0 ||
	    (len = base64_decode(v + 6, cred, n)) < 0 ||
	    strlen(cred) != (size_t)len || (*pass = strchr(cred, ':')) == NULL)
		return -1;
	*(*pass)++ = '\0';
	for (u = 0; u < nusers; u++)
		if (strcmp(users[u].u_name, cred) == 0)
			break;
	return u;
}

/* Did user u's pass pass crypt(3) lately (1)?  With add, it just did:
 * kept, in a free entry or the oldest.  Expired entries are wiped. */
static int
seen_pass(int u, const char *pass, int add)
{
	long long now = now_ms();
	size_t n = strlen(pass);
	struct seen *e, *old = &seen[0];
	int hit = 0;

	if (n >= AUTH_SEEN_PASS)
		return 0;	/* not kept: crypt(3) each time */
	pthread_mutex_lock(&seen_lock);
	for (e = seen; e < seen + AUTH_SEEN; e++) {
		if (e->s_until != 0 && e->s_until <= now)
			explicit_bzero(e, sizeof(*e));
		if (e->s_until < old->s_until)
			old = e;
		/* the time taken depends on the kept length alone */
		if (e->s_until != 0 && e->s_user == u &&
		    ct_equal(pass, n, e->s_pass, e->s_len))
			hit = 1;
	}
	if (add && !hit) {
		explicit_bzero(old, sizeof(*old));	/* a longer one's tail */
		memcpy(old->s_pass, pass, n);
		old->s_len = n;
		old->s_user = u;
		old->s_until = now + AUTH_SEEN_MS;
	}
	pthread_mutex_unlock(&seen_lock);
	return hit;
}

/* Waits for the turn at crypt(3), in addr's round. */
static void
crypt_take(const char *addr)
{
	struct waiter w = { addr, 0, 0, PTHREAD_COND_INITIALIZER, NULL },
	    **pp;

	pthread_mutex_lock(&crypt_lock);
	w.w_round = served + 1;
	if (!busy) {
		busy = 1;
		pthread_mutex_unlock(&crypt_lock);
		return;
	}
	for (pp = &queue; *pp != NULL; pp = &(*pp)->w_next)
		if (strcmp((*pp)->w_addr, addr) == 0 &&
		    (*pp)->w_round >= w.w_round)
			w.w_round = (*pp)->w_round + 1;
	*pp = &w;
	while (!w.w_go)
		pthread_cond_wait(&w.w_cond, &crypt_lock);
	pthread_mutex_unlock(&crypt_lock);
	pthread_cond_destroy(&w.w_cond);
}

/* Gives the turn to the waiter of the lowest round, or frees it. */
static void
crypt_give(void)
{
	struct waiter **pp, **next = NULL, *w;

	pthread_mutex_lock(&crypt_lock);
	for (pp = &queue; *pp != NULL; pp = &(*pp)->w_next)
		if (next == NULL || (*pp)->w_round < (*next)->w_round)
			next = pp;
	if (next == NULL)
		busy = 0;
	else {
		w = *next;
		*next = w->w_next;
		served = w->w_round;
		w->w_go = 1;
		/* under the lock: w cannot leave, and go, before this */
		pthread_cond_signal(&w->w_cond);
	}
	pthread_mutex_unlock(&crypt_lock);
}

const char *
auth_file_seen(const char *v)
{
	char cred[512], *pass;
	int u, ok;

	u = auth_parse(v, cred, sizeof(cred), &pass);
	ok = u >= 0 && u < nusers && seen_pass(u, pass, 0);
	explicit_bzero(cred, sizeof(cred));
	return ok ? users[u].u_name : NULL;
}

/*
 * Checks "Basic user:password" against AUTH_FILE.  Returns the user's
 * name (kept for good), or NULL.  An unknown user costs the same crypt(3)
 * as a known one, against the first user's hash, so that the time taken
 * does not tell which names exist.
 */
const char *
auth_file_check(const char *v, const char *addr)
{
	char cred[512], *pass, *h;
	const char *hash;
	int u, ok = 0;

	if ((u = auth_parse(v, cred, sizeof(cred), &pass)) < 0)
		return NULL;
	hash = users[u < nusers ? u : 0].u_hash;
	crypt_take(addr);
	/* the same password may have passed while this one waited (a
	 * browser's requests in parallel): no second crypt(3) */
	if (u < nusers && seen_pass(u, pass, 0))
		ok = 1;
	else if ((h = crypt(pass, hash)) != NULL && *hash != '\0' &&
	    ct_equal(h, strlen(h), hash, strlen(hash)))
		ok = u < nusers;	/* the whole hash, whatever matches first */
	crypt_give();
	if (ok)
		(void)seen_pass(u, pass, 1);
	explicit_bzero(cred, sizeof(cred));
	return ok ? users[u].u_name : NULL;
}
