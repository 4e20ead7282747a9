/*
 * log.c - the access log (Combined Log Format) and messages.
 *
 * Every line is formatted on the stack and written with one write(2) to an
 * O_APPEND descriptor, so lines from different threads never interleave and
 * no lock is taken.  Timestamps are cached per thread, once a second.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int log_fd = STDOUT_FILENO;

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
	int fd, flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW;

	static int syslog_open;

	if (ENABLE_SYSLOG) {
		if (!syslog_open)	/* connect to /dev/log before the jail */
			openlog("mrhttpd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
		syslog_open = 1;
		return 0;
	}
	if (!ENABLE_LOG_FILE)
		return 0;
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
	if (log_fd == STDOUT_FILENO)
		log_fd = fd;
	else {
		/* dup2 would clear close-on-exec, and hand the log to every
		 * CGI program started after the reopen */
		dup3(fd, log_fd, O_CLOEXEC);
		close(fd);
	}
	return 0;
}

static void
log_write(const char *buf, size_t n)
{
	ssize_t w;

	if (ENABLE_SYSLOG) {
		/* syslog adds its own time stamp and newline */
		syslog(LOG_INFO, "%.*s", (int)n - 1, buf);
		return;
	}
	/* O_APPEND: one write is one line; a short write is not retried
	 * because the rest would land after other threads' lines */
	do
		w = write(log_fd, buf, n);
	while (w == -1 && errno == EINTR);
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
