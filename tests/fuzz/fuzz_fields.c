/*
 * fuzz_fields.c - the field values parsed outside request_parse():
 * base64_decode() (Basic credentials, HTTP2-Settings), etag_match() (the
 * entity-tag lists of If-Match and If-None-Match, static in src/file.c,
 * so the file is included) and http_date_parse() (If-Modified-Since,
 * If-Unmodified-Since, If-Range).
 *
 * Input: a first byte whose value modulo 8 picks the parser and the
 * direction, then that parser's bytes.  Each parser is checked both ways:
 * what it accepts must be right (compared with code written here, or
 * with the C library), and what a correct sender writes must be accepted.
 *
 *   0  base64_decode of the rest, into a buffer of a size the second
 *      byte picks.  Accepted: the result fits the buffer, NUL-terminated,
 *      and encoding it again gives the input back (the decoder is strict:
 *      one spelling per value, padding optional).  Refused: the input is
 *      not that spelling of any value, or the value does not fit.
 *   1  the rest as bytes, encoded here (with and without padding) and
 *      decoded: always the same bytes.
 *   2  etag_match(list, etag, strong): the second byte gives strong and
 *      the etag's length; the etag is made a quoted string, the rest is
 *      the list.  The result agrees with a model of RFC 9110 8.8.3's
 *      list grammar (as lenient inside the quotes as the server: any
 *      byte but DQUOTE) and its strong and weak comparison (13.1.1,
 *      13.1.2).
 *   3  a list built from the rest around the etag, one way or another,
 *      that names it: matched, unless the only naming tag is weak and the
 *      comparison strong.
 *   4  http_date_parse of the rest.  Accepted: a time the formatter can
 *      write (years 0 to 9999); the C library's gmtime_r() agrees with
 *      the fields of an IMF-fixdate or asctime date; the formatter's
 *      own output for it parses to the same time.
 *   5  a time from the rest, written in all three forms of RFC 9110
 *      5.6.7: each is parsed back to it (RFC 850's two-digit year to the
 *      year within 50 years of now that has those digits).
 *   6  accepts_gzip (Accept-Encoding, static in src/file.c) of the rest:
 *      0 or 1, whatever it is.
 *   7  an Accept-Encoding built from the rest as RFC 9110 12.5.3 writes
 *      it (codings, "*", weights from "q=0" to "q=1.000", whitespace
 *      around the separators, a parameter that is no weight after
 *      the weight): gzip goes out exactly when "gzip" or
 *      "x-gzip" has a weight above 0, the first of them that is named,
 *      or, neither named, the last "*" has one.
 */
#include <time.h>

#include "../../src/file.c"
#include "../../src/util.c"

#include "fuzz.h"

/* --- base64 ------------------------------------------------------------------ */
static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* p[0..n) in base64, padded or not, into out (room for 4 * (n + 2) / 3
 * + 1); returns the length. */
static size_t
model_encode(const uint8_t *p, size_t n, int pad, char *out)
{
	size_t i, o = 0;
	uint32_t v;

	for (i = 0; i + 3 <= n; i += 3) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = b64[v >> 6 & 63];
		out[o++] = b64[v & 63];
	}
	if (n - i == 1) {
		v = (uint32_t)p[i] << 16;
		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		if (pad) {
			out[o++] = '=';
			out[o++] = '=';
		}
	} else if (n - i == 2) {
		v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = b64[v >> 6 & 63];
		if (pad)
			out[o++] = '=';
	}
	out[o] = '\0';
	return o;
}

static void
fuzz_b64_decode(struct cursor *c)
{
	const uint8_t *p;
	size_t n, outsz = cur_byte(c), len;
	char *in, *out, *again;
	ssize_t got;

	n = cur_bytes(c, c->c_left, &p);
	in = fuzz_dup(p, n, 1);
	out = fuzz_dup("", outsz, 0);
	got = base64_decode(in, out, outsz);
	len = strlen(in);	/* a NUL in the input ends the string */
	again = malloc(len + 8);
	if (again == NULL)
		abort();
	if (got >= 0) {
		CHECK((size_t)got < outsz && out[got] == '\0');
		/* the one spelling of that value, padded as the input was */
		model_encode((const uint8_t *)out, (size_t)got,
		    memchr(in, '=', len) != NULL, again);
		CHECK(strcmp(again, in) == 0);
	} else if (strspn(in, b64) + strspn(in + strspn(in, b64), "=") ==
	    len && strspn(in + strspn(in, b64), "=") <= 2) {
		/* refused something base64-shaped: then it is not the one
		 * spelling of what it says, or that does not fit */
		size_t k = strspn(in, b64), i, bits = 0, o = 0;
		uint8_t *raw = malloc(k * 6 / 8 + 1);
		uint32_t v = 0;

		if (raw == NULL)
			abort();
		for (i = 0; i < k; i++) {
			v = v << 6 | (uint32_t)(strchr(b64, in[i]) - b64);
			if ((bits += 6) >= 8) {
				bits -= 8;
				raw[o++] = (uint8_t)(v >> bits);
			}
		}
		model_encode(raw, o, k < len, again);
		CHECK(o + 1 > outsz || strcmp(again, in) != 0);
		free(raw);
	}
	free(again);
	free(out);
	free(in);
}

static void
fuzz_b64_roundtrip(struct cursor *c)
{
	const uint8_t *p;
	size_t n = cur_bytes(c, c->c_left, &p);
	char *enc = malloc(4 * (n + 2) / 3 + 1), *out = malloc(n + 1);
	int pad;

	if (enc == NULL || out == NULL)
		abort();
	for (pad = 0; pad < 2; pad++) {
		model_encode(p, n, pad, enc);
		CHECK(base64_decode(enc, out, n + 1) == (ssize_t)n);
		CHECK(memcmp(out, p, n) == 0 && out[n] == '\0');
		/* one byte less of room: refused, never written past */
		if (n > 0)
			CHECK(base64_decode(enc, out, n) == -1);
	}
	free(out);
	free(enc);
}

/* --- entity-tags ------------------------------------------------------------- */

/* RFC 9110 8.8.3 and 5.6.1: "*", or a list of [W/]"opaque" separated by
 * commas with optional whitespace, empty elements allowed.  1 when an
 * element matches etag (strong: only a strong element, same bytes; weak:
 * the opaque parts), 0 when none does, -1 when the list is malformed. */
static int
model_etag(const char *l, const char *etag, int strong)
{
	size_t i = 0, start, elen = strlen(etag);
	int found = 0, weak, need_comma = 0;

	while (l[i] == ' ' || l[i] == '\t')
		i++;
	/* field values come with trailing whitespace trimmed: "*" alone */
	if (l[i] == '*')
		return l[i + 1] == '\0' ? 1 : -1;
	for (;;) {
		while (l[i] == ' ' || l[i] == '\t' || l[i] == ',') {
			if (l[i] == ',')
				need_comma = 0;
			i++;
		}
		if (l[i] == '\0')
			return found;
		if (need_comma)
			return -1;
		weak = 0;
		if (l[i] == 'W' && l[i + 1] == '/') {
			weak = 1;
			i += 2;
		}
		if (l[i] != '"')
			return -1;
		start = i++;
		while (l[i] != '\0' && l[i] != '"')
			i++;
		if (l[i] != '"')
			return -1;
		i++;
		if (!(strong && weak) && i - start == elen &&
		    memcmp(l + start, etag, elen) == 0)
			found = 1;
		need_comma = 1;
	}
}

/* etag as the server makes it: a quoted string of n bytes from p (no
 * DQUOTE, no NUL inside) */
static char *
make_etag(const uint8_t *p, size_t n)
{
	char *e = malloc(n + 3);
	size_t i;

	if (e == NULL)
		abort();
	e[0] = '"';
	for (i = 0; i < n; i++)
		e[i + 1] = p[i] == '"' || p[i] == '\0' ? '-' : (char)p[i];
	e[n + 1] = '"';
	e[n + 2] = '\0';
	return e;
}

static void
fuzz_etag_match(struct cursor *c)
{
	unsigned b = cur_byte(c);
	int strong = b & 1, rc;
	const uint8_t *p;
	size_t n = cur_bytes(c, (b >> 1) % 24, &p);
	char *etag = make_etag(p, n), *list;

	n = cur_bytes(c, c->c_left, &p);
	list = fuzz_dup(p, n, 1);
	rc = etag_match(list, etag, strong);
	CHECK(rc == -1 || rc == 0 || rc == 1);
	CHECK(rc == model_etag(list, etag, strong));
	free(list);
	free(etag);
}

/* Appends s (n bytes) to the list being built in l at *o (room enough). */
static void
put(char *l, size_t *o, const char *s, size_t n)
{
	memcpy(l + *o, s, n);
	*o += n;
}

static void
fuzz_etag_named(struct cursor *c)
{
	static const char *const ws[] = { "", " ", "\t", " \t " };
	unsigned b = cur_byte(c), k;
	int strong = b & 1, weak_only = 1, rc;
	const uint8_t *p;
	size_t n = cur_bytes(c, (b >> 1) % 24, &p), o = 0, elems, i;
	char *etag = make_etag(p, n), *list;

	elems = 1 + cur_byte(c) % 6;
	list = malloc(elems * (2 * n + 64) + 1);
	if (list == NULL)
		abort();
	for (i = 0; i < elems; i++) {
		k = cur_byte(c);
		put(list, &o, ws[k & 3], strlen(ws[k & 3]));
		if (i > 0 || (k & 4))
			put(list, &o, ",", 1);
		put(list, &o, ws[k >> 3 & 3], strlen(ws[k >> 3 & 3]));
		if (k & 32)
			put(list, &o, "W/", 2);
		if (i == 0 || (k & 64)) {	/* the first always names it */
			put(list, &o, etag, n + 2);
			weak_only &= (k & 32) != 0;
		} else {	/* another tag: one byte longer */
			put(list, &o, etag, n + 1);
			put(list, &o, "~\"", 2);
		}
	}
	list[o] = '\0';
	rc = etag_match(list, etag, strong);
	CHECK(rc == model_etag(list, etag, strong));
	CHECK(rc == (strong && weak_only ? 0 : 1));
	free(list);
	free(etag);
}

/* --- HTTP-date --------------------------------------------------------------- */
static const char *const wday[] = { "Sun", "Mon", "Tue", "Wed", "Thu",
    "Fri", "Sat" };
static const char *const wday_long[] = { "Sunday", "Monday", "Tuesday",
    "Wednesday", "Thursday", "Friday", "Saturday" };
static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May",
    "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

static int
num(const char *s, int n)
{
	int v = 0;

	while (n-- > 0)
		v = v * 10 + (*s++ - '0');
	return v;
}

static void
fuzz_date_parse(struct cursor *c)
{
	const uint8_t *p;
	size_t n = cur_bytes(c, c->c_left, &p);
	char *s = fuzz_dup(p, n, 1), out[30];
	time_t t = 0, t2 = 0;
	struct tm tm;
	const char *f;

	if (http_date_parse(s, &t) == 0) {
		CHECK(t >= DATE_MIN && t <= DATE_MAX);
		CHECK(gmtime_r(&t, &tm) != NULL);
		n = strlen(s);
		if (n == 29 && s[3] == ',' && s[4] == ' ' &&
		    memcmp(s + 22, ":60", 3) != 0) {
			f = s + 5;	/* "Sun, 06 Nov 1994 08:49:37 GMT" */
			CHECK(tm.tm_mday == num(f, 2));
			CHECK(strncmp(mon[tm.tm_mon], f + 3, 3) == 0);
			CHECK(tm.tm_year + 1900 == num(f + 7, 4));
			CHECK(tm.tm_hour == num(f + 12, 2) &&
			    tm.tm_min == num(f + 15, 2) &&
			    tm.tm_sec == num(f + 18, 2));
		} else if (n == 24 && s[3] == ' ' &&
		    memcmp(s + 16, ":60", 3) != 0) {
			f = s + 4;	/* "Sun Nov  6 08:49:37 1994" */
			CHECK(strncmp(mon[tm.tm_mon], f, 3) == 0);
			CHECK(tm.tm_mday == (f[4] == ' ' ? num(f + 5, 1) :
			    num(f + 4, 2)));
			CHECK(tm.tm_year + 1900 == num(f + 16, 4));
			CHECK(tm.tm_hour == num(f + 7, 2) &&
			    tm.tm_min == num(f + 10, 2) &&
			    tm.tm_sec == num(f + 13, 2));
		}
		*http_date_fmt(out, t) = '\0';
		CHECK(http_date_parse(out, &t2) == 0 && t2 == t);
	}
	free(s);
}

static void
fuzz_date_forms(struct cursor *c)
{
	time_t t = DATE_MIN + (time_t)(cur_le(c, 8) %
	    (uint64_t)(DATE_MAX - DATE_MIN + 1)), got, now = time(NULL);
	struct tm tm, tn, tg;
	char s[64];
	int y;

	CHECK(gmtime_r(&t, &tm) != NULL && gmtime_r(&now, &tn) != NULL);
	y = tm.tm_year + 1900;
	*http_date_fmt(s, t) = '\0';
	got = -1;
	CHECK(http_date_parse(s, &got) == 0 && got == t);

	snprintf(s, sizeof(s), "%s %s %2d %02d:%02d:%02d %04d",
	    wday[tm.tm_wday], mon[tm.tm_mon], tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, y);
	got = -1;
	CHECK(http_date_parse(s, &got) == 0 && got == t);

	snprintf(s, sizeof(s), "%s, %02d-%s-%02d %02d:%02d:%02d GMT",
	    wday_long[tm.tm_wday], tm.tm_mday, mon[tm.tm_mon], y % 100,
	    tm.tm_hour, tm.tm_min, tm.tm_sec);
	got = -1;
	CHECK(http_date_parse(s, &got) == 0);
	CHECK(gmtime_r(&got, &tg) != NULL);
	/* the same day and time, in the year ending in those two digits
	 * that is at most 50 years ahead (and so under 50 behind) */
	CHECK(tg.tm_mday == tm.tm_mday && tg.tm_mon == tm.tm_mon &&
	    tg.tm_hour == tm.tm_hour && tg.tm_min == tm.tm_min &&
	    tg.tm_sec == tm.tm_sec);
	CHECK((tg.tm_year + 1900) % 100 == y % 100);
	CHECK(tg.tm_year - tn.tm_year <= 50 && tn.tm_year - tg.tm_year < 50);
}

/* --- Accept-Encoding ----------------------------------------------------------- */
static void
fuzz_gzip_any(struct cursor *c)
{
	const uint8_t *p;
	size_t n = cur_bytes(c, c->c_left, &p);
	char *v = fuzz_dup(p, n, 1);
	int rc = accepts_gzip(v);

	CHECK(rc == 0 || rc == 1);
	free(v);
}

static void
fuzz_gzip_built(struct cursor *c)
{
	static const char *const coding[] = { "gzip", "x-gzip", "GZip", "*",
	    "deflate", "br", "identity", "compress", "gzipx", "x-gzip2" };
	static const int is_gzip[] = { 1, 1, 1, 0, 0, 0, 0, 0, 0, 0 };
	static const char *const q[] = { "0", "0.0", "0.000", "0.001",
	    "0.5", "1", "1.0", "1.000", "Q=0", "q=0.", "1.00" };
	static const int q_pos[] = { 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1 };
	static const char *const ows[] = { "", " ", "\t", "  " };
	static const char *const ext[] = { "x=1", "level=9", "qq=1",
	    "a=0.5" };
	char v[512];
	size_t o = 0, elems = 1 + cur_byte(c) % 8, i;
	unsigned k, w, e;
	int want = 0, star = 0, gz_seen = 0, pos;

	for (i = 0; i < elems; i++) {
		k = cur_byte(c);
		w = cur_byte(c);
		if (i > 0) {
			put(v, &o, ows[w & 3], strlen(ows[w & 3]));
			put(v, &o, ",", 1);
		}
		put(v, &o, ows[w >> 2 & 3], strlen(ows[w >> 2 & 3]));
		put(v, &o, coding[k % 10], strlen(coding[k % 10]));
		pos = 1;
		if (w >> 4 & 1) {	/* a weight */
			put(v, &o, ows[w >> 5 & 3], strlen(ows[w >> 5 & 3]));
			put(v, &o, ";", 1);
			put(v, &o, ows[w >> 7 & 1], strlen(ows[w >> 7 & 1]));
			pos = q_pos[(k / 10) % 11];
			if ((k / 10) % 11 < 8 || (k / 10) % 11 == 10)
				put(v, &o, "q=", 2);
			put(v, &o, q[(k / 10) % 11], strlen(q[(k / 10) % 11]));
		}
		e = cur_byte(c);
		if (e & 1) {	/* a parameter that is no weight, after it */
			put(v, &o, ows[e >> 1 & 3], strlen(ows[e >> 1 & 3]));
			put(v, &o, ";", 1);
			put(v, &o, ows[e >> 3 & 3], strlen(ows[e >> 3 & 3]));
			put(v, &o, ext[e >> 5 & 3], strlen(ext[e >> 5 & 3]));
		}
		if (is_gzip[k % 10] && !gz_seen) {
			gz_seen = 1;
			want = pos;
		} else if (k % 10 == 3)
			star = pos;	/* the last "*" decides */
	}
	v[o] = '\0';
	CHECK(accepts_gzip(v) == (gz_seen ? want : star));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c;

	cur_init(&c, data, size);
	switch (cur_byte(&c) % 8) {
	case 0:
		fuzz_b64_decode(&c);
		break;
	case 1:
		fuzz_b64_roundtrip(&c);
		break;
	case 2:
		fuzz_etag_match(&c);
		break;
	case 3:
		fuzz_etag_named(&c);
		break;
	case 4:
		fuzz_date_parse(&c);
		break;
	case 5:
		fuzz_date_forms(&c);
		break;
	case 6:
		fuzz_gzip_any(&c);
		break;
	default:
		fuzz_gzip_built(&c);
		break;
	}
	return 0;
}
