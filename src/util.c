/* util.c - percent-decoding, path normalisation and number/date formatting. */
#include <string.h>
#include <time.h>

#include "mrhttpd.h"

static int
hexval(unsigned char c)
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
			if ((hi = hexval(src[i + 1])) < 0 ||
			    (lo = hexval(src[i + 2])) < 0)
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

	if (*r != '/')
		return -1;
	while (*r != '\0') {
		/* here r and w both sit on a '/' */
		while (r[1] == '/')
			r++;
		if (r[1] == '.' && (r[2] == '/' || r[2] == '\0')) {
			r += 2;
			if (*r == '\0')
				*w++ = '/';
			continue;
		}
		if (r[1] == '.' && r[2] == '.' && (r[3] == '/' || r[3] == '\0')) {
			if (w == p)
				return -1;		/* would climb above the root */
			while (*--w != '/')
				;
			r += 3;
			if (*r == '\0')
				*w++ = '/';
			continue;
		}
		/* copy one segment with its leading slash */
		*w++ = *r++;
		while (*r != '/' && *r != '\0')
			*w++ = *r++;
	}
	if (w == p)
		*w++ = '/';
	*w = '\0';
	return w - p;
}

/* Writes v in decimal at p; returns the end.  No locale, no stdio. */
char *
fmt_uint(char *p, unsigned long long v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

static char *
two(char *p, int v)
{
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

/* IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes, not terminated. */
char *
fmt_http_date(char *p, time_t t)
{
	static const char days[] = "SunMonTueWedThuFriSat";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	struct tm tm;

	time_utc(t, &tm);
	memcpy(p, days + 3 * tm.tm_wday, 3);
	p[3] = ',';
	p[4] = ' ';
	p = two(p + 5, tm.tm_mday);
	*p++ = ' ';
	memcpy(p, months + 3 * tm.tm_mon, 3);
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
		fmt_http_date(buf, *now);
		buf[29] = '\0';
		cached = *now;
	}
	return buf;
}
