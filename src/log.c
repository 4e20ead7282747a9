/*
 * log.c - the access log (Combined Log Format) and messages.
 *
 * Every line is formatted on the stack and written with one write(2) to an
 * O_APPEND descriptor, so lines from different threads never interleave and
 * no lock is taken.  Timestamps are cached per thread, once a second.
 *
 * A log that is not a file (a pipe such as procd's or a shell's, a FIFO,
 * a terminal, a socket, syslog's) is written without waiting: when its
 * reader falls behind, lines are lost and counted, never the service.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int log_fd = STDOUT_FILENO;
static int log_sock;		/* log_fd is a socket: send, MSG_DONTWAIT */
static int log_lost;		/* lines not taken since the last said so */

/*
 * stdout as a log written without waiting.  A file is kept as it is (a
 * full disk fails at once).  A socket is sent to with MSG_DONTWAIT.
 * Anything else (a pipe, FIFO or terminal) is opened again through
 * /proc, for a description of its own whose O_NONBLOCK touches no other
 * holder; without /proc it stays as it was, and may block.  Returns the
 * descriptor to write to.
 */
static int
log_nowait(void)
{
	struct stat st;
	int fd;

	if (fstat(STDOUT_FILENO, &st) == -1 || S_ISREG(st.st_mode))
		return STDOUT_FILENO;
	if (S_ISSOCK(st.st_mode)) {
		log_sock = 1;
		return STDOUT_FILENO;
	}
	fd = open("/proc/self/fd/1", O_WRONLY | O_APPEND | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY);
	return fd != -1 ? fd : STDOUT_FILENO;
}

/*
 * syslog(3) waits for a reader that does not read (and for 10 queued
 * datagrams at most): the lines go on a socket of ours instead, to
 * /dev/log by its name, so that a restarted syslogd is found again.  A
 * datagram socket, as syslogds listen on, else a stream one (syslog-ng's
 * unix-stream), its messages ended by a NUL as glibc's.  A new one that
 * connected takes syslog_fd's place with dup3, under the threads that
 * send on it; one that did not is dropped, and the old one kept (the
 * first is kept either way, to connect again later).  0, or -1 when no
 * socket could be had.
 */
static int syslog_fd = -1, syslog_stream;	/* syslog_stream atomic */
static const struct sockaddr_un syslog_addr = {
	.sun_family = AF_UNIX, .sun_path = "/dev/log" };

static int
syslog_connect(void)
{
	int type = SOCK_DGRAM, fd, ok;

	for (;;) {
		fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd == -1)
			return -1;
		ok = connect(fd, (const struct sockaddr *)&syslog_addr,
		    sizeof(syslog_addr)) == 0;
		if (ok || errno != EPROTOTYPE || type == SOCK_STREAM)
			break;
		close(fd);
		type = SOCK_STREAM;
	}
	if (syslog_fd == -1)
		syslog_fd = fd;
	else if (ok)
		dup3(fd, syslog_fd, O_CLOEXEC);
	if (ok || fd == syslog_fd)
		__atomic_store_n(&syslog_stream, type == SOCK_STREAM,
		    __ATOMIC_RELAXED);
	if (fd != syslog_fd)
		close(fd);
	return 0;
}

/* The line (its newline left out) as "<30>mrhttpd[PID]: line": facility
 * daemon, priority info, and no time stamp, so that syslogd stamps its
 * own local time (RFC 3164 4.3.2).  A stream cut in a message is left
 * for a new one. */
static ssize_t
syslog_send(const char *line, size_t n)
{
	char msg[2100];
	struct buf b;
	size_t len;
	ssize_t w;
	int again = 1;

	buf_init(&b, msg, sizeof(msg));
	buf_lit(&b, "<30>mrhttpd[");
	buf_uint(&b, (unsigned long long)getpid());
	buf_lit(&b, "]: ");
	buf_add(&b, line, n - 1);
	buf_char(&b, '\0');
	for (;;) {
		len = buf_len(&b) - !__atomic_load_n(&syslog_stream,
		    __ATOMIC_RELAXED);
		w = send(syslog_fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w == (ssize_t)len)
			return (ssize_t)n;
		/* syslogd went away (and may be back), or a stream was
		 * cut: a new socket, and once more for the first */
		if ((w == -1 && (errno == EAGAIN || errno == EINTR)) ||
		    syslog_connect() == -1 || w > 0 || !again--)
			return -1;
	}
}

/*
 * Opens the log: LOG_FILE (inside SERVER_ROOT when given the jail's path
 * as prefix), syslog, or stdout.  Called before the jail with root's
 * rights, and again on SIGHUP with prefix "" to reopen after rotation:
 * dup3 swaps the descriptor under the writing threads atomically.  A
 * file it makes is given to owner (SYSTEM_USER; -1: none) where it can
 * be, so that a reopen as that user can open it again; one that was
 * there keeps its owner.  Returns 0, or -1 with errno set.
 */
int
log_open(const char *prefix, uid_t owner)
{
	char path[2048];
	/* O_NONBLOCK: a FIFO or terminal there never holds the server up (a
	 * file takes no notice), and a FIFO nobody reads fails the start */
	int fd, flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW |
	    O_NONBLOCK;

	static int opened;

	if (ENABLE_SYSLOG)	/* connected to /dev/log before the jail */
		return syslog_fd == -1 ? syslog_connect() : 0;
	if (!ENABLE_LOG_FILE) {
		if (!opened)
			log_fd = log_nowait();
		opened = 1;
		return 0;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s%s", prefix,
	    CONFIG_LOG_FILE) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* opened as root, in a directory the server's user may write to
	 * (for rotation): never through a link planted there */
	if ((fd = open(path, flags | O_CREAT | O_EXCL, 0640)) != -1) {
		/* not where files have no owners (vfat), or not as root:
		 * then the server goes on, and only a reopen may fail */
		if (owner != (uid_t)-1 && fchown(fd, owner, (gid_t)-1) == -1)
			errno = 0;
	} else if (errno != EEXIST || (fd = open(path, flags)) == -1)
		return -1;
	if (!opened)
		log_fd = fd;
	else {
		/* dup2 would clear close-on-exec, and hand the log to every
		 * CGI program started after the reopen */
		dup3(fd, log_fd, O_CLOEXEC);
		close(fd);
	}
	opened = 1;
	return 0;
}

/* "22/Nov/2026:03:04:05 +0000", cached per thread; 26 bytes. */
static const char *
clf_time(void)
{
	static __thread time_t cached = -1;
	static __thread char buf[27];
	time_t now = time(NULL);
	struct tm tm;

	if (now != cached) {
		time_utc(now, &tm);
		snprintf(buf, sizeof(buf), "%02u/%.3s/%04u:%02u:%02u:%02u +0000",
		    (unsigned)tm.tm_mday % 100, month_names + 3 * tm.tm_mon,
		    (unsigned)(tm.tm_year + 1900) % 10000,
		    (unsigned)tm.tm_hour % 100, (unsigned)tm.tm_min % 100,
		    (unsigned)tm.tm_sec % 100);
		cached = now;
	}
	return buf;
}

/* ISO 8601 UTC time for message lines, cached per thread; 20 bytes. */
static const char *
iso_time(void)
{
	static __thread time_t cached = -1;
	static __thread char buf[21];
	time_t now = time(NULL);
	struct tm tm;

	if (now != cached) {
		time_utc(now, &tm);
		snprintf(buf, sizeof(buf), "%04u-%02u-%02uT%02u:%02u:%02uZ",
		    (unsigned)(tm.tm_year + 1900) % 10000,
		    (unsigned)(tm.tm_mon + 1) % 100, (unsigned)tm.tm_mday % 100,
		    (unsigned)tm.tm_hour % 100, (unsigned)tm.tm_min % 100,
		    (unsigned)tm.tm_sec % 100);
		cached = now;
	}
	return buf;
}

static ssize_t
log_put(const char *buf, size_t n)
{
	return log_sock ? send(log_fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL) :
	    write(log_fd, buf, n);
}

/* One line out, or counted as lost.  0, or -1 when lost. */
static int
log_out(const char *buf, size_t n)
{
	ssize_t w;

	/* O_APPEND: one write is one line; a short write is not retried
	 * because the rest would land after other threads' lines (a pipe
	 * takes a line of up to 4 KiB whole, or none of it) */
	do
		w = ENABLE_SYSLOG ? syslog_send(buf, n) : log_put(buf, n);
	while (w == -1 && errno == EINTR);
	if (w == (ssize_t)n)
		return 0;
	/* a terminal, or a stream socket, took part of it: its end, so
	 * that the next line starts on a line of its own */
	if (w > 0 && !ENABLE_SYSLOG && buf[w - 1] != '\n')
		(void)log_put("\n", 1);
	__atomic_add_fetch(&log_lost, 1, __ATOMIC_RELAXED);
	return -1;
}

static void
log_write(const char *buf, size_t n)
{
	char line[96];
	struct buf b;
	int lost;

	if (log_out(buf, n) == -1 || (lost = __atomic_exchange_n(&log_lost, 0,
	    __ATOMIC_RELAXED)) == 0)
		return;
	/* the log takes lines again: say how many it did not */
	buf_init(&b, line, sizeof(line));
	buf_add(&b, iso_time(), 20);
	buf_lit(&b, " [warn] ");
	buf_uint(&b, (unsigned)lost);
	buf_lit(&b, " log lines lost: the log did not take them in time\n");
	(void)log_out(line, buf_len(&b));
}

/*
 * Copies client-supplied text into a log line, escaping what could forge
 * or break a line, or drive the terminal it is read on: controls and
 * non-ASCII (C1 controls among them, as bytes or in UTF-8) as \xHH, and
 * with all set (a quoted field) quotes and backslashes too.  At most max
 * bytes of output (and never past the line's end).
 */
static void
buf_escaped(struct buf *b, const char *s, size_t n, size_t max, int all)
{
	const char *hex = hex_chars[0];
	char esc[4] = { '\\', 'x' };
	size_t used = 0;
	unsigned char c;

	if (s == NULL || n == 0) {
		if (all)
			buf_char(b, '-');
		return;
	}
	for (; n > 0 && used + 4 <= max && !b->b_over; n--) {
		c = (unsigned char)*s++;
		if (c < 0x20 || c >= 0x7f || (all && (c == '"' ||
		    c == '\\'))) {
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 15];
			buf_add(b, esc, 4);
			used += 4;
		} else {
			buf_char(b, (char)c);
			used++;
		}
	}
}

/* Writes a finished line; one that did not fit ends with "...". */
static void
log_line(struct buf *b)
{
	if (b->b_over) {
		b->b_p = b->b_end - 3;
		b->b_over = 0;
		buf_lit(b, "...");
	}
	b->b_end++;		/* buf_init left room for the newline */
	buf_char(b, '\n');
	log_write(b->b_start, buf_len(b));
}

void
log_access(const struct conn *c, const struct access *a)
{
	char line[2048];
	struct buf b;

	if (a->a_rejected ? CONFIG_LOG_LEVEL < 1 :
	    a->a_status >= 400 ? CONFIG_LOG_LEVEL < 3 : CONFIG_LOG_LEVEL < 4)
		return;
	buf_init(&b, line, sizeof(line) - 1);
	buf_str(&b, c->c_addr);
	buf_lit(&b, " - - [");
	buf_add(&b, clf_time(), 26);
	buf_lit(&b, "] \"");
	buf_escaped(&b, a->a_line, a->a_line_len, 1024, 1);
	buf_lit(&b, "\" ");
	buf_uint(&b, (unsigned)a->a_status);
	buf_char(&b, ' ');
	if (a->a_bytes > 0)
		buf_uint(&b, (unsigned long long)a->a_bytes);
	else
		buf_char(&b, '-');
	buf_lit(&b, " \"");
	buf_escaped(&b, a->a_referer, a->a_referer ? strlen(a->a_referer) : 0,
	    400, 1);
	buf_lit(&b, "\" \"");
	buf_escaped(&b, a->a_ua, a->a_ua ? strlen(a->a_ua) : 0, 400, 1);
	buf_char(&b, '"');
	log_line(&b);
}

void
log_accepted(const struct conn *c, const struct request *r)
{
	char line[1200];
	struct buf b;

	if (CONFIG_LOG_LEVEL < 2)
		return;
	buf_init(&b, line, sizeof(line) - 1);
	buf_add(&b, iso_time(), 20);
	buf_lit(&b, " [info] ");
	buf_str(&b, c->c_addr);
	buf_lit(&b, " accepted \"");
	buf_escaped(&b, r->req_line, strlen(r->req_line), 1024, 1);
	buf_char(&b, '"');
	log_line(&b);
}

/*
 * A message line: "2026-11-22T03:04:05Z [error] text".  Not on the hot
 * path.  Whatever the arguments hold (a CGI program's stderr, a file
 * name), control bytes in the text are escaped: no line break reaches
 * the log, so no message can forge a line.
 */
void
log_msg(const char *level, const char *fmt, ...)
{
	char text[1024], line[1200];
	struct buf b;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(text))
		n = sizeof(text) - 1;
	buf_init(&b, line, sizeof(line) - 1);
	buf_add(&b, iso_time(), 20);
	buf_lit(&b, " [");
	buf_str(&b, level);
	buf_lit(&b, "] ");
	buf_escaped(&b, text, (size_t)n, sizeof(line), 0);
	log_line(&b);
}
