/*
 * upload.c - PUT and DELETE below PUT_PATH (in PUBLIC_DIR), as in upstream
 * mrhttpd 2.8.
 *
 * An upload streams into a temporary file beside its target, is synced,
 * and only then renamed over it: a client that aborts, a full disk or a
 * crash leaves the old file whole.  Nothing of the body is held in memory.
 * The temporary file is locked while it is written; at start-up, those
 * that a crash or a power cut left behind are swept (upload_sweep).
 */
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "upload.h"

enum {
	/* directories below PUT_PATH that PUT and DELETE reach (414), and
	 * the sweep; a DELETE of a deeper tree fails (409) */
	TREE_DEPTH_MAX = 16,
	CREATE_TRIES = 4,	/* temporary names a starting sweep may take */
};

/*
 * Opens the directories of path (absolute, below PUBLIC_DIR) one at a
 * time, never following a symbolic link, and creates them when create is
 * set; *last gets the component after them.  Writes NULs over path's
 * slashes.  The last directory's fd, or -1 with errno set.
 */
static int
open_dirs(char *path, int create, char **last)
{
	char *comp, *slash;
	int dfd, fd, e;

	/* a description of its own, not a dup: flock(2) locks belong to
	 * the description, and a dup of one shared by every PUT and DELETE
	 * in the root locked nothing (upload_commit_lock) */
	if ((dfd = openat(settings.set_public_fd, ".", O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	for (comp = path + 1; (slash = strchr(comp, '/')) != NULL;
	    comp = slash + 1) {
		*slash = '\0';
		/* a directory made is synced into its parent at once: the
		 * upload's own sync reaches its last directory only */
		if (create && mkdirat(dfd, comp, 0755) == 0)
			(void)fsync(dfd);
		else if (create && errno != EEXIST)
			goto fail;
		fd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd == -1)
			goto fail;
		close(dfd);
		dfd = fd;
	}
	*last = comp;
	return dfd;

 fail:
	e = errno;
	close(dfd);
	errno = e;
	return -1;
}

int
upload_below(const char *path, ssize_t len)
{
	size_t plen = sizeof(CONFIG_PUT_PATH) - 1;

	return len > 0 && (size_t)len > plen + 1 &&
	    memcmp(path, CONFIG_PUT_PATH, plen) == 0 && path[plen] == '/';
}

/*
 * May a PUT make a file or directory of this name?  UTF-8 only, with no
 * control character: C0 and DEL, and C1 too, raw or encoded (0x9b is an
 * escape to a terminal as ESC [ is); nor a bidirectional control (an
 * override shows "txt.exe" as "exe.txt"), nor a line or paragraph
 * separator.
 */
static int
name_ok(const char *name)
{
	const unsigned char *u = (const unsigned char *)name;
	size_t n = strlen(name), i, len;
	unsigned cp;

	for (i = 0; i < n; i += len)
		if ((len = utf8_next(u + i, n - i, &cp)) == 0 || cp < 0x20 ||
		    (cp >= 0x7f && cp < 0xa0) || cp == 0x061c ||
		    cp == 0x200e || cp == 0x200f || (cp >= 0x2028 &&
		    cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
			return 0;
	return 1;
}

/*
 * Splits the request's path below PUT_PATH into its directory, opened
 * (open_dirs), and its last component, copied to name.  Returns the
 * directory's fd, or -status: 405 outside PUT_PATH, 403 for the name of
 * a temporary file, 400 for a name a PUT may not make (name_ok), 414 for
 * a name over 255 bytes or deeper than TREE_DEPTH_MAX, both before any
 * directory is made.  Missing directories are made with create set.
 */
static int
upload_locate(struct request *r, int create, char *name,
    size_t namesz)
{
	size_t plen = sizeof(CONFIG_PUT_PATH) - 1;
	char *path, *comp;
	const char *p, *q;
	ssize_t len;
	int dfd, depth = 0;

	if ((len = r->req_decoded_len) < 0)
		return (int)len;
	path = r->req_decoded;
	if (!upload_below(path, len))
		return -405;
	if (path[len - 1] == '/')
		return -409;		/* a directory cannot be PUT */
	/* those names are the server's (GET refuses them too): none may be
	 * written, removed, or made a directory the sweep does not read */
	if (strstr(path + plen, "/" UPLOAD_PREFIX) != NULL)
		return -403;
	/* no name with a control byte (a newline, an escape) is made: it
	 * would break the listings, logs and scripts of whoever reads the
	 * tree.  One that is there already may still be read or removed */
	if (r->req_method == M_PUT && !name_ok(path + plen))
		return -400;
	/* no name over 255 bytes, nor more than TREE_DEPTH_MAX directories:
	 * 414 before a directory is made for it */
	for (p = path + plen; *p != '\0'; p = q, depth++) {
		if ((q = strchr(p + 1, '/')) == NULL)
			q = p + strlen(p);
		if ((size_t)(q - p - 1) >= namesz)
			return -414;
	}
	if (depth - 1 > TREE_DEPTH_MAX)
		return -414;
	if ((dfd = open_dirs(path, create, &comp)) == -1)
		return -errno_status(errno, 1);
	/* the path's scratch room may be reused; it fits, checked above */
	strcpy(name, comp);
	return dfd;
}

static const char *
gz_name(char *gz, const char *name)	/* name: under 256 bytes */
{
	size_t n = strlen(name);

	memcpy(gz, name, n);
	memcpy(gz + n, ".gz", 4);
	return gz;
}

/* GZIP_STATIC: FILE.gz, which a client that takes gzip gets for FILE,
 * goes with the FILE it stood for, replaced or removed: else that client
 * went on getting the old content, even after a DELETE.  Not with a
 * directory: DIR.gz is a file of its own (an archive of it, say).  Under
 * the commit lock. */
static void
upload_drop_gz(int dfd, const char *name)
{
	char gz[256 + 3];

	if (ENABLE_GZIP_STATIC)
		(void)unlinkat(dfd, gz_name(gz, name), 0);
}

/* GZIP_STATIC: is FILE.gz there without FILE (1, *st its)?  A client that
 * takes gzip gets it for FILE, so a DELETE of FILE removes it.  errno is
 * kept, FILE's. */
static int
gz_only(int dfd, const char *name, char *gz, struct stat *st)
{
	int e = errno;

	if (ENABLE_GZIP_STATIC && e == ENOENT && fstatat(dfd, gz_name(gz,
	    name), st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st->st_mode))
		return 1;
	errno = e;
	return 0;
}

/* A status reply without a body (201, 204). */
static int
upload_done(struct conn *c, struct request *r, struct reply *rp, int status)
{
	struct response rs;

	response_init(&rs, status, NULL, 0);	/* no fields */
	return response_send(c, r, rp, &rs);
}

#ifndef SYS_renameat2
#define SYS_renameat2	(-1)	/* headers before Linux 3.15: a plain rename */
#endif

/*
 * Renames the finished upload tmp to name.  With excl (If-None-Match,
 * and no file there a moment ago) it must not replace one that came
 * meanwhile: RENAME_NOREPLACE, or a plain rename where the filesystem
 * has no such flag.  0, or -1 with errno set (EEXIST: one came).
 */
static int
put_rename(int dfd, const char *tmp, const char *name, int excl)
{
	if (excl && syscall(SYS_renameat2, dfd, tmp, dfd, name,
	    1U /* RENAME_NOREPLACE */) == 0)
		return 0;
	if (excl && errno != EINVAL && errno != ENOSYS)
		return -1;
	return renameat(dfd, tmp, dfd, name);
}

/*
 * A hidden name no client can guess (and so cannot take first) for an
 * upload's temporary file, into tmp (size at least 64); GET refuses
 * these names while an upload is in progress.
 */
static void
upload_tmpname(char *tmp, size_t size)
{
	static unsigned serial;
	unsigned long long rnd, seq = __atomic_add_fetch(&serial, 1,
	    __ATOMIC_RELAXED);
	struct buf tb;
	int i;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = seq * 0x9e3779b97f4a7c15ULL;
	buf_init(&tb, tmp, size - 1);
	buf_lit(&tb, UPLOAD_PREFIX);
	for (i = 60; i >= 0; i -= 4)	/* 16 digits, zeros too */
		buf_hex(&tb, rnd >> i & 15, 0);
	buf_char(&tb, '-');
	buf_uint(&tb, seq);
	buf_cstr(&tb);
}

/*
 * Copies the request body into fd and syncs it.  Returns -1 when it is
 * all on the disk, 0 when the client went away, else the status to
 * answer (408 for a client that stalled, 413, an errno's 5xx).
 */
static int
upload_copy(struct conn *c, struct body *b, int fd)
{
	char buf[8192], *p;
	ssize_t n, w;

	while ((n = body_read(c, b, buf, sizeof(buf))) > 0) {
		for (p = buf; n > 0; p += w, n -= w) {
			if ((w = write(fd, p, (size_t)n)) == -1 && errno == EINTR)
				w = 0;
			else if (w == -1)
				return errno_status(errno, 1);
		}
	}
	if (n < 0)	/* -1: the client is gone; else a status */
		return n == -1 ? 0 : (int)-n;
	return fsync(fd) == -1 ? errno_status(errno, 1) : -1;
}

/*
 * A PUT or DELETE takes the target's directory (dfd) for itself from its
 * last look at the target to the change made on what it saw, so that two
 * If-Match PUTs that read the same ETag cannot both replace the file, nor
 * any other change come between.  A lock of the directory (flock, so that
 * another server on the same tree waits too), released when dfd is
 * closed; where the filesystem has none, nothing waits.
 */
static void
upload_commit_lock(int dfd)
{
	while (flock(dfd, LOCK_EX) == -1 && errno == EINTR)
		;
}

/* Is name in dfd there (1), not there (0), or not to be known (-1, errno
 * set)?  An error is never taken for "not there": that skipped an
 * If-Unmodified-Since, and the file was replaced.  Where only FILE.gz is
 * (GZIP_STATIC), that is there, as for a DELETE: a client that takes gzip
 * has it for FILE, with its ETag. */
static int
target_stat(int dfd, const char *name, struct stat *st)
{
	char gz[256 + 3];

	if (fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	return errno != ENOENT ? -1 : gz_only(dfd, name, gz, st);
}

/*
 * Creates an upload's temporary file in dfd, locked until its rename: a
 * server starting meanwhile sweeps every one not locked, however new.
 * One that a sweep found first (locked by it, or gone once ours came) is
 * left to it and another name tried.  A filesystem without locks has no
 * sweep either.  The descriptor, or -1 with errno set.
 */
static int
upload_create(int dfd, char *tmp, size_t tmpsz)
{
	struct stat st;
	int fd, i;

	for (i = 0; i < CREATE_TRIES; i++) {
		upload_tmpname(tmp, tmpsz);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		    O_NOFOLLOW, 0644);
		if (fd == -1)
			return -1;
		if (flock(fd, LOCK_EX | LOCK_NB) == -1 ? errno != EWOULDBLOCK :
		    fstat(fd, &st) == -1 || st.st_nlink > 0)
			return fd;
		close(fd);
	}
	errno = EBUSY;
	return -1;
}

int
upload_put(struct conn *c, struct request *r, struct reply *rp)
{
	char name[256], tmp[64];
	struct body *b = c->c_body;
	struct stat st;
	int dfd, fd, status = 0, existed;

	/* a part of the file (RFC 9110 14.5): we write whole files, and
	 * taking the part for the whole would cut the file to it */
	if (request_find(r, "Content-Range", 13) != NULL)
		return response_error(c, r, rp, 400);
	/* a body to read, the disk to wait for: never on the turn */
	if (server_yield() != 0)
		return response_error(c, r, rp, 503);
	if (CONFIG_PUT_MAX_BODY >= 0) {
		if (r->req_clen > CONFIG_PUT_MAX_BODY)
			return response_error(c, r, rp, 413);
		b->b_max = CONFIG_PUT_MAX_BODY;
	}
	/* If-Match needs the file there: no directory is made for it, and
	 * one missing is a 412 */
	if ((dfd = upload_locate(r, r->req_if_match == NULL, name,
	    sizeof(name))) < 0) {
		if (dfd == -404 && r->req_if_match != NULL)
			dfd = -412;
		if (dfd == -405)
			return response_error_field(c, r, rp, 405, "Allow", ALLOW_METHODS);
		return response_error(c, r, rp, -dfd);
	}
	existed = target_stat(dfd, name, &st);
	if ((status = existed == -1 ? errno_status(errno, 1) :
	    existed && S_ISDIR(st.st_mode) ? 409 :
	    file_preconditions(r, existed ? &st : NULL)) != 0) {
		close(dfd);	/* before a byte of the body is read */
		return response_error(c, r, rp, status);
	}

	if ((fd = upload_create(dfd, tmp, sizeof(tmp))) == -1) {
		status = errno_status(errno, 1);
		close(dfd);
		return response_error(c, r, rp, status);
	}

	if ((status = upload_copy(c, b, fd)) != -1)
		goto abort;
	/* the preconditions again, on the target as it is now */
	upload_commit_lock(dfd);
	existed = target_stat(dfd, name, &st);
	if ((status = existed == -1 ? errno_status(errno, 1) :
	    file_preconditions(r, existed ? &st : NULL)) != 0)
		goto abort;
	/* still locked: a server starting meanwhile leaves it be */
	if (put_rename(dfd, tmp, name, !existed &&
	    r->req_if_none_match != NULL) == -1) {
		status = errno == EEXIST ? 412 : errno_status(errno, 1);
		goto abort;
	}
	upload_drop_gz(dfd, name);
	/* the new name on the disk too before the client hears of it: a
	 * router's power goes without warning (directories made for it were
	 * synced by open_dirs).  The lock first: other commits need not
	 * wait for the disk */
	(void)flock(dfd, LOCK_UN);
	(void)fsync(dfd);
	close(fd);
	close(dfd);
	file_cache_invalidate();	/* no client may see the old file */
	return upload_done(c, r, rp, existed ? 204 : 201);

 abort:
	/* the old file, if any, is untouched; the partial one goes */
	if (fd != -1)
		close(fd);
	unlinkat(dfd, tmp, 0);
	close(dfd);
	if (status == 0)
		return -1;
	if (body_pending(b))
		c->c_close = 1;		/* the rest of the body is unread */
	return response_error(c, r, rp, status);
}

/*
 * Removes name in dirfd and, for a directory, everything in it.
 * Returns 0, or -1 with errno set.
 */
static int
remove_tree(int dirfd, const char *name, int depth)
{
	union {
		char		 b[1024];
		uint64_t	 align;	/* the records hold 64-bit fields */
	} buf;
	const struct dir_rec *d;
	ssize_t n;
	size_t off;
	int fd, e, any;

	if (unlinkat(dirfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR && errno != EPERM)	/* a directory: EISDIR */
		return -1;
	if (depth >= TREE_DEPTH_MAX) {
		errno = ELOOP;
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1)
		return -1;
	/* read from the start again after each batch of removals, as entries
	 * move under a reader while their directory changes */
	do {
		any = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = dir_read(fd, buf.b, sizeof(buf.b))) > 0)
			for (off = 0; (d = dir_next(buf.b, (size_t)n, &off));) {
				if (strcmp(d->d_name, ".") == 0 ||
				    strcmp(d->d_name, "..") == 0)
					continue;
				if (remove_tree(fd, d->d_name, depth + 1) == -1) {
					e = errno;
					close(fd);
					errno = e;
					return -1;
				}
				any = 1;
			}
		if (n < 0) {
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
	} while (any);
	close(fd);
	return unlinkat(dirfd, name, AT_REMOVEDIR);
}

int
upload_delete(struct conn *c, struct request *r, struct reply *rp)
{
	char name[256], gz[256 + 3];
	const char *target = name;
	struct stat st;
	int dfd, rc;

	/* a tree may take a while: never on the turn */
	if (server_yield() != 0)
		return response_error(c, r, rp, 503);
	if ((dfd = upload_locate(r, 0, name, sizeof(name))) < 0) {
		if (dfd == -405)
			return response_error_field(c, r, rp, 405, "Allow", ALLOW_METHODS);
		return response_error(c, r, rp, -dfd);
	}
	/* a name that is not there is a 404 whatever the conditions say */
	upload_commit_lock(dfd);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		rc = file_preconditions(r, &st);
	else if (gz_only(dfd, name, gz, &st)) {
		target = gz;
		rc = file_preconditions(r, &st);
	} else
		rc = errno_status(errno, 1);
	if (rc == 0 && remove_tree(dfd, target, 0) == -1)
		rc = errno_status(errno, 1);
	/* a link's too: what it names is FILE; a directory's is no variant */
	if (rc == 0 && !S_ISDIR(st.st_mode))
		upload_drop_gz(dfd, name);
	/* gone on the disk too before the 204, as an upload is there */
	(void)flock(dfd, LOCK_UN);
	if (rc == 0)
		(void)fsync(dfd);
	close(dfd);
	if (rc != 0)
		return response_error(c, r, rp, rc);
	file_cache_invalidate();	/* nor what is gone */
	return upload_done(c, r, rp, 204);
}

/*
 * Removes one temporary file, unless an upload holds it locked.  However
 * new: one that a crash left a moment ago is as dead (a server restarted
 * at once kept them), and an upload that has not locked its file yet
 * will find it taken (upload_create).
 */
static int
sweep_file(int dirfd, const char *name)
{
	struct stat st;
	int fd, gone = 0;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC);
	if (fd == -1)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0)
		gone = unlinkat(dirfd, name, 0) == 0;
	close(fd);
	return gone;
}

/* The temporary files below dirfd, directories depth levels down. */
static unsigned
sweep_dir(int dirfd, int depth)
{
	union {
		char		 b[1024];
		uint64_t	 align;
	} buf;
	const struct dir_rec *d;
	unsigned gone = 0;
	ssize_t n;
	size_t off;
	int fd;

	while ((n = dir_read(dirfd, buf.b, sizeof(buf.b))) > 0)
		for (off = 0; (d = dir_next(buf.b, (size_t)n, &off));) {
			if (strncmp(d->d_name, UPLOAD_PREFIX,
			    sizeof(UPLOAD_PREFIX) - 1) == 0)
				gone += sweep_file(dirfd, d->d_name);
			else if ((d->d_type == DT_DIR || d->d_type == DT_UNKNOWN) &&
			    depth < TREE_DEPTH_MAX &&
			    strcmp(d->d_name, ".") != 0 &&
			    strcmp(d->d_name, "..") != 0 &&
			    (fd = openat(dirfd, d->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
				gone += sweep_dir(fd, depth + 1);
				close(fd);
			}
		}
	return gone;
}

void
upload_sweep(void)
{
	char path[] = CONFIG_PUT_PATH "/", *last;
	unsigned gone;
	int fd;

	if ((fd = open_dirs(path, 0, &last)) == -1)
		return;		/* made by the first PUT */
	if ((gone = sweep_dir(fd, 0)) > 0)
		log_warn("removed %u temporary files of unfinished uploads "
		    "below %s", gone, *CONFIG_PUT_PATH ? CONFIG_PUT_PATH : "/");
	close(fd);
}
