/* file.c - map a request to a file below PUBLIC_DIR and send it. */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "response.h"
#include "cgi.h"
#include "dirlist.h"
#include "log.h"

/* file_serve's fields: its ETag, type, dates and ranges */
enum { FIELDS_SIZE = 512 };

enum {
	EXT_MAX = 4,		/* EXT_FILE_CMD programs running at once */
	EXT_TIMEOUT_MS = 2000,	/* how long one may take */
	EXT_CACHE = 16,		/* answers kept, for any thread */
};
static int ext_running;		/* atomic */
static int ext_failed;		/* atomic: EXT_FILE_CMD would not start, told */

/*
 * EXT_FILE_CMD's answers, shared by all threads (a connection's next
 * request may be served by another thread, with another file cache), so
 * that a file costs one run until it changes.  Only requests for files
 * of unknown suffixes come here, so a lock is fine.
 */
static struct {
	dev_t		 x_dev;
	ino_t		 x_ino;
	off_t		 x_size;
	struct timespec	 x_mtime;
	char		 x_type[80];	/* "" when empty */
} ext_cache[EXT_CACHE];
static unsigned ext_next;
static pthread_mutex_t ext_lock = PTHREAD_MUTEX_INITIALIZER;

/* Looks st up (out NULL), or stores out for it.  Returns 1 when found. */
static int
ext_cached(const struct stat *st, char *out, size_t outsz, const char *type)
{
	int i, found = 0;

	pthread_mutex_lock(&ext_lock);
	for (i = 0; i < EXT_CACHE && !found; i++)
		found = ext_cache[i].x_type[0] != '\0' &&
		    ext_cache[i].x_ino == st->st_ino &&
		    ext_cache[i].x_dev == st->st_dev &&
		    ext_cache[i].x_size == st->st_size &&
		    ext_cache[i].x_mtime.tv_sec == st->st_mtim.tv_sec &&
		    ext_cache[i].x_mtime.tv_nsec == st->st_mtim.tv_nsec;
	if (found && type == NULL)
		concat(out, outsz, ext_cache[i - 1].x_type, NULL);
	if (!found && type != NULL && strlen(type) < sizeof(ext_cache[0].x_type)) {
		i = (int)(ext_next++ % EXT_CACHE);
		ext_cache[i].x_dev = st->st_dev;
		ext_cache[i].x_ino = st->st_ino;
		ext_cache[i].x_size = st->st_size;
		ext_cache[i].x_mtime = st->st_mtim;
		concat(ext_cache[i].x_type, sizeof(ext_cache[i].x_type), type, NULL);
	}
	pthread_mutex_unlock(&ext_lock);
	return found;
}

/* Reads the program's answer into out until it ends, the buffer is full
 * or the deadline passes.  Returns the length, or -1 on time-out. */
static ssize_t
ext_read(int fd, char *out, size_t outsz)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	long long deadline = now_ms() + EXT_TIMEOUT_MS, left;
	ssize_t n = 0, r;

	while ((size_t)n < outsz - 1) {
		if ((left = deadline - now_ms()) <= 0 ||
		    poll(&pfd, 1, (int)left) == 0)
			return -1;
		if ((r = read(fd, out + n, outsz - 1 - (size_t)n)) > 0)
			n += r;
		else if (r == 0 || errno != EINTR)
			break;
	}
	return n;
}

/*
 * Waits for the program to end, within EXT_TIMEOUT_MS; kills it at once
 * with now set, or when it has not ended by then.  Returns 0 when it
 * ended by itself.
 */
static int
ext_reap(pid_t pid, int now, int *status)
{
	if (!now && wait_exit(pid, now_ms() + EXT_TIMEOUT_MS, status) == 0)
		return 0;
	kill_wait(pid, 0, status);
	return -1;
}

/*
 * EXT_FILE_CMD could not be run: said once.  posix_spawn reports a program
 * that is not there; one whose libraries are not (in a jail), or a
 * posix_spawn that cannot report (qemu-user), ends with 127 instead.
 */
static void
ext_cannot_run(const char *why)
{
	(void)why;	/* for the log alone, which a build may lack */
	if (!__atomic_exchange_n(&ext_failed, 1, __ATOMIC_RELAXED))
		log_warn("EXT_FILE_CMD %s: %s", CONFIG_EXT_FILE_CMD, why);
}

/*
 * Asks EXT_FILE_CMD for the type of a file the suffix table does not know.
 * Bounded: at most EXT_MAX run at once (more get no answer), each for at
 * most EXT_TIMEOUT_MS, and the answer is cached with the open file (see
 * fcache_fill), so a file costs one run, not one per request.  Writes a
 * validated type into out; returns 0, or -1 when it had no answer.
 */
static int
ext_file_type(const char *rel, char *out, size_t outsz)
{
	char full[PATH_MAX_LEN + 1024];
	char *argv[] = { (char *)CONFIG_EXT_FILE_CMD, (char *)"-b",
	    (char *)"--mime-type", full, NULL };
	char *envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int pfd[2], status = -1, ok = -1;
	ssize_t n;
	size_t i;
	pid_t pid;
	struct buf b;

	buf_init(&b, full, sizeof(full) - 1);
	buf_add(&b, settings.set_public, settings.set_public_len);
	buf_str(&b, rel);
	if (b.b_over)
		return -1;
	buf_cstr(&b);
	if (__atomic_add_fetch(&ext_running, 1, __ATOMIC_ACQ_REL) > EXT_MAX ||
	    server_yield() != 0 || pipe2(pfd, O_CLOEXEC) == -1) {
		__atomic_sub_fetch(&ext_running, 1, __ATOMIC_ACQ_REL);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	spawn_attr_init(&at, 0);
	if ((errno = posix_spawn(&pid, CONFIG_EXT_FILE_CMD, &fa, &at, argv,
	    envp)) != 0) {
		ext_cannot_run(strerror(errno));
		pid = -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(pfd[1]);
	n = pid == -1 ? -1 : ext_read(pfd[0], out, outsz);
	close(pfd[0]);
	if (pid != -1 && ext_reap(pid, n < 0, &status) != 0)
		n = -1;			/* answered, but would not end */
	else if (pid != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
		ext_cannot_run("exited 127: not found, or cannot run");
	__atomic_sub_fetch(&ext_running, 1, __ATOMIC_ACQ_REL);
	if (n < 0)
		return -1;
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r' ||
	    out[n - 1] == ' '))
		n--;
	out[n] = '\0';
	/* it goes into a header: only "type/subtype" characters */
	for (i = 0; i < (size_t)n; i++) {
		char ch = out[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("/+-._", ch) != NULL))
			return -1;
		if (ch == '/')
			ok = 0;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ok : -1;
}

/*
 * Redirects "/dir" to "/dir/", keeping the query string.  The Location is
 * built from the normalised path (PATH_PREFIX, then path, percent-encoded),
 * never from the target as sent: "//host/../dir" would otherwise send the
 * client to another host.  Returns as send.
 */
static int
redirect_dir(struct conn *c, struct request *r, struct reply *rp,
    const char *path, size_t len)
{
	char fields[HEAD_ROOM + 4096];
	struct response rs;
	struct buf *b;

	response_init(&rs, 301, fields, sizeof(fields));
	b = response_field_begin(&rs, "Location");
	buf_lit(b, CONFIG_PATH_PREFIX);
	buf_url(b, path, len, 1);
	buf_char(b, '/');
	if (r->req_query != NULL && !r->req_qhack) {
		/* as sent: visible ASCII and obs-text only (request.c); under
		 * QUERY_HACK it is part of the path, encoded above */
		buf_char(b, '?');
		buf_add(b, r->req_query, r->req_query_len);
	}
	response_field_end(&rs);
	if (b->b_over)
		return response_error(c, r, rp, 414);
	return response_send(c, r, rp, &rs);
}

/*
 * A small cache of open files, one per thread, so no lock is taken: a
 * keep-alive client asking for the same files again costs neither open,
 * fstat nor close.  An entry is checked against the file system with one
 * fstatat a second (inode, size, mtime), so a replaced file is seen within
 * a second, as with nginx's and lighttpd's caches.
 */
enum {
	FC_ENTRIES = 4,
	FC_PATH = 128,
	/* a file up to this size is mapped while cached, and its reply is
	 * one write, head and body, with no read or sendfile of its own */
	FC_MAP_MAX = 65536,
};

struct fcache {
	int		 fc_fd;		/* 0: empty (fd 0 is never a file here) */
	unsigned short	 fc_len;
	char		 fc_path[FC_PATH];	/* normalised request path */
	const char	*fc_type;
	off_t		 fc_size;
	dev_t		 fc_dev;
	ino_t		 fc_ino;
	struct timespec	 fc_mtime;
	time_t		 fc_checked;
	const char	*fc_map;	/* the file mapped, or NULL */
	time_t		 fc_lm;		/* Last-Modified: mtime, not after now */
	char		 fc_lastmod[30];	/* an HTTP-date */
	char		 fc_etag[64];	/* strong: "inode-size-mtime", quoted */
	size_t		 fc_etag_len;
	char		 fc_typebuf[80];	/* EXT_FILE_CMD's answer */
};
/* on the stack of the worker (file_cache_run), not in TLS: every thread
 * would have it there, and the main thread's would take a page alone */
static __thread struct fcache *fcache;	/* FC_ENTRIES, or NULL: none */
const size_t file_cache_size = FC_ENTRIES * sizeof(struct fcache);
static __thread unsigned fcache_next;

static void
fcache_drop(struct fcache *e)
{
	if (e->fc_map != NULL)
		munmap((void *)e->fc_map, (size_t)e->fc_size);
	close(e->fc_fd);
	e->fc_fd = 0;
}

static __thread struct fcache *fcache_last;	/* file_get's last entry */

/*
 * Closes this thread's cached files but the one it served last: when it
 * is about to block on one client (server_yield_turn), so that threads
 * blocked for long hold one file each, not FC_ENTRIES, and when it runs
 * out of descriptors.  Returns 1 when one was closed.
 */
int
file_cache_trim(void)
{
	int i, closed = 0;

	for (i = 0; fcache != NULL && i < FC_ENTRIES; i++)
		if (fcache[i].fc_fd > 0 && &fcache[i] != fcache_last) {
			fcache_drop(&fcache[i]);
			closed = 1;
		}
	return closed;
}

/* Closes this thread's cached files, when it goes idle. */
void
file_cache_flush(void)
{
	fcache_last = NULL;
	(void)file_cache_trim();
}

/* Runs fn(arg) with a file cache of this thread's, in this frame.  A
 * thread that does not start here (HTTP/2's, for one stream) has none. */
void *
file_cache_run(void *(*fn)(void *), void *arg)
{
	struct fcache mine[FC_ENTRIES];
	void *rv;

	memset(mine, 0, sizeof(mine));
	fcache = mine;
	rv = fn(arg);
	file_cache_flush();
	fcache = NULL;
	return rv;
}

/*
 * A PUT or DELETE changed the tree: every thread drops its cache before
 * its next lookup, so no client sees the old file after the reply.
 * Changes made behind the server's back show on a new connection at once
 * (its first request checks the file again), on an open one within a
 * second.
 */
static unsigned fcache_gen;
static __thread unsigned fcache_seen;

void
file_cache_invalidate(void)
{
	__atomic_add_fetch(&fcache_gen, 1, __ATOMIC_RELEASE);
}

/* The path to stat for an entry: the file, or the directory's index. */
static const char *
fcache_rel(const struct fcache *e, char *buf, size_t bufsz)
{
	size_t n = e->fc_len - 1;

	if (e->fc_path[e->fc_len - 1] != '/')
		return e->fc_len > 1 ? e->fc_path + 1 : ".";
	if (n + sizeof(CONFIG_DEFAULT_INDEX) > bufsz)
		return NULL;
	memcpy(buf, e->fc_path + 1, n);
	memcpy(buf + n, CONFIG_DEFAULT_INDEX, sizeof(CONFIG_DEFAULT_INDEX));
	return buf;
}

static int
same_file(const struct fcache *e, const struct stat *st)
{
	return e->fc_ino == st->st_ino && e->fc_dev == st->st_dev &&
	    e->fc_size == st->st_size &&
	    e->fc_mtime.tv_sec == st->st_mtim.tv_sec &&
	    e->fc_mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* Returns the valid entry for path, or NULL. */
static struct fcache *
fcache_find(const char *path, size_t len, time_t now, int fresh)
{
	char buf[FC_PATH + sizeof(CONFIG_DEFAULT_INDEX)];
	const char *rel;
	struct fcache *e;
	struct stat st;
	unsigned gen = __atomic_load_n(&fcache_gen, __ATOMIC_ACQUIRE);
	int i;

	if (gen != fcache_seen) {
		file_cache_flush();
		fcache_seen = gen;
	}
	for (i = 0; fcache != NULL && i < FC_ENTRIES; i++) {
		e = &fcache[i];
		if (e->fc_fd == 0 || e->fc_len != len ||
		    memcmp(e->fc_path, path, len) != 0)
			continue;
		if (e->fc_checked == now && !fresh)
			return e;
		if ((rel = fcache_rel(e, buf, sizeof(buf))) != NULL &&
		    fstatat(settings.set_public_fd, rel, &st, 0) == 0 &&
		    same_file(e, &st)) {
			e->fc_checked = now;
			return e;
		}
		fcache_drop(e);
		return NULL;
	}
	return NULL;
}

/* An entry's Last-Modified and ETag, sent with every reply. */
static void
fcache_validators(struct fcache *e, const struct stat *st, time_t now)
{
	struct buf b;
	long long lm = st->st_mtime > now ? now : st->st_mtime;

	/* a modification time in the future is clamped to now, one before
	 * year 0 to year 0 (http_date_fmt's range), so the date sent is the
	 * one conditional requests are compared with (in a long long: with
	 * a 32-bit time_t gcc warns that the test is always false) */
	e->fc_lm = (time_t)(lm < DATE_MIN ? DATE_MIN : lm);
	*http_date_fmt(e->fc_lastmod, e->fc_lm) = '\0';
	/* changes with any replacement or write of the file */
	buf_init(&b, e->fc_etag, sizeof(e->fc_etag) - 1);
	buf_char(&b, '"');
	buf_hex(&b, (unsigned long long)st->st_ino, 0);
	buf_char(&b, '-');
	buf_hex(&b, (unsigned long long)st->st_size, 0);
	buf_char(&b, '-');
	buf_hex(&b, (unsigned long long)st->st_mtim.tv_sec, 0);
	buf_char(&b, '.');
	buf_hex(&b, (unsigned long long)st->st_mtim.tv_nsec, 0);
	buf_char(&b, '"');
	e->fc_etag_len = buf_len(&b);
	buf_cstr(&b);
}

/* Describes an open file: what the cache keeps, and what a reply needs. */
static void
fcache_fill(struct fcache *e, int fd, const struct stat *st, const char *type,
    const char *typebuf, time_t now)
{
	struct buf b;

	e->fc_fd = fd;
	e->fc_type = type;
	if (type != NULL && type == typebuf) {
		/* EXT_FILE_CMD's answer: kept with the entry, so it runs once
		 * per file, not once per request */
		buf_init(&b, e->fc_typebuf, sizeof(e->fc_typebuf) - 1);
		buf_str(&b, type);
		e->fc_type = b.b_over ? "application/octet-stream" :
		    buf_cstr(&b);
	}
	e->fc_size = st->st_size;
	e->fc_dev = st->st_dev;
	e->fc_ino = st->st_ino;
	e->fc_mtime = st->st_mtim;
	e->fc_checked = now;
	e->fc_map = NULL;
	if (ENABLE_VALIDATORS)
		fcache_validators(e, st, now);
}

/* Keeps fd in the cache; returns the entry, or NULL if it does not fit. */
static struct fcache *
fcache_add(const char *path, size_t len, int fd, const struct stat *st,
    const char *type, const char *typebuf, time_t now)
{
	struct fcache *e;

	/* descriptors are handed out lowest first: one at or above
	 * set_fd_cache_max (main.c) means they are getting scarce, so it is
	 * not kept */
	if (fcache == NULL || len >= FC_PATH ||
	    fd >= settings.set_fd_cache_max)
		return NULL;
	e = &fcache[fcache_next++ % FC_ENTRIES];
	if (e->fc_fd > 0)
		fcache_drop(e);
	fcache_fill(e, fd, st, type, typebuf, now);
	if (st->st_size > 0 && st->st_size <= FC_MAP_MAX &&
	    (e->fc_map = mmap(NULL, (size_t)st->st_size, PROT_READ,
	    MAP_SHARED, fd, 0)) == MAP_FAILED)
		e->fc_map = NULL;
	e->fc_len = (unsigned short)len;
	memcpy(e->fc_path, path, len);
	return e;
}

/* Is a list of entity-tags "*", and nothing else? */
static int
is_star(const char *v)
{
	while (*v == ' ' || *v == '\t')
		v++;
	return v[0] == '*' && v[1] == '\0';
}

/*
 * Does a list of entity-tags (If-Match, If-None-Match) name etag?  "*"
 * names any.  Strong comparison (If-Match) ignores weak tags; weak
 * comparison (If-None-Match) compares the opaque parts.  1 or 0; -1 for
 * a list malformed anywhere, after a match too.
 */
static int
etag_match(const char *list, const char *etag, int strong)
{
	size_t n = strlen(etag);
	const char *q;
	int weak, found = 0;

	if (is_star(list))
		return 1;
	for (;;) {
		while (*list == ' ' || *list == '\t' || *list == ',')
			list++;
		if (*list == '\0')
			return found;
		weak = list[0] == 'W' && list[1] == '/';
		if (weak)
			list += 2;
		if (*list != '"' || (q = strchr(list + 1, '"')) == NULL)
			return -1;
		if (!(weak && strong) && (size_t)(q + 1 - list) == n &&
		    memcmp(list, etag, n) == 0)
			found = 1;
		for (list = q + 1; *list == ' ' || *list == '\t'; list++)
			;
		if (*list != ',' && *list != '\0')
			return -1;	/* no comma between two elements */
	}
}

/*
 * etag_match over every field line of name: repeated lines of a list
 * header are one list (RFC 9110 5.3).  1 when a line names etag, else -1
 * when a line is malformed, else 0.
 */
static int
etag_match_all(const struct request *r, const char *name, size_t n,
    const char *etag, int strong)
{
	int i, m, rc = 0;

	for (i = 0; i < r->req_nhdrs; i++)
		if (r->req_hdrs[i].h_name_len == n &&
		    strncasecmp(r->req_hdrs[i].h_name, name, n) == 0) {
			if ((m = etag_match(r->req_hdrs[i].h_value, etag,
			    strong)) > 0)
				return 1;
			rc |= m;	/* 0 or -1 */
		}
	return rc;
}

/*
 * Preconditions, in the order of RFC 9110 13.2.2.  Returns 0 to go on,
 * or 304 or 412.  A GET or HEAD (get set) gets 304 where If-None-Match
 * matches, any other method 412; If-Modified-Since is for GET and HEAD
 * only (13.1.3).
 */
static int
preconditions(const struct request *r, const struct fcache *e, int get)
{
	time_t t;
	int m;

	if (r->req_if_match != NULL) {
		if (etag_match_all(r, "If-Match", 8, e->fc_etag, 1) <= 0)
			return 412;
	} else if (r->req_if_unmodified_since != NULL &&
	    http_date_parse(r->req_if_unmodified_since, &t) == 0 &&
	    e->fc_lm > t)
		return 412;
	if (r->req_if_none_match != NULL) {
		/* a malformed list: no 304 for a GET, but no change made on
		 * a condition that cannot be read either */
		if ((m = etag_match_all(r, "If-None-Match", 13, e->fc_etag,
		    0)) > 0 || (m < 0 && !get))
			return get ? 304 : 412;
	} else if (get && r->req_if_modified_since != NULL &&
	    http_date_parse(r->req_if_modified_since, &t) == 0 &&
	    e->fc_lm <= t)
		return 304;
	return 0;
}

/*
 * Preconditions without validators (VALIDATORS=0): no entity-tag can
 * match, so If-Match fails unless it is "*", and If-None-Match holds
 * unless it is "*" (RFC 9110 13.1.1, 13.1.2); the dates are ignored, as
 * for a resource without a modification date (13.1.3, 13.1.4).
 */
static int
preconditions_untagged(const struct request *r, int get)
{
	if (r->req_if_match != NULL && !is_star(r->req_if_match))
		return 412;
	/* a PUT or DELETE reads every line ("" names no tag: 1 is "*") */
	if (r->req_if_none_match != NULL && (get ?
	    is_star(r->req_if_none_match) :
	    etag_match_all(r, "If-None-Match", 13, "", 0) != 0))
		return get ? 304 : 412;
	return 0;
}

int
file_preconditions(const struct request *r, const struct stat *st)
{
	struct fcache e;

	if (!ENABLE_PUT)	/* its one caller: else the checks inline */
		return 0;
	/* a condition that cannot be read changes nothing */
	if (r->req_if_none_match != NULL &&
	    etag_match_all(r, "If-None-Match", 13, "", 0) < 0)
		return 412;
	if (st == NULL)		/* no current representation (13.1.1) */
		return r->req_if_match != NULL ? 412 : 0;
	if (!ENABLE_VALIDATORS)
		return preconditions_untagged(r, 0);
	fcache_validators(&e, st, time(NULL));
	return preconditions(r, &e, 0);
}

/* Reads a byte position; saturates at the largest off_t instead of
 * overflowing or truncating, and only past it. */
static const char *
range_pos(const char *s, off_t *v)
{
	const off_t max = (((off_t)1 << (sizeof(off_t) * 8 - 2)) - 1) * 2 + 1;
	off_t n = 0;

	for (; *s >= '0' && *s <= '9'; s++)
		if (__builtin_mul_overflow(n, 10, &n) ||
		    __builtin_add_overflow(n, *s - '0', &n))
			n = max;	/* and stays there */
	*v = n;
	return s;
}

/*
 * A Range header (RFC 9110 14.2) for a file of size bytes.  Returns 1 with
 * *off and *len for one satisfiable range, -1 when none is satisfiable
 * (416), or 0 to ignore the header and send the whole file: for syntax we
 * do not follow, and for several ranges (no multipart/byteranges: one
 * response is never longer than the file, whatever the client asks).
 */
static int
range_parse(const char *v, off_t size, off_t *off, off_t *len)
{
	const char *s;
	off_t a, b;

	if (strncasecmp(v, "bytes=", 6) != 0 || strchr(v, ',') != NULL)
		return 0;
	v += 6;
	if (*v == '-') {		/* suffix: the last b bytes */
		if ((s = range_pos(v + 1, &b)) == v + 1 || *s != '\0')
			return 0;
		if (b == 0)
			return -1;
		if (size == 0)		/* satisfiable, but no 206 can say */
			return 0;	/* "nothing": RFC 9110 14.2 lets us ignore it */
		*off = b >= size ? 0 : size - b;
		*len = size - *off;
		return 1;
	}
	if ((s = range_pos(v, &a)) == v || *s != '-')
		return 0;
	v = s + 1;
	if (*v == '\0')
		b = size - 1;
	else if ((s = range_pos(v, &b)) == v || *s != '\0' || b < a)
		return 0;
	if (a >= size)
		return -1;
	if (b >= size)
		b = size - 1;
	*off = a;
	*len = b - a + 1;
	return 1;
}

/* Does If-Range (an entity-tag or a date) still describe the file? */
static int
if_range_holds(const char *v, const struct fcache *e)
{
	time_t t;

	/* one entity-tag, not If-Match's list, compared strong: whole */
	if (*v == '"' || (v[0] == 'W' && v[1] == '/'))
		return strcmp(v, e->fc_etag) == 0;
	return http_date_parse(v, &t) == 0 && t == e->fc_lm;
}

/*
 * FOLLOW_SYMLINKS=0: every open stays inside the directory it starts
 * from.  openat2(RESOLVE_BENEATH) follows a link only while it resolves
 * beneath; where the kernel has no openat2 (before Linux 5.6), the path
 * is walked a component at a time with O_NOFOLLOW, so no link is followed
 * at all.  The call's number and structure are the kernel's ABI, so no
 * header that a libc or a cross toolchain may lack is needed.
 */
#ifndef SYS_openat2
#define SYS_openat2	(-1)	/* this libc knows no number: walk */
#endif
struct open_how_abi {
	uint64_t	 flags, mode, resolve;
};
enum { RESOLVE_BENEATH_ = 0x08, RESOLVE_NO_MAGICLINKS_ = 0x02 };

static int
is_link(int dirfd, const char *name)
{
	struct stat st;
	int e = errno, link;

	link = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode);
	errno = e;
	return link;
}

static int
open_walk(int dirfd, const char *rel, int flags)
{
	char comp[256];
	const char *slash;
	int fd = dirfd, next;

	while ((slash = strchr(rel, '/')) != NULL) {
		if ((size_t)(slash - rel) >= sizeof(comp)) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(comp, rel, (size_t)(slash - rel));
		comp[slash - rel] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		/* a link where a directory should be: refused as a link
		 * (403), not as a missing directory */
		if (next == -1 && errno == ENOTDIR && is_link(fd, comp))
			errno = ELOOP;
		if (fd != dirfd)
			close(fd);
		if ((fd = next) == -1)
			return -1;
		rel = slash + 1;
	}
	next = openat(fd, *rel != '\0' ? rel : ".", flags | O_NOFOLLOW);
	if (fd != dirfd)
		close(fd);
	return next;
 fail:
	if (fd != dirfd)
		close(fd);
	return -1;
}

/* openat(), confined below dirfd unless FOLLOW_SYMLINKS is on. */
static int
open_beneath(int dirfd, const char *rel, int flags)
{
	static int no_openat2;
	struct open_how_abi how = { .flags = (uint64_t)flags,
	    .resolve = RESOLVE_BENEATH_ | RESOLVE_NO_MAGICLINKS_ };
	long fd;

	if (ENABLE_FOLLOW_SYMLINKS)
		return openat(dirfd, rel, flags);
	if (SYS_openat2 != -1 && !__atomic_load_n(&no_openat2, __ATOMIC_RELAXED)) {
		fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		/* ENOSYS: an old kernel; EPERM: a seccomp filter that does
		 * not know the call */
		if (fd != -1 || (errno != ENOSYS && errno != EPERM))
			return (int)fd;
		__atomic_store_n(&no_openat2, 1, __ATOMIC_RELAXED);
	}
	return open_walk(dirfd, rel, flags);
}

/*
 * What a path names, found by file_get(): a file (lk_e: cached, or
 * lk_tmp whose descriptor the caller closes), a directory to list (its
 * descriptor, which the caller closes), a directory named without its
 * slash, or an error status.
 */
enum found { FOUND_FILE, FOUND_LISTING, FOUND_NO_SLASH, FOUND_ERROR };

struct lookup {
	enum found	 lk_found;
	int		 lk_status;	/* FOUND_ERROR's */
	int		 lk_dirfd;	/* FOUND_LISTING's */
	struct fcache	*lk_e;		/* FOUND_FILE's */
	int		 lk_cached;
	struct fcache	 lk_tmp;
	char		 lk_type[80];	/* EXT_FILE_CMD's answer */
};

/* Sets lk to an error from errno, closing fd; returns -1. */
static int
lookup_failed(struct lookup *lk, int fd)
{
	int e = errno;

	if (fd != -1)
		close(fd);
	lk->lk_found = FOUND_ERROR;
	lk->lk_status = errno_status(e, 0);
	return -1;
}

/* The type of a file the suffix table does not know. */
static const char *
unknown_type(struct lookup *lk, const char *path, const struct stat *st)
{
	if (ENABLE_EXT_FILE_CMD && ext_cached(st, lk->lk_type,
	    sizeof(lk->lk_type), NULL))
		return lk->lk_type;
	if (ENABLE_EXT_FILE_CMD && ext_file_type(path, lk->lk_type,
	    sizeof(lk->lk_type)) == 0) {
		(void)ext_cached(st, NULL, 0, lk->lk_type);
		return lk->lk_type;
	}
	return "application/octet-stream";
}

/*
 * The index of directory dfd, whose path (len bytes, its slash last) has
 * PATH_MAX_LEN bytes of room.  Confined (FOLLOW_SYMLINKS=0), it is opened
 * from PUBLIC_DIR by its whole path, so that a link may lead anywhere
 * inside PUBLIC_DIR, as from the index's own URL: from dfd, one to a file
 * in another directory was a 403.
 */
static int
index_open(int dfd, char *path, size_t len)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, fd;

	if (ENABLE_FOLLOW_SYMLINKS ||
	    len + sizeof(CONFIG_DEFAULT_INDEX) > PATH_MAX_LEN)
		return open_beneath(dfd, CONFIG_DEFAULT_INDEX, flags);
	memcpy(path + len, CONFIG_DEFAULT_INDEX, sizeof(CONFIG_DEFAULT_INDEX));
	fd = open_beneath(settings.set_public_fd, path + 1, flags);
	path[len] = '\0';
	return fd;
}

/*
 * Opens what path names: the file, or a directory's index.  Returns the
 * descriptor with *st and *type set, or -1 with lk saying what was found
 * instead.
 */
static int
file_open(struct lookup *lk, char *path, size_t len, struct stat *st,
    const char **type)
{
	const char *name = path;
	size_t namelen = len;
	int fd, dfd, shed = 0, i;

	fd = open_beneath(settings.set_public_fd, len > 1 ? path + 1 : ".",
	    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	/* out of descriptors: files of our cache go first, then an idle
	 * connection gives its own up, else a slow client is cut (2), whose
	 * descriptors come back a moment later: waited for, off the turn */
	if (fd == -1 && (errno == EMFILE || errno == ENFILE) &&
	    (file_cache_trim() || (shed = server_shed_idle()) != 0))
		for (i = 0; i < SHED_WAIT_TRIES; i++) {
			fd = open_beneath(settings.set_public_fd, len > 1 ?
			    path + 1 : ".", O_RDONLY | O_CLOEXEC | O_NONBLOCK |
			    O_NOCTTY);
			if (!(ENABLE_BODIES || ENABLE_HTTP2) || shed != 2 ||
			    fd != -1 || errno != EMFILE || server_yield() != 0)
				break;
			(void)poll(NULL, 0, 5);
		}
	if (fd == -1 || fstat(fd, st) == -1)
		return lookup_failed(lk, fd);
	if (S_ISDIR(st->st_mode)) {
		if (path[len - 1] != '/') {
			close(fd);
			lk->lk_found = FOUND_NO_SLASH;
			return -1;
		}
		dfd = fd;
		fd = !ENABLE_DEFAULT_INDEX ? -1 : index_open(dfd, path, len);
		if (ENABLE_AUTO_INDEX && fd == -1 &&
		    (!ENABLE_DEFAULT_INDEX || errno == ENOENT)) {
			lk->lk_found = FOUND_LISTING;	/* no index file */
			lk->lk_dirfd = dfd;
			return -1;
		}
		close(dfd);
		if (!ENABLE_DEFAULT_INDEX)
			errno = EACCES;
		if (fd == -1 || fstat(fd, st) == -1)
			return lookup_failed(lk, fd);
		name = CONFIG_DEFAULT_INDEX;
		namelen = sizeof(CONFIG_DEFAULT_INDEX) - 1;
	}
	if (!S_ISREG(st->st_mode)) {
		errno = EACCES;
		return lookup_failed(lk, fd);
	}
	if ((*type = mime_lookup(name, namelen)) == NULL)
		*type = name == path ? unknown_type(lk, path, st) :
		    "application/octet-stream";
	return fd;
}

/* Finds path in this thread's cache, or opens it.  Returns lk_found. */
static enum found
file_get(struct lookup *lk, char *path, size_t len, time_t now, int fresh)
{
	const char *type = NULL;
	struct stat st;
	int fd;

	lk->lk_found = FOUND_FILE;
	lk->lk_cached = 1;
	if ((lk->lk_e = fcache_find(path, len, now, fresh)) != NULL) {
		fcache_last = lk->lk_e;
		return FOUND_FILE;
	}
	if ((fd = file_open(lk, path, len, &st, &type)) == -1)
		return lk->lk_found;
	if ((lk->lk_e = fcache_add(path, len, fd, &st, type, lk->lk_type,
	    now)) == NULL) {
		lk->lk_cached = 0;
		lk->lk_e = &lk->lk_tmp;
		fcache_fill(lk->lk_e, fd, &st, type, lk->lk_type, now);
	} else
		fcache_last = lk->lk_e;
	return FOUND_FILE;
}

/* Does Accept-Encoding allow gzip (by name or by "*", with q above 0)?
 * An element with no name, or with more than a name before its ";" or
 * ",", before gzip is named: no (what follows it may refuse gzip, and
 * identity is always allowed). */
static int
accepts_gzip(const char *v)
{
	struct list_item it;
	const char *p;
	int star = 0, q;

	if (v == NULL)
		return 0;
	while (list_next(&v, &it)) {
		if (it.li_len == 0 || it.li_junk)
			return 0;	/* malformed: identity is safe */
		/* q=0, q=0.0 and the like refuse; any other q accepts.  The
		 * weight is the q parameter's own value, wherever it stands */
		q = 1;
		for (p = it.li_params; p != NULL && *p != '\0' && *p != ',';) {
			while (*p == ' ' || *p == '\t' || *p == ';')
				p++;
			if ((p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
				for (q = 0, p += 2; strchr(",; \t", *p) == NULL; p++)
					if (*p >= '1' && *p <= '9')
						q = 1;
			while (strchr(",;", *p) == NULL)
				p++;
		}
		if ((it.li_len == 4 && strncasecmp(it.li_name, "gzip", 4) == 0) ||
		    (it.li_len == 6 && strncasecmp(it.li_name, "x-gzip", 6) == 0))
			return q;
		if (it.li_len == 1 && *it.li_name == '*')
			star = q;
	}
	return star;
}

/*
 * The status of a GET or HEAD of e as the request's conditions and Range
 * decide it: 0 for the whole file, 206 with *off and *size the part,
 * 304, 412 or 416.
 */
static int
file_status(struct request *r, const struct fcache *e, off_t *off,
    off_t *size)
{
	int status;

	*size = e->fc_size;
	*off = 0;
	/* without validators, an If-Range cannot hold: the whole file */
	status = ENABLE_VALIDATORS ? preconditions(r, e, 1) :
	    preconditions_untagged(r, 1);
	if (ENABLE_RANGES && status == 0 && r->req_method == M_GET &&
	    r->req_range != NULL && (r->req_if_range == NULL ||
	    (ENABLE_VALIDATORS && if_range_holds(r->req_if_range, e))))
		switch (range_parse(r->req_range, e->fc_size, off, size)) {
		case 1:
			status = 206;
			break;
		case -1:
			status = 416;
			break;
		}
	return status;
}

/*
 * A listing, made as it is sent, has no validators: an If-Match names
 * none of its tags (412) but "*", and If-None-Match: * matches it (304),
 * as RFC 9110 13.1.1 and 13.1.2 have it for any representation.
 */
static int
listing_serve(struct conn *c, struct request *r, struct reply *rp, int dirfd)
{
	char fields[64];
	struct response rs;
	int status;

	if (!ENABLE_AUTO_INDEX || (status = preconditions_untagged(r, 1)) == 0)
		return dirlist_serve(c, r, rp, dirfd);
	if (status == 412)
		return response_error(c, r, rp, 412);
	response_init(&rs, 304, fields, sizeof(fields));
	return response_send(c, r, rp, &rs);
}

/*
 * Serves a GET or HEAD for a static file.  Returns 0 when the connection
 * may go on, -1 when it must be closed.
 */
int
file_serve(struct conn *c, struct request *r, struct reply *rp)
{
	char fields[FIELDS_SIZE], cr[48], *path;
	const char *type;
	struct lookup lk;
	struct fcache *e;
	struct response rs;
	struct buf b;
	ssize_t len;
	off_t size, off;
	time_t now;
	int rc, status, gz = 0;

	if ((len = r->req_decoded_len) < 0)
		return response_error(c, r, rp, (int)-len);
	path = r->req_decoded;
	/* an upload in progress is nobody's business; nor is a program's
	 * source, whatever way leads here (a QUERY_HACK query, a program's
	 * internal redirect): what is below CGI_PATH runs, it is never read */
	if ((ENABLE_PUT && strstr(path, "/" UPLOAD_PREFIX) != NULL) ||
	    cgi_below(path, len))
		return response_error(c, r, rp, 404);
	/* "/prefix" alone is the root, a directory named without its
	 * slash: redirected as "/dir" is, or its index's links would lose
	 * the prefix */
	if (ENABLE_PATH_PREFIX &&
	    r->req_path_len == sizeof(CONFIG_PATH_PREFIX) - 1) {
		/* QUERY_HACK=/ would take a query after "/prefix/" for a
		 * file's name: this one asked for the root, so it is left
		 * out (redirect_dir keeps none taken in, req_qhack) */
		if (ENABLE_QUERY_HACK && sizeof(CONFIG_QUERY_HACK) == 2)
			r->req_qhack = 1;
		return redirect_dir(c, r, rp, path, 0);
	}

	(void)http_date_now(&now);
	type = NULL;
	if (ENABLE_GZIP_STATIC && path[len - 1] != '/' &&
	    accepts_gzip(r->req_accept_encoding) && len + 3 < PATH_MAX_LEN) {
		/* FILE.gz beside FILE, for a client that takes gzip */
		memcpy(path + len, ".gz", 4);
		if (file_get(&lk, path, (size_t)len + 3, now, c->c_fresh) ==
		    FOUND_FILE) {
			gz = 1;
			if ((type = mime_lookup(path, (size_t)len)) == NULL)
				type = "application/octet-stream";
		}
		path[len] = '\0';
	}
	if (!gz) {
		switch (file_get(&lk, path, (size_t)len, now, c->c_fresh)) {
		case FOUND_FILE:
			break;
		case FOUND_NO_SLASH:
			return redirect_dir(c, r, rp, path, (size_t)len);
		case FOUND_LISTING:
			rc = listing_serve(c, r, rp, lk.lk_dirfd);
			close(lk.lk_dirfd);
			return rc;
		default:	/* a 404 is cached: it may be FILE.gz's */
			return ENABLE_GZIP_STATIC ? response_error_field(c, r,
			    rp, lk.lk_status, "Vary", "Accept-Encoding") :
			    response_error(c, r, rp, lk.lk_status);
		}
	}
	e = lk.lk_e;
	if (type == NULL)
		type = e->fc_type;
	status = file_status(r, e, &off, &size);
	if (status == 412 || status == 416) {
		buf_init(&b, cr, sizeof(cr) - 1);
		buf_lit(&b, "bytes */");
		buf_uint(&b, (unsigned long long)e->fc_size);
		rc = status == 416 ? response_error_field(c, r, rp, 416,
		    "Content-Range", buf_cstr(&b)) :
		    response_error(c, r, rp, 412);
		goto done;
	}
	response_init(&rs, status == 0 ? 200 : status, fields, sizeof(fields));
	if (ENABLE_VALIDATORS) {
		response_field_n(&rs, "ETag", e->fc_etag, e->fc_etag_len);
		response_field_n(&rs, "Last-Modified", e->fc_lastmod, 29);
	}
	if (ENABLE_GZIP_STATIC)	/* a 304 too: RFC 9110 15.4.5 */
		response_field(&rs, "Vary", "Accept-Encoding");
	if (status != 304) {
		if (gz)
			response_field(&rs, "Content-Encoding", "gzip");
		if (ENABLE_RANGES)
			response_field(&rs, "Accept-Ranges", "bytes");
		response_field(&rs, "Content-Type", type);
		if (status == 206) {
			struct buf *v = response_field_begin(&rs, "Content-Range");

			buf_lit(v, "bytes ");
			buf_uint(v, (unsigned long long)off);
			buf_char(v, '-');
			buf_uint(v, (unsigned long long)(off + size - 1));
			buf_char(v, '/');
			buf_uint(v, (unsigned long long)e->fc_size);
			response_field_end(&rs);
		}
		rs.rs_src = SRC_FILE;
		rs.rs_fd = e->fc_fd;
		rs.rs_off = off;
		rs.rs_len = size;
		if (e->fc_map != NULL)
			rs.rs_map = e->fc_map + off;
	}
	rc = response_send(c, r, rp, &rs);
 done:
	if (!lk.lk_cached)
		close(e->fc_fd);
	else if (rc != 0)
		fcache_drop(e);	/* the file may have changed: forget it */
	return rc;
}
