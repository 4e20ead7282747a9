/*
 * body.c - unit tests for body_dechunk(), the chunked framing of a request
 * body (RFC 9112 7.1).
 *
 * Each row is a body as a client sends it, the limit b_max, and what must
 * come of it: the data and the raw bytes consumed (what follows the body
 * belongs to the next request) and whether the body ended; or -400, -413.
 * Every row is decoded three ways, each piece an exactly sized heap copy
 * (ASan sees a read past it): whole, in one call; one byte per call; and
 * split in two at every offset.  All must give the same data, end and
 * error: the decoder keeps its state in struct body, so where a read
 * happens to end cannot matter.  Every call is checked too: no more data
 * out than bytes consumed, everything consumed until the body ends, and
 * nothing at all after that.
 *
 * Rows marked TODO disagree with RFC 9112 (see todo.h).
 */
#include "stubs.h"

#include "../../src/body.c"
#include "../../src/util.c"

#include <limits.h>
#include <stdlib.h>

#include "tap.h"
#include "todo.h"

/* S("bytes"): a literal and its length, so rows may hold NULs. */
#define S(s)		s, sizeof(s) - 1
/* R(name, bytes): a row's line, name and input. */
#define R(n, s)		__LINE__, n, S(s)
/* OK(data, left, end): decodes to data; left bytes after it unconsumed */
#define OK(d, l, e)	0, S(d), l, e, NULL
/* ERR(rc): refused with rc */
#define ERR(rc)		rc, NULL, 0, 0, MORE, NULL

enum { MORE = 0, DONE = 1 };		/* has the body ended? */
#define NOMAX		(-1LL)
#define E400		(-400)
#define E413		(-413)

struct row {
	int		 line;
	const char	*name;
	const char	*in;
	size_t		 inlen;
	long long	 max;		/* b_max, NOMAX for none */
	ssize_t		 rc;		/* 0, E400 or E413 */
	const char	*out;		/* the data (rc 0) */
	size_t		 outlen;
	size_t		 left;		/* bytes after the body, not consumed */
	int		 end;		/* DONE or MORE */
	const char	*todo;		/* why the code disagrees, or NULL */
};

static const struct row rows[] = {
	/* well-formed bodies */
	{ R("one chunk", "5\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  OK("hello", 0, DONE) },
	{ R("two chunks", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"), NOMAX,
	  OK("hello world", 0, DONE) },
	{ R("no data", "0\r\n\r\n"), NOMAX, OK("", 0, DONE) },
	{ R("hex digits in both cases",
	    "a\r\n0123456789\r\nB\r\nABCDEFGHIJK\r\n0\r\n\r\n"), NOMAX,
	  OK("0123456789ABCDEFGHIJK", 0, DONE) },
	{ R("sizes f and 10", "f\r\n0123456789abcde\r\n10\r\n"
	    "0123456789abcdef\r\n0\r\n\r\n"), NOMAX,
	  OK("0123456789abcde0123456789abcdef", 0, DONE) },
	{ R("leading zeros", "0005\r\nhello\r\n00\r\n\r\n"), NOMAX,
	  OK("hello", 0, DONE) },
	{ R("data that looks like framing",
	    "8\r\n0\r\n\r\n\0\r\n\r\n0\r\n\r\n"), NOMAX,
	  OK("0\r\n\r\n\0\r\n", 0, DONE) },
	{ R("binary data", "4\r\n\xff\x00\x80\n\r\n0\r\n\r\n"), NOMAX,
	  OK("\xff\x00\x80\n", 0, DONE) },
	{ R("one-byte chunks", "1\r\na\r\n1\r\nb\r\n1\r\nc\r\n0\r\n\r\n"),
	  NOMAX, OK("abc", 0, DONE) },
	{ R("the next request follows",
	    "3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n"), NOMAX,
	  OK("abc", 16, DONE) },
	{ R("the next request follows an empty body", "0\r\n\r\nX"), NOMAX,
	  OK("", 1, DONE) },
	{ R("another whole body follows", "0\r\n\r\n0\r\n\r\n"), NOMAX,
	  OK("", 5, DONE) },

	/* cut short: what there is so far, and more is wanted */
	{ R("nothing yet", ""), NOMAX, OK("", 0, MORE) },
	{ R("a size without its line end", "5"), NOMAX, OK("", 0, MORE) },
	{ R("a size line", "5\r\n"), NOMAX, OK("", 0, MORE) },
	{ R("part of the data", "5\r\nhel"), NOMAX, OK("hel", 0, MORE) },
	{ R("data without CRLF", "5\r\nhello"), NOMAX, OK("hello", 0, MORE) },
	{ R("data without LF", "5\r\nhello\r"), NOMAX, OK("hello", 0, MORE) },
	{ R("no last chunk", "5\r\nhello\r\n"), NOMAX, OK("hello", 0, MORE) },
	{ R("last chunk, no end", "5\r\nhello\r\n0\r\n"), NOMAX,
	  OK("hello", 0, MORE) },
	{ R("last chunk, CR of the end", "5\r\nhello\r\n0\r\n\r"), NOMAX,
	  OK("hello", 0, MORE) },
	{ R("in a trailer", "0\r\nX: y"), NOMAX, OK("", 0, MORE) },
	{ R("in an extension", "5;a=b"), NOMAX, OK("", 0, MORE) },

	/* sizes: 16 hex digits (64 bits) at most, even leading zeros */
	{ R("16 digits", "0000000000000005\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  OK("hello", 0, DONE) },
	{ R("16 zeros", "0000000000000000\r\n\r\n"), NOMAX, OK("", 0, DONE) },
	{ R("17 digits", "00000000000000005\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("17 zeros", "00000000000000000\r\n\r\n"), NOMAX, ERR(E400) },
	{ R("2^63 - 1, no limit", "7fffffffffffffff\r\nabc"), NOMAX,
	  OK("abc", 0, MORE) },
	{ R("2^63 - 1, limit LLONG_MAX", "7FFFFFFFFFFFFFFF\r\n"), LLONG_MAX,
	  OK("", 0, MORE) },
	{ R("2^63 - 1, limit 1 MiB", "7fffffffffffffff\r\n"), 1LL << 20,
	  ERR(E413) },
	{ R("2^63", "8000000000000000\r\n"), NOMAX, ERR(E400) },
	{ R("2^64 - 1", "ffffffffffffffff\r\n"), NOMAX, ERR(E400) },
	{ R("2^64, 17 digits", "10000000000000000\r\n"), NOMAX, ERR(E400) },
	{ R("a size of 2^32", "100000000\r\nab"), NOMAX, OK("ab", 0, MORE) },

	/* the limit b_max: on the size line, before the data comes */
	{ R("limit met exactly", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"), 11,
	  OK("hello world", 0, DONE) },
	{ R("limit passed by one",
	    "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"), 10, ERR(E413) },
	{ R("limit passed, size line only", "5\r\n"), 4, ERR(E413) },
	{ R("limit 0, empty body", "0\r\n\r\n"), 0, OK("", 0, DONE) },
	{ R("limit 0, one byte", "1\r\na\r\n0\r\n\r\n"), 0, ERR(E413) },
	{ R("limit LLONG_MAX: total + size would overflow",
	    "1\r\na\r\n7fffffffffffffff\r\n"), LLONG_MAX, ERR(E413) },
	{ R("limit LLONG_MAX: total + size just fits",
	    "1\r\na\r\n7ffffffffffffffe\r\n"), LLONG_MAX, OK("a", 0, MORE) },

	/* chunk-size = 1*HEXDIG */
	{ R("no size", "\r\n5\r\nhello\r\n0\r\n\r\n"), NOMAX, ERR(E400) },
	{ R("not hex", "g\r\n"), NOMAX, ERR(E400) },
	{ R("0x prefix", "0x5\r\nhello\r\n0\r\n\r\n"), NOMAX, ERR(E400) },
	{ R("minus", "-1\r\n"), NOMAX, ERR(E400) },
	{ R("plus", "+5\r\nhello\r\n0\r\n\r\n"), NOMAX, ERR(E400) },
	{ R("space before the size", " 5\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("extension without size", ";a=b\r\n"), NOMAX, ERR(E400) },
	{ R("size, then junk", "5x\r\nhello\r\n0\r\n\r\n"), NOMAX, ERR(E400) },
	{ R("NUL after the size", "5\0\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("bare CR after the size", "5\rhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("CR CR LF after the size", "5\r\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },

	/* the CRLF after the data */
	{ R("data longer than its size", "5\r\nhello!\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("no CRLF after the data", "5\r\nhelloX\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("CR, then junk after the data", "5\r\nhello\rX"), NOMAX,
	  ERR(E400) },
	{ R("CR CR LF after the data", "5\r\nhello\r\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },

	/* bare LF where RFC 9112 7.1 has CRLF: refused.  Its 2.2 lets a
	 * recipient take a bare LF for CRLF only in the start-line and the
	 * fields (here: the trailer section).  Accepted in a chunk-size line,
	 * it was CVE-2025-22871 (Go) and CVE-2025-58056 (Netty): request
	 * smuggling behind a proxy that reads the LF as part of an extension */
	{ R("bare LF after the size", "5\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("bare LF after the data", "5\r\nhello\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("bare LF after the last chunk", "5\r\nhello\r\n0\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("bare LF ending an extension", "5;a=b\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("bare LF everywhere", "5\nhello\n0\n\n"), NOMAX,
	  ERR(E400) },
	/* "hell\r" is the data: a bare LF then ends it, and a body one byte
	 * short of its size goes through */
	{ R("data one short, bare LF", "5\r\nhell\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	/* the trailer section is a field section, where RFC 9112 2.2 lets a
	 * recipient take a bare LF for CRLF; but its end is where the next
	 * request starts: "0\r\n\nGET /x" was two requests here and one
	 * body to a front end that waits for CRLF CRLF.  CRLF only */
	{ R("bare LF ending the trailer section", "5\r\nhello\r\n0\r\n\n"),
	  NOMAX, ERR(E400) },
	{ R("bare LF ending a trailer", "0\r\nX: y\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("a request behind a bare LF", "0\r\n\nGET /x HTTP/1.1\r\n\r\n"),
	  NOMAX, ERR(E400) },

	/* chunk extensions (RFC 9112 7.1.1): ignored */
	{ R("extension", "5;name=value\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  OK("hello", 0, DONE) },
	{ R("extension without value", "5;name\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  OK("hello", 0, DONE) },
	{ R("quoted extension value",
	    "5;n=\"a;b=c\\\"d\"\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  OK("hello", 0, DONE) },
	{ R("several extensions", "5;a=1;b;c=\"x\"\r\nhello\r\n0\r\n\r\n"),
	  NOMAX, OK("hello", 0, DONE) },
	{ R("BWS around ';' and '='", "5 ;\ta = 1\r\nhello\r\n0\r\n\r\n"),
	  NOMAX, OK("hello", 0, DONE) },
	{ R("extension on the last chunk", "5\r\nhello\r\n0;end=1\r\n\r\n"),
	  NOMAX, OK("hello", 0, DONE) },
	{ R("bare CR in an extension", "5;a\rb\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("size, space, more digits", "1 2\r\na\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("size, space, no ';'", "5 \r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("';' without a name", "5;\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("a trailing ';'", "5;a;\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("'=' without a name", "5;=1\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("'=' without a value", "5;a=\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("two words for a name", "5;a b\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("two '='", "5;a=b=c\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("BWS before the CR", "5;a=1 \r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("a name of no token", "5;a@b\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("a quoted value not closed", "5;a=\"x\r\nhello\r\n0\r\n\r\n"),
	  NOMAX, ERR(E400) },
	{ R("a token after a quoted value",
	    "5;a=\"x\"y\r\nhello\r\n0\r\n\r\n"), NOMAX, ERR(E400) },
	{ R("a quoted CRLF", "5;a=\"x\\\r\n\"\r\nhello\r\n0\r\n\r\n"),
	  NOMAX, ERR(E400) },
	{ R("quoted-pair and obs-text in a value",
	    "5;a=\"\\\"\xe9\"\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  OK("hello", 0, DONE) },
	{ R("BWS, then the next ';'", "5;a=1 ;b\r\nhello\r\n0\r\n\r\n"),
	  NOMAX, OK("hello", 0, DONE) },
	{ R("a name with BWS before ';'", "5;a\t;b\r\nhello\r\n0\r\n\r\n"),
	  NOMAX, OK("hello", 0, DONE) },
	{ R("NUL in an extension", "5;a\0b\r\nhello\r\n0\r\n\r\n"), NOMAX,
	  ERR(E400) },

	/* trailer fields (RFC 9112 7.1.2): read and dropped */
	{ R("a trailer", "5\r\nhello\r\n0\r\nExpires: never\r\n\r\n"), NOMAX,
	  OK("hello", 0, DONE) },
	{ R("two trailers, the next request follows",
	    "0\r\nA: 1\r\nB: 2\r\n\r\nNEXT"), NOMAX, OK("", 4, DONE) },
	{ R("a trailer ending like the body", "0\r\nX: 0\r\n\r\n\r\n"), NOMAX,
	  OK("", 2, DONE) },
	/* RFC 9112 5.2: an obs-fold is refused with 400, as in a head */
	{ R("folded trailer", "0\r\nA: 1\r\n  more\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("a trailer without a colon", "0\r\nA\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("a trailer without a name", "0\r\n: 1\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("controls in a trailer's value", "0\r\nA: \x01\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("NUL in a trailer's name", "0\r\nA\0B: 1\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("bare CR in a trailer's value", "0\r\nA: 1\r2\r\n\r\n"), NOMAX,
	  ERR(E400) },
	{ R("an empty trailer value", "0\r\nA:\r\n\r\n"), NOMAX,
	  OK("", 0, DONE) },
	{ R("CR, then junk, ending the trailers", "0\r\n\rX"), NOMAX,
	  ERR(E400) },
	{ R("CR, then junk, after a trailer", "0\r\nA: 1\r\n\rX\r\n"), NOMAX,
	  ERR(E400) },
	/* RFC 9112 5.1: a server MUST reject whitespace between a field
	 * name and its colon with 400; the trailer section is fields too */
	{ R("space before a trailer's colon", "0\r\nA : 1\r\n\r\n"), NOMAX,
	  ERR(E400) },
};

/* What a run of body_dechunk() calls made of an input. */
struct result {
	ssize_t		 err;		/* 0, or the first negative result */
	char		*data;		/* delivered until an error, in order */
	size_t		 len;
	size_t		 used;		/* raw bytes consumed in all */
	int		 end;		/* DONE or MORE */
	long long	 total;		/* b_total at the end */
	const char	*broke;		/* an invariant that broke, or NULL */
};

/* As body_start() for a chunked request. */
static void
start(struct body *b, long long max)
{
	memset(b, 0, sizeof(*b));
	b->b_chunked = 1;
	b->b_max = max;
	b->b_state = CH_SIZE;
}

/*
 * Feeds in[0..n) to one struct body in pieces that end at cuts[0..ncut)
 * (increasing, inside (0, n)), as body_read() does: each piece is a fresh,
 * exactly sized heap buffer; nothing is fed once the body ended.
 */
static void
feed(const struct row *r, const size_t *cuts, size_t ncut, struct result *res)
{
	struct body b;
	size_t k, from, to, used;
	ssize_t rc;
	char *p;

	memset(res, 0, sizeof(*res));
	res->data = tap_alloc(r->inlen);
	start(&b, r->max);
	for (k = 0, from = 0; from < r->inlen || k == 0; k++, from = to) {
		to = k < ncut ? cuts[k] : r->inlen;
		p = tap_alloc(to - from);
		memcpy(p, r->in + from, to - from);
		used = (size_t)-1;
		rc = body_dechunk(&b, p, to - from, &used);
		if (rc < 0) {
			res->err = rc;
			free(p);
			break;
		}
		if (used > to - from)
			res->broke = "consumed more than it was given";
		else if ((size_t)rc > used)
			res->broke = "more data out than bytes consumed";
		else if (used < to - from && b.b_state != CH_DONE)
			res->broke = "left bytes unconsumed before the end";
		else if (b.b_max >= 0 && b.b_total > b.b_max)
			res->broke = "b_total past b_max";
		if (res->broke != NULL) {
			free(p);
			break;
		}
		memcpy(res->data + res->len, p, (size_t)rc);
		res->len += (size_t)rc;
		res->used += used;
		free(p);
		if (b.b_state == CH_DONE)
			break;
		if (to >= r->inlen)
			break;
	}
	res->end = b.b_state == CH_DONE ? DONE : MORE;
	res->total = b.b_total;
	if (res->err == 0 && res->broke == NULL && res->end == DONE) {
		/* once done, nothing more is consumed */
		p = tap_alloc(1);
		p[0] = '0';
		used = (size_t)-1;
		if (body_dechunk(&b, p, 1, &used) != 0 || used != 0)
			res->broke = "consumed bytes after the end";
		free(p);
	}
}

/* Do two runs agree?  Data only counts without an error: a run in pieces
 * has delivered some before it meets the error, a whole one none. */
static int
same(const struct result *a, const struct result *b)
{
	if (a->err != b->err || a->broke != NULL || b->broke != NULL)
		return 0;
	if (a->err != 0)
		return 1;
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0 &&
	    a->used == b->used && a->end == b->end && a->total == b->total;
}

static void
check_row(const struct row *r)
{
	struct result whole, bytes, split;
	size_t *cuts, cut, k, bad = 0;

	tap_row(r->line);

	/* whole, against what the standard says */
	feed(r, NULL, 0, &whole);
	is_str(whole.broke, NULL, "%s: every call holds together", r->name);
	is_int_todo(r->todo, whole.err, r->rc, "%s: result", r->name);
	if (r->rc == 0 && whole.err == 0) {
		is_bytes_todo(r->todo, whole.data, whole.len, r->out, r->outlen,
		    "%s: data", r->name);
		is_int_todo(r->todo, whole.used, r->inlen - r->left,
		    "%s: bytes consumed", r->name);
		is_int_todo(r->todo, whole.end, r->end, "%s: %s", r->name,
		    r->end == DONE ? "body ended" : "more wanted");
		is_int_todo(r->todo, whole.total, r->outlen, "%s: b_total",
		    r->name);
	}

	/* one byte per call, and split in two anywhere: as whole */
	cuts = tap_alloc(r->inlen * sizeof(*cuts));
	for (k = 0; k + 1 < r->inlen; k++)
		cuts[k] = k + 1;
	feed(r, cuts, r->inlen > 0 ? r->inlen - 1 : 0, &bytes);
	ok(same(&bytes, &whole), "%s: the same one byte per call", r->name);
	if (bytes.broke != NULL)
		note("%s", bytes.broke);
	free(bytes.data);
	for (cut = 1; cut < r->inlen && bad == 0; cut++) {
		feed(r, &cut, 1, &split);
		if (!same(&split, &whole)) {
			bad = cut;
			if (split.broke != NULL)
				note("%s", split.broke);
		}
		free(split.data);
	}
	is_int(bad, 0, "%s: the same split at any offset (first that "
	    "differs)", r->name);
	free(cuts);
	free(whole.data);
	tap_row(0);
}

/* Rows too long to write out: an extension or trailer of n bytes. */
static void
check_long(int line, const char *name, const char *pre, char fill, size_t n,
    const char *post, ssize_t rc, const char *out, size_t left, int end)
{
	struct row r;
	size_t a = strlen(pre), c = strlen(post);
	char *in = tap_alloc(a + n + c);

	memcpy(in, pre, a);
	memset(in + a, fill, n);
	memcpy(in + a + n, post, c);
	memset(&r, 0, sizeof(r));
	r.line = line;
	r.name = name;
	r.in = in;
	r.inlen = a + n + c;
	r.max = NOMAX;
	r.rc = rc;
	r.out = out;
	r.outlen = out == NULL ? 0 : strlen(out);
	r.left = left;
	r.end = end;
	check_row(&r);
	free(in);
}

static void
test_long(void)
{
	static const char three[] = "X: " "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";
	char *in;
	size_t i;

	/* The bounds are the code's own: RFC 9112 7.1.1 asks for one on
	 * extensions, with a 4xx past it; trailers are just dropped.  An
	 * extension's bytes are counted from the one after its ';' (or
	 * BWS) to the line end, CR included: 1024 at most per line. */
	check_long(__LINE__, "extension of 1024 bytes", "1;", 'x', 1023,
	    "\r\na\r\n0\r\n\r\n", 0, "a", 0, DONE);
	check_long(__LINE__, "extension of 1025 bytes", "1;", 'x', 1024,
	    "\r\na\r\n0\r\n\r\n", E400, NULL, 0, MORE);
	check_long(__LINE__, "extension of 2000 bytes", "1;", 'x', 1998,
	    "\r\na\r\n0\r\n\r\n", E400, NULL, 0, MORE);
	/* per line: 1000 + 95 bytes on two chunks */
	check_long(__LINE__, "extensions of 1000 and 95 bytes on two chunks",
	    "1;", 'x', 1000, "\r\na\r\n1;" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "\r\nb\r\n0\r\n\r\n", 0, "ab", 0, DONE);
	/* trailers: 8192 bytes in all, each line's first byte and LF not
	 * counted */
	check_long(__LINE__, "trailer section of 8192 bytes", "0\r\nX:", 'a',
	    8190, "\r\n\r\nNEXT", 0, "", 4, DONE);
	check_long(__LINE__, "trailer section of 8193 bytes", "0\r\nX:", 'a',
	    8191, "\r\n\r\n", E400, NULL, 0, MORE);
	/* the bound is on the section: 300 short lines are too many */
	in = tap_alloc(300 * (sizeof(three) - 1) + 1);
	for (i = 0; i < 300; i++)
		memcpy(in + i * (sizeof(three) - 1), three, sizeof(three) - 1);
	in[300 * (sizeof(three) - 1)] = '\0';
	check_long(__LINE__, "300 trailers of 36 bytes", "5\r\nhello\r\n0\r\n",
	    'x', 0, in, E400, NULL, 0, MORE);
	in[200 * (sizeof(three) - 1)] = '\0';
	check_long(__LINE__, "200 trailers of 36 bytes", "5\r\nhello\r\n0\r\n",
	    'x', 0, in, 0, "hello", 0, MORE);
	free(in);
}

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_row(&rows[i]);
	test_long();
	todo_summary();
	return done_testing();
}
