/*
 * io.c - a connection's byte stream.  Everything above reads and writes a
 * client only through these functions, so that TLS or HTTP/2 can later sit
 * underneath without touching the request code.
 *
 * The socket is blocking, with SO_RCVTIMEO and SO_SNDTIMEO set once at
 * accept: a send that makes no progress for REQUEST_TIMEOUT fails with
 * EAGAIN, and so does a read that waits longer than KEEPALIVE_TIMEOUT.
 */
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "mrhttpd.h"

/* Returns bytes read, 0 at end of stream, -1 on error or time-out. */
ssize_t
conn_read(struct conn *c, void *buf, size_t n)
{
	ssize_t r;

	do
		r = read(c->c_fd, buf, n);
	while (r == -1 && errno == EINTR);
	return r;
}

/* Waits up to ms for input.  Returns 1 when readable, 0 on time-out, -1 on error. */
int
conn_wait_readable(struct conn *c, int ms)
{
	struct pollfd pfd = { .fd = c->c_fd, .events = POLLIN };
	int r;

	do
		r = poll(&pfd, 1, ms);
	while (r == -1 && errno == EINTR);
	return r;
}

/*
 * Writes all of iov; with more set, tells the kernel more data follows at
 * once (MSG_MORE), so a head and a sendfile body share packets.
 * Returns 0, or -1 when the client is gone or stuck.
 */
int
conn_writev_more(struct conn *c, struct iovec *iov, int cnt, int more)
{
	struct msghdr msg = { 0 };
	ssize_t w;

	while (cnt > 0) {
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)cnt;
		w = sendmsg(c->c_fd, &msg, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
		if (w == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (cnt > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

int
conn_writev(struct conn *c, struct iovec *iov, int cnt)
{
	return conn_writev_more(c, iov, cnt, 0);
}

int
conn_write(struct conn *c, const void *buf, size_t n)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = n };

	return conn_writev(c, &iov, 1);
}

/*
 * Sends len bytes of fd from off.  Returns 0, or -1 when the client is gone,
 * stuck, or the file shrank under us (the connection must then be closed:
 * the Content-Length already sent can no longer be honoured).
 */
int
conn_sendfile(struct conn *c, int fd, off_t off, off_t len)
{
	ssize_t n;

	if (ENABLE_SENDFILE) {
		/*
		 * SO_SNDTIMEO does not bound sendfile(2) (seen on Linux 6.x):
		 * a client that stops reading would hold the thread forever.
		 * So the socket is non-blocking for the body, and each stall
		 * may last at most REQUEST_TIMEOUT.
		 */
		struct pollfd pfd = { .fd = c->c_fd, .events = POLLOUT };
		int rc = 0;

		fcntl(c->c_fd, F_SETFL, O_NONBLOCK);
		while (len > 0) {
			n = sendfile(c->c_fd, fd, &off,
			    len > 0x7ffff000 ? 0x7ffff000 : (size_t)len);
			if (n > 0) {
				len -= n;
				continue;
			}
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 && errno == EAGAIN &&
			    poll(&pfd, 1, CONFIG_REQUEST_TIMEOUT * 1000) > 0)
				continue;
			rc = -1;	/* gone, stuck, or the file shrank */
			break;
		}
		fcntl(c->c_fd, F_SETFL, 0);
		return rc;
	}

	/* user-space copy, 16 KiB at a time, from the thread's stack */
	char buf[16384];

	while (len > 0) {
		n = pread(fd, buf, len > (off_t)sizeof(buf) ? sizeof(buf) :
		    (size_t)len, off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0 || conn_write(c, buf, (size_t)n) == -1)
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}
