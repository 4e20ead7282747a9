/*
 * auth.c - AUTH_FILE: lines of "user:hash" with crypt(3) hashes (as made
 * by mkpasswd or openssl passwd -6), so that no password is kept in the
 * clear, in the binary or anywhere.  Read once at start-up, before the
 * jail; a change needs a restart.
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

static struct {
	const char	*u_name;
	const char	*u_hash;
} users[AUTH_USERS_MAX];
static int nusers;
/* crypt(3) keeps its result in static storage in glibc and musl alike.
 * Only requests that check a password take this lock. */
static pthread_mutex_t crypt_lock = PTHREAD_MUTEX_INITIALIZER;

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

/*
 * Checks "Basic user:password" against AUTH_FILE.  Returns the user's
 * name (kept for good), or NULL.  An unknown user costs the same crypt(3)
 * as a known one, against the first user's hash, so that the time taken
 * does not tell which names exist.
 */
const char *
auth_file_check(const char *v)
{
	char cred[512], *pass, *h;
	const char *hash;
	ssize_t n;
	int u, ok = 0;

	/* a NUL would cut the password short: "secret\0junk" is no secret */
	if (v == NULL || nusers == 0 || strncasecmp(v, "Basic ", 6) != 0 ||
	    (n = base64_decode(v + 6, cred, sizeof(cred))) < 0 ||
	    strlen(cred) != (size_t)n || (pass = strchr(cred, ':')) == NULL)
		return NULL;
	*pass++ = '\0';
	for (u = 0; u < nusers; u++)
		if (strcmp(users[u].u_name, cred) == 0)
			break;
	hash = users[u < nusers ? u : 0].u_hash;
	pthread_mutex_lock(&crypt_lock);
	h = crypt(pass, hash);
	/* the whole hash, whatever matches first */
	if (h != NULL && *hash != '\0' && ct_equal(h, strlen(h), hash,
	    strlen(hash)))
		ok = u < nusers;
	pthread_mutex_unlock(&crypt_lock);
	explicit_bzero(cred, sizeof(cred));
	return ok ? users[u].u_name : NULL;
}
