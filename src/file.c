/* file.c - map a request to a file below PUBLIC_DIR and send it. */
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <unistd.h>

#include "mrhttpd.h"

enum {
	SMALL_FILE = 16384,	/* bodies up to this go out with the head in one writev */
	HEAD_SIZE = 512 + sizeof(CONFIG_PRAGMA) + PATH_MAX_LEN,
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
	char head[HEAD_SIZE + 16], *p;

	if (r->req_target_len > PATH_MAX_LEN)
		return response_error(c, r, rp, 414);
	p = response_head(head, 301, r->req_minor, c);
	p = PUTS(p, "Location: ");
	p = put(p, r->req_target, r->req_path_len);
	*p++ = '/';
	if (r->req_query != NULL) {
		*p++ = '?';
		p = put(p, r->req_query, r->req_query_len);
	}
	p = PUTS(p, "\r\nContent-Length: 0\r\n\r\n");
	rp->rp_status = 301;
	rp->rp_bytes = 0;
	return conn_write(c, head, (size_t)(p - head));
}

/*
 * Serves a GET or HEAD for a static file.  Returns 0 when the connection
 * may go on, -1 when it must be closed.
 */
int
file_serve(struct conn *c, struct request *r, struct reply *rp)
{
	char path[PATH_MAX_LEN], head[HEAD_SIZE], type[128], *p;
	char small[SMALL_FILE];
	const char *ctype, *name;
	struct iovec iov[2];
	struct stat st;
	size_t srclen = r->req_path_len, namelen;
	ssize_t len;
	time_t now;
	int fd, rc;

	/* QUERY_HACK: the query is part of the file name below its prefix */
	if (ENABLE_QUERY_HACK && r->req_query != NULL &&
	    strncmp(r->req_target, CONFIG_QUERY_HACK,
	    sizeof(CONFIG_QUERY_HACK) - 1) == 0)
		srclen = r->req_target_len;
	if (srclen >= sizeof(path))
		return response_error(c, r, rp, 414);
	if ((len = url_decode(r->req_target, srclen, path, sizeof(path))) < 0 ||
	    (len = path_normalize(path)) < 0)
		return response_error(c, r, rp, 400);

	fd = openat(settings.set_public_fd, path[1] != '\0' ? path + 1 : ".",
	    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd == -1 || fstat(fd, &st) == -1)
		goto fail;
	name = path;
	namelen = (size_t)len;
	if (S_ISDIR(st.st_mode)) {
		if (path[len - 1] != '/') {
			close(fd);
			return redirect_dir(c, r, rp);
		}
		if (!ENABLE_DEFAULT_INDEX) {
			close(fd);
			return response_error(c, r, rp, 403);
		}
		int dfd = fd;

		fd = openat(dfd, CONFIG_DEFAULT_INDEX,
		    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		close(dfd);
		if (fd == -1 || fstat(fd, &st) == -1)
			goto fail;
		name = CONFIG_DEFAULT_INDEX;
		namelen = sizeof(CONFIG_DEFAULT_INDEX) - 1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return response_error(c, r, rp, 403);
	}

	if ((ctype = mime_lookup(name, namelen)) == NULL) {
		ctype = "application/octet-stream";
		if (ENABLE_EXT_FILE_CMD && name == path &&
		    ext_file_type(path, type, sizeof(type)) == 0)
			ctype = type;
	}

	p = response_head(head, 200, r->req_minor, c);
	p = PUTS(p, "Content-Type: ");
	p = put(p, ctype, strlen(ctype));
	p = PUTS(p, "\r\nContent-Length: ");
	p = fmt_uint(p, (unsigned long long)st.st_size);
	p = PUTS(p, "\r\nLast-Modified: ");
	(void)http_date_now(&now);
	p = fmt_http_date(p, st.st_mtime > now ? now : st.st_mtime);
	p = PUTS(p, "\r\n\r\n");
	iov[0].iov_base = head;
	iov[0].iov_len = (size_t)(p - head);
	rp->rp_status = 200;
	rp->rp_bytes = 0;

	if (r->req_method == M_HEAD || st.st_size == 0) {
		close(fd);
		return conn_writev(c, iov, 1);
	}
	if (st.st_size <= SMALL_FILE) {
		/* one syscall for head and body */
		do
			len = pread(fd, small, (size_t)st.st_size, 0);
		while (len == -1 && errno == EINTR);
		close(fd);
		if (len != st.st_size)
			return -1;	/* shrank under us: the length is wrong */
		iov[1].iov_base = small;
		iov[1].iov_len = (size_t)len;
		rp->rp_bytes = len;
		return conn_writev(c, iov, 2);
	}
	rc = conn_writev_more(c, iov, 1, 1);
	if (rc == 0)
		rc = conn_sendfile(c, fd, 0, st.st_size);
	if (rc == 0)
		rp->rp_bytes = st.st_size;
	close(fd);
	return rc;

 fail:
	rc = errno;
	if (fd != -1)
		close(fd);
	return response_error(c, r, rp, errno_status(rc));
}
