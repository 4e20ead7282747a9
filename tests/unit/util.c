/*
 * util.c - unit tests for url_decode(), path_normalize(), buf_uint(),
 * http_date_fmt() and http_date_parse().
 */
#include "../../src/util.c"

#include <stdlib.h>

#include "tap.h"

#define S(s)		s, sizeof(s) - 1

/* url_decode(in, inlen, dst, dstsz): the result and, when >= 0, dst. */
static const struct {
	int		 line;
	const char	*in;
	size_t		 inlen;
	size_t		 dstsz;
	ssize_t		 rc;
	const char	*out;		/* rc bytes (a '\0' each side checked) */
} decodes[] = {
	{ __LINE__, S(""), 16, 0, "" },
	{ __LINE__, S("/plain"), 16, 6, "/plain" },
	{ __LINE__, S("/a%20b"), 16, 4, "/a b" },
	{ __LINE__, S("%41%42%43"), 16, 3, "ABC" },
	{ __LINE__, S("%4a%4A"), 16, 2, "JJ" },
	{ __LINE__, S("%7e%7E"), 16, 2, "~~" },
	{ __LINE__, S("%2F%2f"), 16, 2, "//" },
	{ __LINE__, S("%2e%2E"), 16, 2, ".." },
	{ __LINE__, S("%c3%A9"), 16, 2, "\xc3\xa9" },
	{ __LINE__, S("%ff%FF%80"), 16, 3, "\xff\xff\x80" },
	{ __LINE__, S("%01%1f"), 16, 2, "\x01\x1f" },
	{ __LINE__, S("%25"), 16, 1, "%" },
	{ __LINE__, S("%2541"), 16, 3, "%41" },	/* decoded once only */
	{ __LINE__, S("a+b"), 16, 3, "a+b" },	/* '+' is not a space */
	{ __LINE__, S("%2B"), 16, 1, "+" },
	{ __LINE__, S("%zz"), 16, -1, NULL },
	{ __LINE__, S("%g0"), 16, -1, NULL },
	{ __LINE__, S("%0g"), 16, -1, NULL },
	{ __LINE__, S("%:0"), 16, -1, NULL },	/* ':' follows '9' */
	{ __LINE__, S("%@1"), 16, -1, NULL },	/* '@' precedes 'A' */
	{ __LINE__, S("%`1"), 16, -1, NULL },	/* '`' precedes 'a' */
	{ __LINE__, S("% 1"), 16, -1, NULL },
	{ __LINE__, S("%-1"), 16, -1, NULL },
	{ __LINE__, S("%4"), 16, -1, NULL },
	{ __LINE__, S("/a%4"), 16, -1, NULL },
	{ __LINE__, S("%"), 16, -1, NULL },
	{ __LINE__, S("/a%"), 16, -1, NULL },
	{ __LINE__, S("%%41"), 16, -1, NULL },
	{ __LINE__, S("%00"), 16, -1, NULL },
	{ __LINE__, S("/a%00.html"), 16, -1, NULL },
	{ __LINE__, S("/a\0b"), 16, -1, NULL },
	{ __LINE__, S("\0"), 16, -1, NULL },
	{ __LINE__, "%41%4", 3, 16, 1, "A" },	/* only n bytes count */
	{ __LINE__, "%4142", 3, 16, 1, "A" },
	{ __LINE__, "abc%", 3, 16, 3, "abc" },
	/* room: dstsz counts the NUL */
	{ __LINE__, S("abc"), 4, 3, "abc" },	/* exact fit */
	{ __LINE__, S("abc"), 3, -1, NULL },
	{ __LINE__, S("%41%42%43"), 4, 3, "ABC" },
	{ __LINE__, S("%41%42%43"), 3, -1, NULL },
	{ __LINE__, S("a"), 2, 1, "a" },
	{ __LINE__, S("a"), 1, -1, NULL },
	{ __LINE__, S(""), 1, 0, "" },
	{ __LINE__, S(""), 0, -1, NULL },	/* not even room for the NUL */
	{ __LINE__, S("a"), 0, -1, NULL },
};

static void
test_url_decode(void)
{
	char *src, *dst;
	size_t i, sz;
	ssize_t rc;

	for (i = 0; i < sizeof(decodes) / sizeof(decodes[0]); i++) {
		tap_row(decodes[i].line);
		sz = decodes[i].dstsz;
		/* exactly sized copies, so ASan sees any access out of range */
		if ((src = malloc(decodes[i].inlen + 1)) == NULL ||
		    (dst = malloc(sz + 1)) == NULL)
			abort();
		memcpy(src, decodes[i].in, decodes[i].inlen);
		src[decodes[i].inlen] = '%';	/* must not be read */
		memset(dst, '#', sz + 1);

		rc = url_decode(src, decodes[i].inlen, dst, sz);
		is_int(rc, decodes[i].rc, "url_decode(\"%.*s\", %zu, dst, %zu)",
		    (int)decodes[i].inlen, decodes[i].in, decodes[i].inlen, sz);
		if (rc >= 0 && decodes[i].rc >= 0) {
			is_mem(dst, (size_t)rc, decodes[i].out,
			    "url_decode(\"%.*s\"): bytes", (int)decodes[i].inlen,
			    decodes[i].in);
			is_int(dst[rc], '\0', "url_decode(\"%.*s\"): terminated",
			    (int)decodes[i].inlen, decodes[i].in);
		}
		is_int(dst[sz], '#', "url_decode(\"%.*s\", dstsz %zu): nothing "
		    "written past dstsz", (int)decodes[i].inlen, decodes[i].in,
		    sz);
		free(src);
		free(dst);
	}
	tap_row(0);
}

/* path_normalize(in): the new length and path, or -1 (not absolute, or
 * above the root), or -2 (more than PATH_DEPTH_MAX = 64 slashes). */
#define A8	"/a/a/a/a/a/a/a/a"
#define A56	A8 A8 A8 A8 A8 A8 A8
#define A64	A56 A8
#define UP8	"/x/../x/../x/../x/../x/../x/../x/../x/.."
static const struct {
	int		 line;
	const char	*in;
	ssize_t		 rc;
	const char	*out;
} paths[] = {
	{ __LINE__, "/", 1, "/" },
	{ __LINE__, "//", 1, "/" },
	{ __LINE__, "///", 1, "/" },
	{ __LINE__, "/a", 2, "/a" },
	{ __LINE__, "/a/b/c.html", 11, "/a/b/c.html" },
	{ __LINE__, "/a/", 3, "/a/" },		/* trailing slash kept */
	{ __LINE__, "/a/b/", 5, "/a/b/" },
	{ __LINE__, "/a//b", 4, "/a/b" },
	{ __LINE__, "/a//b/", 5, "/a/b/" },
	{ __LINE__, "//a///b//", 5, "/a/b/" },
	{ __LINE__, "/.", 1, "/" },
	{ __LINE__, "/./", 1, "/" },
	{ __LINE__, "/a/./b", 4, "/a/b" },
	{ __LINE__, "/./a/./", 3, "/a/" },
	{ __LINE__, "/a/.", 3, "/a/" },
	{ __LINE__, "/a/..", 1, "/" },
	{ __LINE__, "/a/../", 1, "/" },
	{ __LINE__, "/a/../b", 2, "/b" },
	{ __LINE__, "/a/b/..", 3, "/a/" },
	{ __LINE__, "/a/b/../", 3, "/a/" },
	{ __LINE__, "/a/b/../c", 4, "/a/c" },
	{ __LINE__, "/a/b/../../c", 2, "/c" },
	{ __LINE__, "/a//..//b", 2, "/b" },	/* "//" folds first */
	{ __LINE__, "/abc/def/../../x", 2, "/x" },
	{ __LINE__, "/..", -1, NULL },
	{ __LINE__, "/../", -1, NULL },
	{ __LINE__, "/../a", -1, NULL },
	{ __LINE__, "//..", -1, NULL },
	{ __LINE__, "/a/../..", -1, NULL },
	{ __LINE__, "/a/../../b", -1, NULL },
	{ __LINE__, "/a/b/../../..", -1, NULL },
	{ __LINE__, "/./..", -1, NULL },
	{ __LINE__, "/...", 4, "/..." },
	{ __LINE__, "/.../", 5, "/.../" },
	{ __LINE__, "/..a", 4, "/..a" },
	{ __LINE__, "/a..", 4, "/a.." },
	{ __LINE__, "/.a", 3, "/.a" },
	{ __LINE__, "/a/.b/..c", 9, "/a/.b/..c" },
	{ __LINE__, "/a.b/c", 6, "/a.b/c" },
	{ __LINE__, "/a\\..\\b", 7, "/a\\..\\b" },	/* backslash is plain */
	{ __LINE__, "/..\\", 4, "/..\\" },
	{ __LINE__, "/a/..\\..", 8, "/a/..\\.." },
	{ __LINE__, "relative", -1, NULL },
	{ __LINE__, "a/../b", -1, NULL },
	{ __LINE__, "./a", -1, NULL },
	{ __LINE__, "", -1, NULL },
	{ __LINE__, "\\a", -1, NULL },
	{ __LINE__, A64, 128, A64 },		/* 64 slashes */
	{ __LINE__, A64 "/", -2, NULL },	/* 65 */
	{ __LINE__, A64 "/b", -2, NULL },
	{ __LINE__, A64 "//", -2, NULL },
	{ __LINE__, A64 "/.", -2, NULL },	/* "/a.../a/" */
	{ __LINE__, A64 "/b/..", -2, NULL },
	{ __LINE__, A64 "/..", 127, A56 "/a/a/a/a/a/a/a/" },	/* 64 */
	{ __LINE__, A64 "/b/../..", 127, A56 "/a/a/a/a/a/a/a/" },
	{ __LINE__, UP8 UP8 UP8 UP8 UP8 UP8 UP8 UP8 UP8 UP8 A64, 128, A64 },
	/* 128 deep on the way, 63 slashes at the end */
	{ __LINE__, A64 A64 "/../../../../../../../../../../../../../../../.."
	    "/../../../../../../../../../../../../../../../../../../../../../../.."
	    "/../../../../../../../../../../../../../../../../../../../../../../.."
	    "/../../../..",
	    125, A56 "/a/a/a/a/a/a/" },
};

static void
test_path_normalize(void)
{
	char *p;
	size_t i, n;
	ssize_t rc;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		tap_row(paths[i].line);
		n = strlen(paths[i].in);
		if ((p = malloc(n + 1)) == NULL)
			abort();
		memcpy(p, paths[i].in, n + 1);
		rc = path_normalize(p);
		is_int(rc, paths[i].rc, "path_normalize(\"%s\")", paths[i].in);
		if (rc >= 0 && paths[i].rc >= 0) {
			is_str(p, paths[i].out, "path_normalize(\"%s\"): path",
			    paths[i].in);
			is_int(strlen(p), rc, "path_normalize(\"%s\"): length "
			    "matches", paths[i].in);
		}
		free(p);
	}
	tap_row(0);
}

static const struct {
	int		 line;
	unsigned long long v;
	const char	*out;
} uints[] = {
	{ __LINE__, 0, "0" },
	{ __LINE__, 1, "1" },
	{ __LINE__, 9, "9" },
	{ __LINE__, 10, "10" },
	{ __LINE__, 100, "100" },
	{ __LINE__, 4294967295ULL, "4294967295" },
	{ __LINE__, 4294967296ULL, "4294967296" },
	{ __LINE__, 9223372036854775807ULL, "9223372036854775807" },
	{ __LINE__, 18446744073709551615ULL, "18446744073709551615" },
};

static void
test_buf_uint(void)
{
	char mem[32];
	struct buf b;
	size_t i, n;

	for (i = 0; i < sizeof(uints) / sizeof(uints[0]); i++) {
		tap_row(uints[i].line);
		memset(mem, '#', sizeof(mem));
		buf_init(&b, mem, sizeof(mem));
		buf_uint(&b, uints[i].v);
		is_mem(mem, buf_len(&b), uints[i].out, "buf_uint(%llu)",
		    uints[i].v);
		is_int(mem[buf_len(&b)], '#',
		    "buf_uint(%llu): nothing written past the end", uints[i].v);
		/* one byte too few: nothing written, b_over set */
		n = strlen(uints[i].out);
		memset(mem, '#', sizeof(mem));
		buf_init(&b, mem, n - 1);
		buf_uint(&b, uints[i].v);
		is_int(b.b_over, 1, "buf_uint(%llu) into %zu bytes: b_over",
		    uints[i].v, n - 1);
		is_int(mem[0], '#', "buf_uint(%llu) into %zu bytes: untouched",
		    uints[i].v, n - 1);
	}
	tap_row(0);
}

/* The bounded buffer: what does not fit is dropped and flagged, never
 * written past b_end. */
static void
test_buf_bounds(void)
{
	char mem[16];
	struct buf b;

	memset(mem, '#', sizeof(mem));
	buf_init(&b, mem, 8);
	buf_lit(&b, "abcdef");
	is_int(b.b_over, 0, "buf: 6 of 8 bytes fit");
	buf_lit(&b, "ghi");
	is_int(b.b_over, 1, "buf: 3 more do not: b_over");
	is_mem(mem, buf_len(&b), "abcdef", "buf: what fitted stays");
	is_int(mem[8], '#', "buf: nothing past b_end");
	buf_char(&b, 'x');
	buf_char(&b, 'y');
	is_mem(mem, buf_len(&b), "abcdef",
	    "buf: once over, nothing more, though it would fit (a prefix)");
	is_int(b.b_over, 1, "buf: b_over stays");
	is_int(mem[6], '#', "buf: nothing written after the overflow");

	buf_init(&b, mem, 8);
	buf_url(&b, "/a b", 4, 1);
	is_mem(mem, buf_len(&b), "/a%20b", "buf_url: space encoded, slash kept");
	buf_init(&b, mem, 8);
	buf_url(&b, "//", 2, 0);
	is_mem(mem, buf_len(&b), "%2F%2F", "buf_url: slash encoded");
	buf_init(&b, mem, 5);
	buf_pad(&b, 7, 4);
	is_mem(mem, buf_len(&b), "0007", "buf_pad: zeros");
	buf_init(&b, mem, 5);
	buf_pad(&b, 123456, 4);
	is_mem(mem, buf_len(&b), "9999", "buf_pad: clamped");
	buf_init(&b, mem, sizeof(mem));
	buf_hex(&b, 0xdeadbeefULL, 0);
	buf_hex(&b, 0xAB, 1);
	is_mem(mem, buf_len(&b), "deadbeefAB", "buf_hex");
	tap_row(0);
}

static const struct {
	int		 line;
	long long	 t;
	const char	*out;
} dates[] = {
	{ __LINE__, 784111777, "Sun, 06 Nov 1994 08:49:37 GMT" },	/* RFC */
	{ __LINE__, 0, "Thu, 01 Jan 1970 00:00:00 GMT" },
	{ __LINE__, 1, "Thu, 01 Jan 1970 00:00:01 GMT" },
	{ __LINE__, 951827696, "Tue, 29 Feb 2000 12:34:56 GMT" },	/* leap */
	{ __LINE__, 1709210096, "Thu, 29 Feb 2024 12:34:56 GMT" },	/* leap */
	{ __LINE__, 951868799, "Tue, 29 Feb 2000 23:59:59 GMT" },
	{ __LINE__, 951868800, "Wed, 01 Mar 2000 00:00:00 GMT" },
	{ __LINE__, 946684799, "Fri, 31 Dec 1999 23:59:59 GMT" },
	{ __LINE__, 946684800, "Sat, 01 Jan 2000 00:00:00 GMT" },
	{ __LINE__, 1000000000, "Sun, 09 Sep 2001 01:46:40 GMT" },
	{ __LINE__, 1700000000, "Tue, 14 Nov 2023 22:13:20 GMT" },
	{ __LINE__, 1720000000, "Wed, 03 Jul 2024 09:46:40 GMT" },
	{ __LINE__, 2147483647, "Tue, 19 Jan 2038 03:14:07 GMT" },
};

/* Past 2038: only where time_t has the room. */
static const struct {
	int		 line;
	long long	 t;
	const char	*out;
} dates64[] = {
	{ __LINE__, 2147483648LL, "Tue, 19 Jan 2038 03:14:08 GMT" },
	{ __LINE__, 4107456000LL, "Sun, 28 Feb 2100 00:00:00 GMT" },
	{ __LINE__, 4107542400LL, "Mon, 01 Mar 2100 00:00:00 GMT" },	/* no leap */
	{ __LINE__, 4102444799LL, "Thu, 31 Dec 2099 23:59:59 GMT" },
	{ __LINE__, 253402300799LL, "Fri, 31 Dec 9999 23:59:59 GMT" },
	/* out of the format's range: clamped, never other bytes (a bare CR
	 * came out of a file dated in year -30000) */
	{ __LINE__, 253402300800LL, "Fri, 31 Dec 9999 23:59:59 GMT" },
	{ __LINE__, 1000000000000000LL, "Fri, 31 Dec 9999 23:59:59 GMT" },
	{ __LINE__, -1, "Wed, 31 Dec 1969 23:59:59 GMT" },
	{ __LINE__, -62167219200LL, "Sat, 01 Jan 0000 00:00:00 GMT" },
	{ __LINE__, -62167219201LL, "Sat, 01 Jan 0000 00:00:00 GMT" },
	{ __LINE__, -1000000000000LL, "Sat, 01 Jan 0000 00:00:00 GMT" },
	{ __LINE__, -9223372036854775807LL, "Sat, 01 Jan 0000 00:00:00 GMT" },
};

static void
check_date(int line, long long t, const char *want)
{
	char buf[40], *end;

	tap_row(line);
	memset(buf, '#', sizeof(buf));
	end = http_date_fmt(buf, (time_t)t);
	is_int(end - buf, 29, "http_date_fmt(%lld): 29 bytes", t);
	is_mem(buf, 29, want, "http_date_fmt(%lld)", t);
	is_int(buf[29], '#', "http_date_fmt(%lld): nothing written past 29", t);
	tap_row(0);
}

static void
test_http_date_fmt(void)
{
	const char *d;
	time_t now;
	size_t i;
	char want[30];

	for (i = 0; i < sizeof(dates) / sizeof(dates[0]); i++)
		check_date(dates[i].line, dates[i].t, dates[i].out);
	if (sizeof(time_t) >= 8)
		for (i = 0; i < sizeof(dates64) / sizeof(dates64[0]); i++)
			check_date(dates64[i].line, dates64[i].t,
			    dates64[i].out);
	else
		note("skipped dates after 2038: %zu-byte time_t",
		    sizeof(time_t));

	/* http_date_now: the same format, for the time it reports */
	d = http_date_now(&now);
	http_date_fmt(want, now);
	want[29] = '\0';
	is_str(d, want, "http_date_now() formats the time it returns");
	ok(now >= 1700000000, "http_date_now() time is recent");
}

/* http_date_parse(in): the three forms of RFC 9110 5.6.7, and what is
 * none of them; -1 in t for a refusal.  Each input is copied to a buffer
 * of its own size, so that a sanitizer sees a read on either side. */
static const struct {
	int		 line;
	const char	*in;
	long long	 t;
} parsed[] = {
	{ __LINE__, "Sun, 06 Nov 1994 08:49:37 GMT", 784111777 },
	{ __LINE__, "Sunday, 06-Nov-94 08:49:37 GMT", 784111777 },
	{ __LINE__, "Sun Nov  6 08:49:37 1994", 784111777 },
	{ __LINE__, "Tue, 29 Feb 2000 23:59:59 GMT", 951868799 },
	{ __LINE__, "Thu, 29 Feb 2024 12:00:00 GMT", 1709208000 },
	{ __LINE__, "Thu, 31 Dec 2026 23:59:59 GMT", 1798761599 },
	/* days no month has: not dates, not the next month's first */
	{ __LINE__, "Tue, 31 Nov 2026 00:00:00 GMT", -1 },
	{ __LINE__, "Sunday, 31-Nov-26 00:00:00 GMT", -1 },
	{ __LINE__, "Tue Nov 31 00:00:00 2026", -1 },
	{ __LINE__, "Sun, 29 Feb 2026 00:00:00 GMT", -1 },
	{ __LINE__, "Mon, 29 Feb 2100 00:00:00 GMT", -1 },
	{ __LINE__, "Sat, 30 Feb 2000 00:00:00 GMT", -1 },
	{ __LINE__, "Thu, 31 Nov 2050 00:00:00 GMT", -1 },
	/* far from 1970: 64-bit, else a 32-bit time_t's ends */
	{ __LINE__, "Sun, 01 Mar 3240 12:00:00 GMT", 40082558400LL },
	{ __LINE__, "Sun, 01 Nov 0252 12:00:00 GMT", -54188481600LL },
	{ __LINE__, "Mon, 01 Jan 1900 00:00:00 GMT", -2208988800LL },
	{ __LINE__, "Sun, 06 Nov 1994 08:49:37 UTC", -1 },
	{ __LINE__, "Sun, 06 Nov 1994 08:49:37 GMT ", -1 },
	{ __LINE__, "Sun, 6 Nov 1994 08:49:37 GMT", -1 },
	{ __LINE__, "Sun, 06 Nov 1994 08-49-37 GMT", -1 },
	{ __LINE__, "Sun, 06 Foo 1994 08:49:37 GMT", -1 },
	/* a space first: the RFC 850 test looked at the byte before */
	{ __LINE__, " x", -1 },
	{ __LINE__, " ", -1 },
	{ __LINE__, ", x", -1 },
	{ __LINE__, "", -1 },
	{ __LINE__, "x", -1 },
};

static void
test_http_date_parse(void)
{
	size_t i, n;
	long long want;
	time_t t;
	char *in;
	int rc;

	for (i = 0; i < sizeof(parsed) / sizeof(parsed[0]); i++) {
		tap_row(parsed[i].line);
		n = strlen(parsed[i].in) + 1;
		if ((in = malloc(n)) == NULL)
			abort();
		memcpy(in, parsed[i].in, n);
		t = 0;
		rc = http_date_parse(in, &t);
		/* beyond a 32-bit time_t's range: its ends, not wrapped */
		want = parsed[i].t;
		if (sizeof(time_t) < 8 && (want > INT32_MAX || want < INT32_MIN))
			want = want < 0 ? INT32_MIN : INT32_MAX;
		is_int(rc == 0 ? (long long)t : -1, want,
		    "http_date_parse(\"%s\")", parsed[i].in);
		free(in);
	}
	tap_row(0);
}

/* base64_decode(in, dst, 16): the result and, when >= 0, dst. */
static const struct {
	int		 line;
	const char	*in;
	ssize_t		 rc;
	const char	*out;
} b64s[] = {
	{ __LINE__, "YWxpY2U6c2VjcmV0", 12, "alice:secret" },
	{ __LINE__, "YQ==", 1, "a" },
	{ __LINE__, "YWI=", 2, "ab" },
	{ __LINE__, "YQ", 1, "a" },		/* no padding: HTTP2-Settings */
	{ __LINE__, "YWI", 2, "ab" },
	{ __LINE__, "", 0, "" },
	{ __LINE__, "YQ=", -1, NULL },		/* padding short */
	{ __LINE__, "YQ===", -1, NULL },	/* padding long */
	{ __LINE__, "YWI==", -1, NULL },
	{ __LINE__, "YQ======", -1, NULL },	/* a padding group more */
	{ __LINE__, "YWI=====", -1, NULL },
	{ __LINE__, "YWJj====", -1, NULL },	/* padding where none is due */
	{ __LINE__, "YWJj", 3, "abc" },
	{ __LINE__, "YQ==junk", -1, NULL },	/* after the padding */
	{ __LINE__, "YQ==YQ==", -1, NULL },
	{ __LINE__, "YQ== ", -1, NULL },
	{ __LINE__, "Y", -1, NULL },		/* 6 bits alone */
	{ __LINE__, "YWJjZ", -1, NULL },
	{ __LINE__, "YR==", -1, NULL },		/* bits left over: not "a" */
	{ __LINE__, "YWJ=", -1, NULL },
	{ __LINE__, "YW-j", -1, NULL },
	{ __LINE__, "=", -1, NULL },
	{ __LINE__, "AAAAAAAAAAAAAAAAAAAAAA==", -1, NULL },	/* 16: no room */
};

static void
test_base64_decode(void)
{
	char dst[16];
	ssize_t rc;
	size_t i;

	for (i = 0; i < sizeof(b64s) / sizeof(b64s[0]); i++) {
		tap_row(b64s[i].line);
		rc = base64_decode(b64s[i].in, dst, sizeof(dst));
		is_int(rc, b64s[i].rc, "base64_decode(\"%s\")", b64s[i].in);
		if (rc >= 0 && b64s[i].rc >= 0)
			is_str(dst, b64s[i].out, "base64_decode(\"%s\"): bytes",
			    b64s[i].in);
	}
	tap_row(0);
}

int
main(void)
{
	test_url_decode();
	test_base64_decode();
	test_path_normalize();
	test_buf_uint();
	test_buf_bounds();
	test_http_date_fmt();
	test_http_date_parse();
	return done_testing();
}
