/*
 * plain.c - the plain TCP transport: the socket's own read, sendmsg and
 * sendfile.
 *
 * The socket is non-blocking.  A read returns what is there (the callers
 * wait for input first, with their own deadlines); a write that finds the
 * socket full waits for room, and fails when none comes for
 * REQUEST_TIMEOUT.
 */
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "mrhttpd.h"

enum {
	LINGER_MS = 2000,	/* how long a closing connection drains input */
};

static ssize_t
plain_read(struct conn *c, void *buf, size_t n)
{
	ssize_t r;

	do
		r = read(c->c_fd, buf, n);
	while (r == -1 && errno == EINTR);
	/* a full read may have left more behind: the connection must not be
	 * parked before reading again, as epoll (edge-triggered) will not
	 * report input that was already there */
	if (r > 0 && (size_t)r == n)
		__atomic_store_n(&c->c_more, 1, __ATOMIC_RELAXED);
	return r;
}

/* After EAGAIN on a write: waits for room.  0, or -1 on time-out or when
 * it may not wait (then the client, stuck, is closed). */
static int
wait_writable(struct conn *c)
{
	long long ms = conn_write_ms(c);

	/* none left (c_wdue passed): a negative wait would be for ever */
	return (!ENABLE_CGI || ms > 0) && server_wait(c, POLLOUT, (int)ms) > 0 ?
	    0 : -1;
}

static int
plain_writev(struct conn *c, struct iovec *iov, int cnt, int flags)
{
	struct msghdr msg = { 0 };
	int how = MSG_NOSIGNAL | (flags & IO_MORE ? MSG_MORE : 0) |
	    (flags & IO_NOWAIT ? MSG_DONTWAIT : 0);
	ssize_t w;

	while (cnt > 0) {
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)cnt;
		w = sendmsg(c->c_fd, &msg, how);
		if (w == -1) {
			if (errno == EINTR || ((errno == EAGAIN ||
			    errno == EWOULDBLOCK) && !(flags & IO_NOWAIT) &&
			    wait_writable(c) == 0))
				continue;
			return -1;
		}
		/* IO_NOWAIT may give up only before the first byte: once a
		 * part is out, the rest must follow, or the stream is torn */
		if (w > 0 && (flags & IO_NOWAIT)) {
			flags &= ~IO_NOWAIT;
			how &= ~MSG_DONTWAIT;
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

static int
plain_sendfile(struct conn *c, int fd, off_t off, off_t len)
{
	ssize_t n;
	off_t sent = 0;

	while (len > 0) {
		n = sendfile(c->c_fd, fd, &off,
		    len > SEND_BUDGET ? SEND_BUDGET : (size_t)len);
		if (n > 0) {
			len -= n;
			/* fairness: a fast reader of a big file gets
			 * SEND_BUDGET bytes on the turn, then the turn goes
			 * to the others */
			if ((sent += n) >= SEND_BUDGET && len > 0) {
				sent = 0;
				(void)server_yield();
			}
			continue;
		}
		if (n == -1 && (errno == EINTR || ((errno == EAGAIN ||
		    errno == EWOULDBLOCK) && wait_writable(c) == 0)))
			continue;
		return -1;	/* gone, stuck, or the file shrank */
	}
	return 0;
}

/*
 * With unread input, half-closes and drains it briefly first: closing
 * with data pending sends a reset that can destroy the reply just
 * written before the client reads it.
 */
static void
plain_close(struct conn *c, int drain)
{
	char sink[4096];
	long long deadline;

	if (drain) {
		shutdown(c->c_fd, SHUT_WR);
		deadline = now_ms() + LINGER_MS;
		while (now_ms() < deadline &&
		    server_wait(c, POLLIN, (int)(deadline - now_ms())) > 0 &&
		    plain_read(c, sink, sizeof(sink)) > 0)
			;
	}
	close(c->c_fd);
}

const struct transport plain_transport = {
	.t_read = plain_read,
	.t_writev = plain_writev,
	.t_sendfile = ENABLE_SENDFILE ? plain_sendfile : NULL,
	.t_pending = NULL,
	.t_wait = server_wait,
	.t_close = plain_close,
	.t_kernel_copy = 1,
};
