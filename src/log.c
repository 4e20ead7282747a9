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
 * dup2 swaps the descriptor under the writing threads atomically.
 * Returns 0, or -1 with errno set.
 */
int
log_open(const char *prefix)
{
	char path[2048];
	int fd;

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
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
	    0640);
	if (fd == -1)
		return -1;
	if (log_fd == STDOUT_FILENO)
		log_fd = fd;
	else {
		dup2(fd, log_fd);
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
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	static __thread time_t cached = -1;
	static __thread char buf[27];
	time_t now = time(NULL);
	struct tm tm;

	if (now != cached) {
		time_utc(now, &tm);
		snprintf(buf, sizeof(buf), "%02u/%.3s/%04u:%02u:%02u:%02u +0000",
		    (unsigned)tm.tm_mday % 100, months + 3 * tm.tm_mon,
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
 * or break a line: quotes, backslashes, controls and non-ASCII as \xHH.
 * At most max bytes of output.
 */
static char *
put_escaped(char *p, const char *s, size_t n, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	char *end = p + max - 4;
	unsigned char c;

	if (s == NULL || n == 0)
		return put(p, "-", 1);
	for (; n > 0 && p < end; n--) {
		c = (unsigned char)*s++;
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		} else
			*p++ = (char)c;
	}
	return p;
}

void
log_access(const struct conn *c, const struct access *a)
{
	char line[2048], *p = line;
	size_t n;

	if (a->a_rejected ? CONFIG_LOG_LEVEL < 1 :
	    a->a_status >= 400 ? CONFIG_LOG_LEVEL < 3 : CONFIG_LOG_LEVEL < 4)
		return;
	n = strlen(c->c_addr);
	p = put(p, c->c_addr, n);
	p = put(p, " - - [", 6);
	p = put(p, clf_time(), 26);
	p = put(p, "] \"", 3);
	p = put_escaped(p, a->a_line, a->a_line_len, 1024);
	p = put(p, "\" ", 2);
	p = fmt_uint(p, (unsigned)a->a_status);
	*p++ = ' ';
	if (a->a_bytes > 0)
		p = fmt_uint(p, (unsigned long long)a->a_bytes);
	else
		*p++ = '-';
	p = put(p, " \"", 2);
	p = put_escaped(p, a->a_referer, a->a_referer ? strlen(a->a_referer) : 0, 400);
	p = put(p, "\" \"", 3);
	p = put_escaped(p, a->a_ua, a->a_ua ? strlen(a->a_ua) : 0, 400);
	p = put(p, "\"\n", 2);
	log_write(line, (size_t)(p - line));
}

void
log_accepted(const struct conn *c, const struct request *r)
{
	char line[1200], *p = line;

	if (CONFIG_LOG_LEVEL < 2)
		return;
	p = put(p, iso_time(), 20);
	p = put(p, " [info] ", 8);
	p = put(p, c->c_addr, strlen(c->c_addr));
	p = put(p, " accepted \"", 11);
	p = put_escaped(p, r->req_line, strlen(r->req_line), 1024);
	p = put(p, "\"\n", 2);
	log_write(line, (size_t)(p - line));
}

/* A message line: "2026-11-22T03:04:05Z [error] text".  Not on the hot path. */
void
log_msg(const char *level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s [%s] ", iso_time(), level);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	log_write(line, (size_t)n);
}
