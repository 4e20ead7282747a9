/*
 * dirlist.c - unit tests for utf8_next() (static in src/dirlist.c), the
 * UTF-8 decoder the listings use to tell text from bytes (RFC 3629), and
 * for dl_keep() and dl_sort(), the arena that sorts a group of names.
 *
 * Each row is a byte string, how many of its bytes the decoder may see,
 * and the length and code point of the sequence at its start, or 0 for
 * bytes that are not UTF-8.  The bytes are an exactly sized heap copy of
 * those n, so reading past n shows under ASan.
 */
#include <config.h>
/* the default configuration has no listings, and dirlist.h then stubs
 * out what dirlist.c defines: the tests build it as AUTO_INDEX=3 has it */
#undef ENABLE_AUTO_INDEX
#define ENABLE_AUTO_INDEX 1
#undef CONFIG_AUTO_INDEX
#define CONFIG_AUTO_INDEX 3

#include "stubs.h"

#include "../../src/dirlist.c"
#include "../../src/util.c"

#include <stdlib.h>

#include "tap.h"

#define S(s)		s, sizeof(s) - 1
/* U(bytes): all of them visible; N(bytes, n): only the first n */
#define U(s)		__LINE__, S(s)
#define N(s, n)		__LINE__, s, n
#define BAD		0, 0

static const struct {
	int		 line;
	const char	*in;
	size_t		 n;		/* bytes the decoder may see */
	size_t		 len;		/* 0: not UTF-8 */
	unsigned	 cp;
} seqs[] = {
	/* one byte: U+0000-U+007F */
	{ U("A"), 1, 0x41 },
	{ U("\0"), 1, 0 },
	{ U("\x7f"), 1, 0x7f },
	{ U("ab"), 1, 'a' },			/* one sequence at a time */
	/* two bytes: U+0080-U+07FF */
	{ U("\xc2\x80"), 2, 0x80 },
	{ U("\xc3\xa9"), 2, 0xe9 },
	{ U("\xc3\xa9\xc3\xa9"), 2, 0xe9 },
	{ U("\xdf\xbf"), 2, 0x7ff },
	/* three bytes: U+0800-U+FFFF but the surrogates */
	{ U("\xe0\xa0\x80"), 3, 0x800 },
	{ U("\xe2\x82\xac"), 3, 0x20ac },
	{ U("\xe2\x80\xa8"), 3, 0x2028 },
	{ U("\xed\x9f\xbf"), 3, 0xd7ff },	/* below the surrogates */
	{ U("\xee\x80\x80"), 3, 0xe000 },	/* above them */
	{ U("\xef\xbb\xbf"), 3, 0xfeff },
	{ U("\xef\xbf\xbd"), 3, 0xfffd },
	{ U("\xef\xbf\xbe"), 3, 0xfffe },	/* noncharacters are UTF-8 */
	{ U("\xef\xbf\xbf"), 3, 0xffff },
	/* four bytes: U+10000-U+10FFFF */
	{ U("\xf0\x90\x80\x80"), 4, 0x10000 },
	{ U("\xf0\x9f\x98\x80"), 4, 0x1f600 },
	{ U("\xf3\xbf\xbf\xbf"), 4, 0xfffff },
	{ U("\xf4\x80\x80\x80"), 4, 0x100000 },
	{ U("\xf4\x8f\xbf\xbf"), 4, 0x10ffff },
	{ U("\xf4\x8f\xbf\xbfz"), 4, 0x10ffff },

	/* continuation bytes alone */
	{ U("\x80"), BAD },
	{ U("\xbf"), BAD },
	{ U("\x80\x80"), BAD },
	{ U("\xbf\xc3\xa9"), BAD },
	/* overlong forms (RFC 3629 3: C0, C1, and E0/F0 with a low second
	 * byte, "MUST NOT" be decoded) */
	{ U("\xc0\x80"), BAD },			/* U+0000 */
	{ U("\xc0\xaf"), BAD },			/* '/' */
	{ U("\xc1\xbf"), BAD },
	{ U("\xe0\x80\x80"), BAD },
	{ U("\xe0\x80\xaf"), BAD },
	{ U("\xe0\x9f\xbf"), BAD },		/* U+07FF in three */
	{ U("\xf0\x80\x80\x80"), BAD },
	{ U("\xf0\x80\x80\xaf"), BAD },
	{ U("\xf0\x8f\xbf\xbf"), BAD },		/* U+FFFF in four */
	/* UTF-16 surrogates, U+D800-U+DFFF */
	{ U("\xed\xa0\x80"), BAD },
	{ U("\xed\xad\xbf"), BAD },
	{ U("\xed\xb0\x80"), BAD },
	{ U("\xed\xbf\xbf"), BAD },
	{ U("\xed\xa0\xbd\xed\xb8\x80"), BAD },	/* a CESU-8 pair */
	/* past U+10FFFF, and the lead bytes that only those would need */
	{ U("\xf4\x90\x80\x80"), BAD },		/* U+110000 */
	{ U("\xf4\xbf\xbf\xbf"), BAD },
	{ U("\xf5\x80\x80\x80"), BAD },
	{ U("\xf7\xbf\xbf\xbf"), BAD },
	{ U("\xf8\x88\x80\x80\x80"), BAD },	/* five bytes */
	{ U("\xfc\x84\x80\x80\x80\x80"), BAD },	/* six */
	{ U("\xfe"), BAD },
	{ U("\xff"), BAD },
	{ U("\xfe\xff"), BAD },			/* a UTF-16 BOM */
	/* cut short: the bytes are not there */
	{ U("\xc3"), BAD },
	{ U("\xe2"), BAD },
	{ U("\xe2\x82"), BAD },
	{ U("\xf0"), BAD },
	{ U("\xf0\x9f"), BAD },
	{ U("\xf0\x9f\x98"), BAD },
	/* ...or past the n the decoder may see */
	{ N("\xc3\xa9", 1), BAD },
	{ N("\xe2\x82\xac", 2), BAD },
	{ N("\xf0\x9f\x98\x80", 3), BAD },
	{ N("\xf0\x9f\x98\x80", 1), BAD },
	/* a continuation byte missing */
	{ U("\xc3("), BAD },
	{ U("\xc3\xc3\xa9"), BAD },
	{ U("\xc3\0"), BAD },
	{ U("\xe2(\xa1"), BAD },
	{ U("\xe2\x82("), BAD },
	{ U("\xe2\x82\xe2\x82\xac"), BAD },
	{ U("\xf0(\x8c\xbc"), BAD },
	{ U("\xf0\x90(\xbc"), BAD },
	{ U("\xf0\x90\x8c("), BAD },
	{ U("\xf0\x90\x8c\xf0"), BAD },
};

static void
test_utf8_next(void)
{
	unsigned cp;
	size_t i, j, len;
	char desc[64];
	unsigned char *p;

	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		tap_row(seqs[i].line);
		for (j = 0, desc[0] = '\0'; j < seqs[i].n && j < 8; j++)
			snprintf(desc + strlen(desc), sizeof(desc) -
			    strlen(desc), "%s%02x", j == 0 ? "" : " ",
			    (unsigned char)seqs[i].in[j]);
		if ((p = malloc(seqs[i].n)) == NULL)
			abort();
		memcpy(p, seqs[i].in, seqs[i].n);
		cp = 0xdeadbeef;
		len = utf8_next(p, seqs[i].n, &cp);
		is_int(len, seqs[i].len, "utf8_next(%s, %zu)", desc, seqs[i].n);
		if (len != 0 && seqs[i].len != 0)
			is_int(cp, seqs[i].cp, "utf8_next(%s, %zu): U+%04X",
			    desc, seqs[i].n, seqs[i].cp);
		free(p);
	}
	tap_row(0);
}

/*
 * Every code point from U+0000 to U+10FFFF but the surrogates, encoded
 * here as RFC 3629 3 says, decodes to itself in as many bytes; and
 * every lead byte with every second byte, all 65536 pairs, against what
 * the table in RFC 3629 4 allows.
 */
static void
test_all(void)
{
	unsigned char b[4], *p;
	unsigned c, cp, got;
	size_t n, len, bad = 0, badpair = 0, want;
	unsigned first = 0, firstpair = 0;

	for (c = 0; c <= 0x10ffff; c++) {
		if (c >= 0xd800 && c <= 0xdfff)
			continue;
		if (c < 0x80) {
			b[0] = (unsigned char)c;
			n = 1;
		} else if (c < 0x800) {
			b[0] = (unsigned char)(0xc0 | c >> 6);
			b[1] = (unsigned char)(0x80 | (c & 0x3f));
			n = 2;
		} else if (c < 0x10000) {
			b[0] = (unsigned char)(0xe0 | c >> 12);
			b[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
			b[2] = (unsigned char)(0x80 | (c & 0x3f));
			n = 3;
		} else {
			b[0] = (unsigned char)(0xf0 | c >> 18);
			b[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
			b[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
			b[3] = (unsigned char)(0x80 | (c & 0x3f));
			n = 4;
		}
		cp = 0xdeadbeef;
		len = utf8_next(b, n, &cp);
		if ((len != n || cp != c) && bad++ == 0)
			first = c;
		/* one byte fewer is always cut short */
		if (n > 1 && utf8_next(b, n - 1, &cp) != 0 && bad++ == 0)
			first = c;
	}
	is_int(bad, 0, "every scalar value decodes to itself (first that "
	    "does not: U+%04X)", first);

	/* RFC 3629 4: UTF8-2 = %xC2-DF UTF8-tail; UTF8-3 = %xE0 %xA0-BF
	 * UTF8-tail / %xE1-EC 2( UTF8-tail ) / %xED %x80-9F UTF8-tail /
	 * %xEE-EF 2( UTF8-tail ); UTF8-4 = %xF0 %x90-BF 2( UTF8-tail ) /
	 * %xF1-F3 3( UTF8-tail ) / %xF4 %x80-8F 2( UTF8-tail ) */
	if ((p = malloc(4)) == NULL)
		abort();
	for (c = 0; c < 0x10000; c++) {
		unsigned l = c >> 8, t = c & 0xff;
		unsigned lo = 0x80, hi = 0xbf;

		p[0] = (unsigned char)l;
		p[1] = (unsigned char)t;
		p[2] = p[3] = 0x80;
		if (l < 0x80)
			want = 1;
		else if (l < 0xc2 || l > 0xf4)
			want = 0;
		else {
			want = l < 0xe0 ? 2 : l < 0xf0 ? 3 : 4;
			if (l == 0xe0)
				lo = 0xa0;
			else if (l == 0xed)
				hi = 0x9f;
			else if (l == 0xf0)
				lo = 0x90;
			else if (l == 0xf4)
				hi = 0x8f;
			if (t < lo || t > hi)
				want = 0;
		}
		got = (unsigned)utf8_next(p, 4, &cp);
		if (got != want && badpair++ == 0)
			firstpair = c;
	}
	free(p);
	is_int(badpair, 0, "every first two bytes as RFC 3629 4 allows "
	    "(first that differs: %02x %02x)", firstpair >> 8,
	    firstpair & 0xff);
}

/* Whether the names held are in byte order, each offset once. */
static int
kept_sorted(const struct dl_list *l)
{
	const uint16_t *v = l->l_arena.off + DL_ARENA / 2 - l->l_nkept;
	static unsigned char seen[DL_ARENA];
	size_t i;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < l->l_nkept; i++) {
		if (v[i] >= l->l_top || seen[v[i]]++)
			return 0;
		if (i > 0 && strcmp(l->l_arena.b + v[i - 1],
		    l->l_arena.b + v[i]) >= 0)
			return 0;
	}
	return 1;
}

static void
test_sort(void)
{
	static const char *const names[] = { "b", "\xc3\xa9", "B", "a-b",
	    "_x", "A", "\xffz", "10", "ab", "~", "Z9", "9", "a", "\x01c",
	    "a.b", "\xf0\x9f\x98\x80", "aB", "\x7f", "\x80" };
	static struct dl_list l;
	char name[16];
	size_t i, n = sizeof(names) / sizeof(names[0]);
	unsigned x = 1;

	for (i = 0; i < n; i++)
		dl_keep(&l, names[i], strlen(names[i]));
	dl_sort(&l);
	ok(l.l_nkept == n && kept_sorted(&l), "%zu names sorted in byte "
	    "order, high bytes last", n);
	is_str(l.l_arena.b + l.l_arena.off[DL_ARENA / 2 - n], "\x01c",
	    "a control character first");
	is_str(l.l_arena.b + l.l_arena.off[DL_ARENA / 2 - 1], "\xffz",
	    "0xff last");

	/* 13 bytes and a NUL and a 2-byte offset: exactly 384 fit */
	l.l_top = l.l_nkept = 0;
	for (i = 0; i < 1000; i++) {
		x = x * 1103515245 + 12345;
		snprintf(name, sizeof(name), "n%012u", x % 1000000007u);
		if (dl_keep(&l, name, 13) == -1)
			break;
	}
	is_int(l.l_nkept, DL_ARENA / 16, "names fill the arena exactly");
	ok(l.l_top + 2 * l.l_nkept <= DL_ARENA, "names and offsets within it");
	ok(dl_keep(&l, "x", 1) == -1, "not even one byte more fits");
	dl_sort(&l);
	ok(kept_sorted(&l), "%zu scrambled names sorted", l.l_nkept);
	l.l_top = l.l_nkept = 0;
	dl_sort(&l);
	ok(l.l_nkept == 0, "an empty arena sorts");
}

int
main(void)
{
	test_utf8_next();
	test_all();
	test_sort();
	return done_testing();
}
