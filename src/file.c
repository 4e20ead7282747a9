/* file.c - map a request to a file below PUBLIC_DIR and send it. */
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <unistd.h>

#include "mrhttpd.h"

/*
 * The head and, when it fits, a small body are built in one buffer and go
 * out in one writev; bigger bodies follow the head with sendfile.  The
 * buffer is kept to half a page so that a connection's thread touches as
 * few stack pages as possible (each one is resident memory).
 */
enum {
	OUT_SIZE = 2048,
	HEAD_ROOM = 320 + sizeof(CONFIG_PRAGMA),	/* the longest head we build */
};

/* Maps errno from open/fstat to a status, once (OpenBSD server_file.c style). */
static int
errno_status(int e)
{
	switch (e) {
	case ENOENT:
	case ENOTDIR:
		return 404;
	case EACCES:
	case ELOOP:
		return 403;
	case ENAMETOOLONG:
		return 414;
	case EMFILE:
	case ENFILE:
		return 503;	/* out of descriptors: try again later */
	default:
		return 500;
	}
}

/*
 * Asks EXT_FILE_CMD for the type of a file the suffix table does not know.
 * Writes a validated type into out; returns 0, or -1 when it had no answer.
 */
static int
ext_file_type(const char *rel, char *out, size_t outsz)
{
	char full[PATH_MAX_LEN + 1024];
	char *argv[] = { (char *)CONFIG_EXT_FILE_CMD, (char *)"-b",
	    (char *)"--mime-type", full, NULL };
	char *envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	int pfd[2], status, ok = -1;
	ssize_t n = 0, r;
	size_t i, plen = settings.set_public_len;
	pid_t pid;

	if (plen + strlen(rel) + 1 > sizeof(full))
		return -1;
	memcpy(full, settings.set_public, plen);
	strcpy(full + plen, rel);
	if (pipe2(pfd, O_CLOEXEC) == -1)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	if (posix_spawn(&pid, CONFIG_EXT_FILE_CMD, &fa, NULL, argv, envp) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	while (pid != -1 && (size_t)n < outsz - 1 &&
	    ((r = read(pfd[0], out + n, outsz - 1 - (size_t)n)) > 0 ||
	    (r == -1 && errno == EINTR)))
		if (r > 0)
			n += r;
	close(pfd[0]);
	if (pid == -1)
		return -1;
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
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

/* Redirects "/dir" to "/dir/", keeping the query string.  Returns as send. */
static int
redirect_dir(struct conn *c, struct request *r, struct reply *rp)
{
	char head[HEAD_ROOM], *p;
	struct iovec iov[4];
	int n = 0;

	p = response_head(head, 301, r->req_minor, c);
	p = PUTS(p, "Location: ");
	iov[n].iov_base = head;
	iov[n++].iov_len = (size_t)(p - head);
	/* the target as the client sent it: no controls or spaces in it */
	iov[n].iov_base = (void *)r->req_target;
	iov[n++].iov_len = r->req_path_len;
	if (r->req_query != NULL) {
		/* "/?query": the '/' goes in front of the query's '?' */
		iov[n].iov_base = (void *)"/";
		iov[n++].iov_len = 1;
		iov[n].iov_base = (void *)(r->req_query - 1);
		iov[n++].iov_len = r->req_query_len + 1;
	} else {
		iov[n].iov_base = (void *)"/";
		iov[n++].iov_len = 1;
	}
	p = PUTS(p, "\r\nContent-Length: 0\r\n\r\n");
	iov[n].iov_base = p - (sizeof("\r\nContent-Length: 0\r\n\r\n") - 1);
	iov[n++].iov_len = sizeof("\r\nContent-Length: 0\r\n\r\n") - 1;
	rp->rp_status = 301;
	rp->rp_bytes = 0;
	return conn_writev(c, iov, n);
}

/*
 * A small cache of open files, one per thread, so no lock is taken: a
 * keep-alive client asking for the same files again costs neither open,
 * fstat nor close.  An entry is checked against the file system with one
 * fstatat a second (inode, size, mtime), so a replaced file is seen within
 * a second, as with nginx's and lighttpd's caches.
 */
enum { FC_ENTRIES = 4, FC_PATH = 128 };

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
	char		 fc_lastmod[29];
};
static __thread struct fcache fcache[FC_ENTRIES];
static __thread unsigned fcache_next;

static void
fcache_drop(struct fcache *e)
{
	close(e->fc_fd);
	e->fc_fd = 0;
}

/* Closes this thread's cached files, when its connection ends. */
void
file_cache_flush(void)
{
	int i;

	for (i = 0; i < FC_ENTRIES; i++)
		if (fcache[i].fc_fd > 0)
			fcache_drop(&fcache[i]);
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
fcache_find(const char *path, size_t len, time_t now)
{
	char buf[FC_PATH + sizeof(CONFIG_DEFAULT_INDEX)];
	const char *rel;
	struct fcache *e;
	struct stat st;
	int i;

	for (i = 0; i < FC_ENTRIES; i++) {
		e = &fcache[i];
		if (e->fc_fd == 0 || e->fc_len != len ||
		    memcmp(e->fc_path, path, len) != 0)
			continue;
		if (e->fc_checked == now)
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

/* Keeps fd in the cache; returns the entry, or NULL if it does not fit. */
static struct fcache *
fcache_add(const char *path, size_t len, int fd, const struct stat *st,
    const char *type, time_t now)
{
	struct fcache *e;

	/* descriptors are handed out lowest first: one in the upper half of
	 * the limit means they are getting scarce, so it is not kept */
	if (len >= FC_PATH || fd >= settings.set_fd_cache_max)
		return NULL;
	e = &fcache[fcache_next++ % FC_ENTRIES];
	if (e->fc_fd > 0)
		fcache_drop(e);
	e->fc_fd = fd;
	e->fc_len = (unsigned short)len;
	memcpy(e->fc_path, path, len);
	e->fc_type = type;
	e->fc_size = st->st_size;
	e->fc_dev = st->st_dev;
	e->fc_ino = st->st_ino;
	e->fc_mtime = st->st_mtim;
	e->fc_checked = now;
	/* a modification time in the future is clamped to now */
	fmt_http_date(e->fc_lastmod, st->st_mtime > now ? now : st->st_mtime);
	return e;
}

/*
 * Opens what path names: the file, or a directory's index.  Returns the
 * descriptor with *st filled and *type set, or -status (a 301 for a
 * directory without its slash).
 */
static int
file_open(char *path, size_t len, struct stat *st, const char **type,
    char *typebuf, size_t typesz)
{
	const char *name = path;
	size_t namelen = len;
	int fd, dfd, e;

	fd = openat(settings.set_public_fd, len > 1 ? path + 1 : ".",
	    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd == -1 || fstat(fd, st) == -1)
		goto fail;
	if (S_ISDIR(st->st_mode)) {
		if (path[len - 1] != '/' || !ENABLE_DEFAULT_INDEX) {
			close(fd);
			return path[len - 1] != '/' ? -301 : -403;
		}
		dfd = fd;	/* the directory's fd serves as openat's base */
		fd = openat(dfd, CONFIG_DEFAULT_INDEX,
		    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		close(dfd);
		if (fd == -1 || fstat(fd, st) == -1)
			goto fail;
		name = CONFIG_DEFAULT_INDEX;
		namelen = sizeof(CONFIG_DEFAULT_INDEX) - 1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return -403;
	}
	if ((*type = mime_lookup(name, namelen)) == NULL) {
		*type = "application/octet-stream";
		if (ENABLE_EXT_FILE_CMD && name == path &&
		    ext_file_type(path, typebuf, typesz) == 0)
			*type = typebuf;
	}
	return fd;

 fail:
	e = errno;
	if (fd != -1)
		close(fd);
	return -errno_status(e);
}

/*
 * Serves a GET or HEAD for a static file.  Returns 0 when the connection
 * may go on, -1 when it must be closed.
 */
int
file_serve(struct conn *c, struct request *r, struct reply *rp)
{
	char out[OUT_SIZE], typebuf[128], lastmod[29], *p, *path;
	const char *type, *date_lastmod;
	struct fcache *e;
	struct iovec iov[1];
	struct stat st;
	size_t srclen = r->req_path_len;
	ssize_t len;
	off_t size;
	time_t now;
	int fd, rc, cached, shrank = 0;

	/* QUERY_HACK: the query is part of the file name below its prefix */
	if (ENABLE_QUERY_HACK && r->req_query != NULL &&
	    strncmp(r->req_target, CONFIG_QUERY_HACK,
	    sizeof(CONFIG_QUERY_HACK) - 1) == 0)
		srclen = r->req_target_len;
	if (srclen >= PATH_MAX_LEN)
		return response_error(c, r, rp, 414);
	/* decode into the scratch room behind the received bytes: the page
	 * the request already sits in (see struct conn) */
	path = c->c_buf + c->c_len + 1;
	if ((len = url_decode(r->req_target, srclen, path, PATH_MAX_LEN)) < 0 ||
	    (len = path_normalize(path)) < 0)
		return response_error(c, r, rp, 400);

	p = response_head(out, 200, r->req_minor, c);
	(void)http_date_now(&now);
	if ((e = fcache_find(path, (size_t)len, now)) != NULL) {
		fd = e->fc_fd;
		size = e->fc_size;
		type = e->fc_type;
		date_lastmod = e->fc_lastmod;
		cached = 1;
	} else {
		fd = file_open(path, (size_t)len, &st, &type, typebuf,
		    sizeof(typebuf));
		if (fd == -301)
			return redirect_dir(c, r, rp);
		if (fd < 0)
			return response_error(c, r, rp, -fd);
		size = st.st_size;
		cached = type != typebuf &&
		    (e = fcache_add(path, (size_t)len, fd, &st, type, now)) != NULL;
		if (cached)
			date_lastmod = e->fc_lastmod;
		else {
			fmt_http_date(lastmod, st.st_mtime > now ? now : st.st_mtime);
			date_lastmod = lastmod;
		}
	}

	p = PUTS(p, "Content-Type: ");
	p = put(p, type, strlen(type));
	p = PUTS(p, "\r\nContent-Length: ");
	p = fmt_uint(p, (unsigned long long)size);
	p = PUTS(p, "\r\nLast-Modified: ");
	p = put(p, date_lastmod, 29);
	p = PUTS(p, "\r\n\r\n");
	iov[0].iov_base = out;
	iov[0].iov_len = (size_t)(p - out);
	rp->rp_status = 200;
	rp->rp_bytes = 0;

	if (r->req_method == M_HEAD || size == 0) {
		rc = conn_writev(c, iov, 1);
	} else if (size <= out + sizeof(out) - p) {
		/* one syscall for head and body, from one buffer */
		do
			len = pread(fd, p, (size_t)size, 0);
		while (len == -1 && errno == EINTR);
		if (len != size) {
			rc = -1;	/* shrank under us: the length is wrong */
			shrank = 1;
		} else {
			iov[0].iov_len += (size_t)len;
			rp->rp_bytes = len;
			rc = conn_writev(c, iov, 1);
		}
	} else {
		rc = conn_writev_more(c, iov, 1, 1);
		if (rc == 0)
			rc = conn_sendfile(c, fd, 0, size);
		if (rc == 0)
			rp->rp_bytes = size;
	}
	if (!cached)
		close(fd);
	else if (shrank)
		fcache_drop(e);		/* the file changed: forget it */
	return rc;
}
