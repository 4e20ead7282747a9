/*
 * transport.c - what every transport shares: a file sent by read and
 * write where the transport has no sendfile of its own.
 */
#include <errno.h>
#include <unistd.h>

#include "mrhttpd.h"

int
conn_copyfile(struct conn *c, int fd, off_t off, off_t len)
{
	char buf[16384];	/* from the thread's stack */
	off_t sent = 0;
	ssize_t n;

	while (len > 0) {
		n = pread(fd, buf, len > (off_t)sizeof(buf) ? sizeof(buf) :
		    (size_t)len, off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0 || conn_write(c, buf, (size_t)n) == -1)
			return -1;
		off += n;
		len -= n;
		/* fairness, as plain.c's sendfile */
		if ((sent += n) >= SEND_BUDGET && len > 0) {
			sent = 0;
			(void)server_yield();
		}
	}
	return 0;
}
