/*
 * io.c - a connection's byte stream.  Everything above reads and writes a
 * client only through these functions, so that TLS or HTTP/2 can later sit
 * underneath without touching the request code.
 *
 * The socket is non-blocking.  A read returns what is there (the callers
 * wait for input first, with their own deadlines); a write that finds the
 * socket full waits for room, and fails when none comes for
 * REQUEST_TIMEOUT.  Before any wait, the thread hands the turn on
 * (server.c), so that a slow client stalls no one else.
 */
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "mrhttpd.h"

enum { SEND_BUDGET = 1 << 20 };	/* bytes in a row on the turn */

/* Returns bytes read, 0 at end of stream, -1 on error or when nothing is
 * there yet (EAGAIN). */
ssize_t
conn_read(struct conn *c, void *buf, size_t n)
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

/*
 * Waits up to ms for input.  Returns 1 when readable, 0 on time-out, -1 on
 * error or when it may not wait (no thread could take the turn).
 */
int
conn_wait_readable(struct conn *c, int ms)
{
	struct pollfd pfd = { .fd = c->c_fd, .events = POLLIN };
	int r;

	if (server_yield() != 0)
		return -1;
	do
		r = poll(&pfd, 1, ms);
	while (r == -1 && errno == EINTR);
	return r;
}

/* After EAGAIN on a write: waits for room.  Returns 0, or -1 on time-out
 * or when it may not wait (then the client, stuck, is closed). */
static int
conn_wait_writable(struct conn *c)
{
	struct pollfd pfd = { .fd = c->c_fd, .events = POLLOUT };
	int r;

	if (server_yield() != 0)
		return -1;
	do
		r = poll(&pfd, 1, CONFIG_REQUEST_TIMEOUT * 1000);
	while (r == -1 && errno == EINTR);
	return r > 0 ? 0 : -1;
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
			if (errno == EINTR || ((errno == EAGAIN ||
			    errno == EWOULDBLOCK) && conn_wait_writable(c) == 0))
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
	off_t sent = 0;

	if (ENABLE_SENDFILE) {
		while (len > 0) {
			n = sendfile(c->c_fd, fd, &off,
			    len > SEND_BUDGET ? SEND_BUDGET : (size_t)len);
			if (n > 0) {
				len -= n;
				/* fairness: a fast reader of a big file gets
				 * SEND_BUDGET bytes on the turn, then the turn
				 * goes to the others */
				if ((sent += n) >= SEND_BUDGET && len > 0) {
					sent = 0;
					(void)server_yield();
				}
				continue;
			}
			if (n == -1 && (errno == EINTR || ((errno == EAGAIN ||
			    errno == EWOULDBLOCK) && conn_wait_writable(c) == 0)))
				continue;
			return -1;	/* gone, stuck, or the file shrank */
		}
		return 0;
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
		if ((sent += n) >= SEND_BUDGET && len > 0) {	/* as above */
			sent = 0;
			(void)server_yield();
		}
	}
	return 0;
}
