/*
 * util.c - what several files need: percent-decoding, path normalisation,
 * numbers and dates into a buf, HTTP-dates, comma-separated lists, errno
 * as a status, directory reading, addresses.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include <errno.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stddef.h>
#include <unistd.h>

#include "mrhttpd.h"

const char hex_chars[2][17] = { "0123456789abcdef", "0123456789ABCDEF" };
const char month_names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

int
hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

ssize_t
url_decode(const char *src, size_t n, char *dst, size_t dstsz)
{
	size_t i, o = 0;
	int hi, lo;
	unsigned char c;

	if (dstsz == 0)
		return -1;
	for (i = 0; i < n; i++) {
		c = (unsigned char)src[i];
		if (c == '%') {
			if (i + 2 >= n)
				return -1;
			if ((hi = hex_digit(src[i + 1])) < 0 ||
			    (lo = hex_digit(src[i + 2])) < 0)
				return -1;
			c = (unsigned char)(hi << 4 | lo);
			i += 2;
		}
		if (c == '\0' || o + 1 >= dstsz)
			return -1;
		dst[o++] = (char)c;
	}
	dst[o] = '\0';
	return (ssize_t)o;
}

ssize_t
path_normalize(char *p)
{
	char *r = p, *w = p;
	size_t depth = 0;	/* the slashes written */

	if (*r != '/')
		return -1;
	while (*r != '\0') {
		/* here r and w both sit on a '/' */
		while (r[1] == '/')
			r++;
		if (r[1] == '.' && (r[2] == '/' || r[2] == '\0')) {
			r += 2;
			if (*r == '\0') {
				*w++ = '/';
				depth++;
			}
			continue;
		}
		if (r[1] == '.' && r[2] == '.' && (r[3] == '/' || r[3] == '\0')) {
			if (w == p)
				return -1;		/* would climb above the root */
			while (*--w != '/')
				;
			depth--;
			r += 3;
			if (*r == '\0') {
				*w++ = '/';
				depth++;
			}
			continue;
		}
		/* copy one segment with its leading slash */
		depth++;
		*w++ = *r++;
		while (*r != '/' && *r != '\0')
			*w++ = *r++;
	}
	*w = '\0';		/* every way through wrote a slash at least */
	return depth > PATH_DEPTH_MAX ? -2 : w - p;
}

/* Appends v in decimal, written in place: it is on every reply's path
 * (Content-Length), so no copy.  No locale, no stdio. */
void
buf_uint(struct buf *b, unsigned long long v)
{
	unsigned long long t = 10;
	size_t n = 1;
	char *p;

	while (n < 20 && v >= t) {	/* its digits: 20 at most */
		n++;
		t *= 10;
	}
	if (b->b_over || n > buf_room(b)) {
		b->b_over = 1;
		return;
	}
	p = b->b_p += n;
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
}

/* Appends v in hexadecimal, lower case, or upper case with upper set. */
void
buf_hex(struct buf *b, unsigned long long v, int upper)
{
	const char *digits = hex_chars[upper != 0];
	char tmp[16];
	int n = sizeof(tmp);

	do
		tmp[--n] = digits[v & 15];
	while ((v >>= 4) != 0);
	buf_add(b, tmp + n, sizeof(tmp) - (size_t)n);
}

void
buf_url(struct buf *b, const char *s, size_t n, int slash)
{
	const char *hex = hex_chars[1];
	unsigned char c;
	char esc[3];

	for (; n > 0; n--, s++) {
		c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~' || (slash && c == '/')) {
			buf_char(b, (char)c);
			continue;
		}
		esc[0] = '%';
		esc[1] = hex[c >> 4];
		esc[2] = hex[c & 15];
		buf_add(b, esc, 3);
	}
}

/* Appends v with width digits, zero-padded; v is clamped to fit. */
void
buf_pad(struct buf *b, unsigned v, int width)
{
	char tmp[10];
	int i;

	if (width < 1 || width > (int)sizeof(tmp))
		width = sizeof(tmp);
	for (i = width - 1; i >= 0; i--) {
		tmp[i] = (char)('0' + v % 10);
		v /= 10;
	}
	if (v != 0)	/* did not fit: all nines */
		memset(tmp, '9', (size_t)width);
	buf_add(b, tmp, (size_t)width);
}

/* Two digits of v, which is clamped to 0-99 first. */
static char *
two(char *p, int v)
{
	if (v < 0)
		v = 0;
	else if (v > 99)
		v = 99;
	*p++ = (char)('0' + v / 10);
	*p++ = (char)('0' + v % 10);
	return p;
}

/*
 * UTC broken-down time by arithmetic alone.  glibc's gmtime_r takes the
 * time zone lock, and on a thread's first call reads /etc/localtime and
 * sets up a malloc arena: none of that belongs on the request path.
 * Fills year (full), mon (0-11), mday, hour, min, sec and wday.
 */
void
time_utc(time_t t, struct tm *tm)
{
	long long days = t / 86400, secs = t % 86400, y, era, doe, yoe, doy, mp;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	tm->tm_hour = (int)(secs / 3600);
	tm->tm_min = (int)(secs / 60 % 60);
	tm->tm_sec = (int)(secs % 60);
	tm->tm_wday = (int)((days % 7 + 11) % 7);	/* 1970-01-01 was a Thursday */
	/* civil date from days since 1970-01-01, in 400-year eras from March */
	days += 719468;
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = days - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	tm->tm_mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->tm_mon = (int)(mp < 10 ? mp + 2 : mp - 10);
	y = yoe + era * 400 + (tm->tm_mon <= 1);
	tm->tm_year = (int)(y - 1900);
}

/*
 * IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes, not terminated.
 * The format has four digits for the year and none for a sign, so t is
 * clamped to years 0-9999: a file dated before year 0 (a corrupt or
 * hostile mtime) must not put other bytes into a header.
 */
char *
http_date_fmt(char *p, time_t t)
{
	static const char days[] = "SunMonTueWedThuFriSat";
	long long v = (long long)t;	/* time_t may have 32 bits */
	struct tm tm;

	if (v < DATE_MIN)
		v = DATE_MIN;
	else if (v > DATE_MAX)
		v = DATE_MAX;
	time_utc((time_t)v, &tm);
	memcpy(p, days + 3 * tm.tm_wday, 3);
	p[3] = ',';
	p[4] = ' ';
	p = two(p + 5, tm.tm_mday);
	*p++ = ' ';
	memcpy(p, month_names + 3 * tm.tm_mon, 3);
	p[3] = ' ';
	p = two(p + 4, (tm.tm_year + 1900) / 100);
	p = two(p, (tm.tm_year + 1900) % 100);
	*p++ = ' ';
	p = two(p, tm.tm_hour);
	*p++ = ':';
	p = two(p, tm.tm_min);
	*p++ = ':';
	p = two(p, tm.tm_sec);
	memcpy(p, " GMT", 4);
	return p + 4;
}

/*
 * Returns the current Date value, formatted at most once a second per
 * thread: no lock, and no formatting on most requests.  *now gets the time.
 */
const char *
http_date_now(time_t *now)
{
	static __thread time_t cached = -1;
	static __thread char buf[30];

	*now = time(NULL);
	if (*now != cached) {
		http_date_fmt(buf, *now);
		buf[29] = '\0';
		cached = *now;
	}
	return buf;
}

/* Days since 1970-01-01 of a civil date (month 1-12); the inverse of the
 * arithmetic in time_utc. */
static long long
days_from_civil(long long y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
month_of(const char *s)
{
	int i;

	for (i = 0; i < 12; i++)
		if (strncmp(s, month_names + 3 * i, 3) == 0)
			return i + 1;
	return 0;
}

/* Reads exactly n digits; returns the value or -1. */
static int
digits(const char *s, int n)
{
	int v = 0;

	while (n-- > 0) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s++ - '0');
	}
	return v;
}

int
http_date_parse(const char *s, time_t *t)
{
	const char *p = strchr(s, ' ');
	struct tm tm;
	long long v;
	int d, m, y, hh, mm, ss;

	if (p == NULL)
		return -1;
	p++;
	if (p - s == 5 && s[3] == ',') {
		/* IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" */
		if (strlen(p) != 24 || p[2] != ' ' || p[6] != ' ' ||
		    p[11] != ' ' || strcmp(p + 20, " GMT") != 0)
			return -1;
		d = digits(p, 2);
		m = month_of(p + 3);
		y = digits(p + 7, 4);
		p += 12;
	} else if (p - s >= 2 && p[-2] == ',') {
		/* RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT" */
		if (strlen(p) != 22 || p[2] != '-' || p[6] != '-' ||
		    p[9] != ' ' || strcmp(p + 18, " GMT") != 0)
			return -1;
		d = digits(p, 2);
		m = month_of(p + 3);
		/* RFC 9110 5.6.7: a two-digit year more than 50 years
		 * ahead is in the past century */
		if ((y = digits(p + 7, 2)) >= 0) {
			time_utc(time(NULL), &tm);
			y += (tm.tm_year + 1900) / 100 * 100;
			if (y > tm.tm_year + 1900 + 50)
				y -= 100;
		}
		p += 10;
	} else if (p - s == 4) {
		/* asctime: "Sun Nov  6 08:49:37 1994" */
		if (strlen(p) != 20 || p[3] != ' ' || p[6] != ' ' ||
		    p[15] != ' ')
			return -1;
		m = month_of(p);
		d = p[4] == ' ' ? digits(p + 5, 1) : digits(p + 4, 2);
		y = digits(p + 16, 4);
		p += 7;
	} else
		return -1;
	if (p[2] != ':' || p[5] != ':')
		return -1;
	hh = digits(p, 2);
	mm = digits(p + 3, 2);
	ss = digits(p + 6, 2);
	if (d < 1 || d > 31 || m == 0 || y < 0 || hh < 0 || hh > 23 ||
	    mm < 0 || mm > 59 || ss < 0 || ss > 60)
		return -1;
	v = days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss;
	/* a 32-bit time_t holds 1901 to 2038: a date beyond is taken as
	 * its end, as late or as early as can be, not wrapped to another */
	if (sizeof(time_t) < sizeof(v) && (v > INT32_MAX || v < INT32_MIN)) {
		/* the day checked without a time_t: the next month's first
		 * comes after it */
		if (days_from_civil(y + (m == 12), m % 12 + 1, 1) <=
		    days_from_civil(y, m, d))
			return -1;
		*t = v < 0 ? INT32_MIN : INT32_MAX;
		return 0;
	}
	/* no 31 November, no 29 February of 2026: not a date, so ignored
	 * (RFC 9110 13.1.3), not read as 1 December */
	time_utc((time_t)v, &tm);
	if (tm.tm_mday != d)
		return -1;
	*t = (time_t)v;
	return 0;
}

/*
 * Decodes the UTF-8 sequence at s (n > 0 bytes left).  Returns its length
 * with *cp set, or 0 when the bytes are not UTF-8: a stray continuation
 * byte, an overlong form, a surrogate, beyond U+10FFFF, or cut short.
 */
size_t
utf8_next(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0], min;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		c &= 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/*
 * Decodes base64 (RFC 4648 4) into out, NUL-terminated; returns the length
 * or -1.  Strict, as a credential must be one string only: padding, if
 * any, as much as the length needs and nothing after it, no bits left
 * over that are not zero, no length that leaves 6 bits alone.  Without
 * padding too (HTTP2-Settings has none).  Decoded NULs are the caller's
 * to refuse where they matter.
 */
ssize_t
base64_decode(const char *s, char *out, size_t outsz)
{
	unsigned v = 0;
	int bits = 0, d;
	size_t n = 0, k = 0, pad = 0;

	for (; *s != '\0' && *s != '='; s++, k++) {
		if (*s >= 'A' && *s <= 'Z') d = *s - 'A';
		else if (*s >= 'a' && *s <= 'z') d = *s - 'a' + 26;
		else if (*s >= '0' && *s <= '9') d = *s - '0' + 52;
		else if (*s == '+') d = 62;
		else if (*s == '/') d = 63;
		else return -1;
		v = v << 6 | (unsigned)d;
		if ((bits += 6) >= 8) {
			bits -= 8;
			if (n + 1 >= outsz)
				return -1;
			out[n++] = (char)(v >> bits & 0xff);
		}
	}
	for (; *s == '='; s++)
		pad++;
	if (*s != '\0' || k % 4 == 1 || (pad > 0 && pad != (4 - k % 4) % 4) ||
	    (v & ((1U << bits) - 1)) != 0 || outsz == 0)
		return -1;
	out[n] = '\0';
	return (ssize_t)n;
}

int
ct_equal(const char *a, size_t an, const char *s, size_t sn)
{
	unsigned char diff = an != sn;
	size_t i;

	for (i = 0; i < sn; i++)
		diff |= (unsigned char)(s[i] ^ (i < an ? a[i] : 0));
	return diff == 0;
}

/*
 * Concatenates the NULL-terminated list of strings after dst into dst (at
 * most dstsz - 1 bytes, then NUL).  Returns the length.  Start-up errors
 * are built with it, so that no printf need be linked in.
 */
size_t
concat(char *dst, size_t dstsz, ...)
{
	const char *s;
	va_list ap;
	size_t n = 0, k;

	va_start(ap, dstsz);
	while ((s = va_arg(ap, const char *)) != NULL) {
		k = strlen(s);
		if (k > dstsz - 1 - n)
			k = dstsz - 1 - n;
		memcpy(dst + n, s, k);
		n += k;
	}
	va_end(ap);
	dst[n] = '\0';
	return n;
}

void
spawn_attr_init(posix_spawnattr_t *at, int group)
{
	sigset_t none, def;

	posix_spawnattr_init(at);
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	posix_spawnattr_setpgroup(at, 0);
	posix_spawnattr_setsigmask(at, &none);
	posix_spawnattr_setsigdefault(at, &def);
	posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF | (group ? POSIX_SPAWN_SETPGROUP : 0));
}

/* Milliseconds on the monotonic clock: for deadlines, immune to date changes. */
long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* *t, ms from now on the monotonic clock, for a condition made by
 * cond_init_mono. */
void
abstime(struct timespec *t, long long ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += (time_t)(ms / 1000);
	if ((t->tv_nsec += (long)(ms % 1000) * 1000000L) >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* A condition whose timed waits run on the monotonic clock. */
void
cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
}

/* Formats an address, IPv4-mapped IPv6 ones as IPv4; "-" when unknown. */
void
addr_fmt(const struct sockaddr_storage *ss, char *out, size_t outsz)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	strcpy(out, "-");
	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
		    out, (socklen_t)outsz);
	else if (ss->ss_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
		inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], out,
		    (socklen_t)outsz);
	else if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &s6->sin6_addr, out, (socklen_t)outsz);
}

int
list_next(const char **sp, struct list_item *it)
{
	const char *v = *sp;
	size_t n;

	while (*v == ' ' || *v == '\t' || *v == ',')
		v++;
	if (*v == '\0')
		return 0;
	for (n = 0; v[n] != '\0' && v[n] != ',' && v[n] != ';' &&
	    v[n] != ' ' && v[n] != '\t'; n++)
		;
	it->li_name = v;
	it->li_len = n;
	for (v += n; *v == ' ' || *v == '\t'; v++)
		;
	it->li_params = *v == ';' ? v + 1 : NULL;
	it->li_junk = *v != ';' && *v != ',' && *v != '\0';
	while (*v != '\0' && *v != ',')
		v++;
	*sp = v;
	return 1;
}

int
errno_status(int e, int writing)
{
	switch (e) {
	case ENOENT:
		return 404;
	case ENOTDIR:
		return writing ? 409 : 404;
	case ELOOP:	/* reading: a link where FOLLOW_SYMLINKS=0 refuses them */
		return writing ? 409 : 403;
	case EEXIST:
	case EISDIR:
	case ENOTEMPTY:
		return 409;
	case EACCES:
	case EPERM:
	case EROFS:
	case EXDEV:	/* a link that leads out of PUBLIC_DIR (openat2) */
		return 403;
	case ENAMETOOLONG:
		return 414;
	case ENOSPC:
	case EDQUOT:
		return 507;
	case EFBIG:	/* past RLIMIT_FSIZE (SIGXFSZ is blocked) */
		return 413;
	case EMFILE:
	case ENFILE:
		return 503;	/* out of descriptors: try again later */
	default:
		return 500;
	}
}

int
wait_exit(pid_t pid, long long deadline, int *status)
{
	const struct timespec tick = { .tv_nsec = 5 * 1000000 };
	pid_t r;

	while ((r = waitpid(pid, status, WNOHANG)) != pid) {
		if ((r == -1 && errno != EINTR) || now_ms() >= deadline)
			return -1;
		nanosleep(&tick, NULL);
	}
	return 0;
}

/* Ends pid with SIGKILL (to its process group too with group set) and
 * reaps it. */
void
kill_wait(pid_t pid, int group, int *status)
{
	if (!group || kill(-pid, SIGKILL) == -1)
		kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) == -1 && errno == EINTR)
		;
}

const struct dir_rec *
dir_next(const char *buf, size_t n, size_t *off)
{
	const struct dir_rec *d = (const struct dir_rec *)(const void *)
	    (buf + *off);

	if (*off + offsetof(struct dir_rec, d_name) >= n ||
	    d->d_reclen <= offsetof(struct dir_rec, d_name) ||
	    d->d_reclen > n - *off)
		return NULL;	/* the end, or a record that does not fit */
	*off += d->d_reclen;
	return d;
}

ssize_t
dir_read(int fd, void *buf, size_t n)
{
	long r;

	do
		r = syscall(SYS_getdents64, fd, buf, n);
	while (r == -1 && errno == EINTR);
	return (ssize_t)r;
}

/*
 * What each byte may be in a head (request.c) or a trailer (body.c), one
 * table, so that each byte is looked at once: C_TCHAR for methods and
 * field names (tchar, RFC 9110 5.6.2), C_TARGET for the request-target
 * (visible ASCII but '#', and obs-text), C_VALUE for field values (those,
 * SP and HTAB), C_HOST for Host (a reg-name, an IP literal and a port: RFC 9112
 * 3.2, RFC 3986 3.2.2), C_HEX for hex digits.  CR, LF, NUL and the other
 * controls are in no class: every scan stops at them.
 */
#define TV	(C_TCHAR | C_TARGET | C_VALUE)
#define V	(C_TARGET | C_VALUE)
#define H	C_HOST
#define X	C_HEX
const unsigned char http_cls[256] = {
	['\t'] = C_VALUE, [' '] = C_VALUE,
	['!'] = TV | H, ['"'] = V, ['$' ... '\''] = TV | H,
	/* not in a target: a fragment's start, which a proxy in front
	 * cuts off before it matches its rules (RFC 9112 3.2.1) */
	['#'] = C_TCHAR | C_VALUE,
	['('] = V | H, [')'] = V | H, ['*'] = TV | H, ['+'] = TV | H,
	[','] = V | H, ['-'] = TV | H, ['.'] = TV | H, ['/'] = V,
	['0' ... '9'] = TV | H | X, [':'] = V | H, [';'] = V | H, ['<'] = V,
	['='] = V | H, ['>' ... '@'] = V, ['A' ... 'F'] = TV | H | X,
	['G' ... 'Z'] = TV | H,
	['['] = V | H, ['\\'] = V, [']'] = V | H, ['^'] = TV,
	['_'] = TV | H, ['`'] = TV, ['a' ... 'f'] = TV | H | X,
	['g' ... 'z'] = TV | H, ['{'] = V,
	['|'] = TV, ['}'] = V, ['~'] = TV | H, [0x80 ... 0xff] = V,
};
#undef H
#undef X
#undef TV
#undef V
