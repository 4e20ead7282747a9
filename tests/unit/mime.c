/*
 * mime.c - unit tests for mime_lookup() and the order of its table, which
 * the binary search depends on.
 */
#include "../../src/mime.c"

#include <stdlib.h>

#include "tap.h"

#define S(s)		s, sizeof(s) - 1

static const struct {
	int		 line;
	const char	*name;
	size_t		 len;
	const char	*type;		/* NULL: unknown */
} names[] = {
	{ __LINE__, S("/index.html"), "text/html" },
	{ __LINE__, S("/index.htm"), "text/html" },
	{ __LINE__, S("/s.css"), "text/css" },
	{ __LINE__, S("/app.js"), "text/javascript" },
	{ __LINE__, S("/mod.mjs"), "text/javascript" },
	{ __LINE__, S("/d.json"), "application/json" },
	{ __LINE__, S("/i.svg"), "image/svg+xml" },
	{ __LINE__, S("/i.png"), "image/png" },
	{ __LINE__, S("/i.jpg"), "image/jpeg" },
	{ __LINE__, S("/i.jpeg"), "image/jpeg" },
	{ __LINE__, S("/i.gif"), "image/gif" },
	{ __LINE__, S("/favicon.ico"), "image/x-icon" },
	{ __LINE__, S("/robots.txt"), "text/plain" },
	{ __LINE__, S("/feed.xml"), "application/xml" },
	{ __LINE__, S("/doc.pdf"), "application/pdf" },
	{ __LINE__, S("/m.wasm"), "application/wasm" },
	{ __LINE__, S("/f.woff"), "font/woff" },
	{ __LINE__, S("/f.woff2"), "font/woff2" },
	{ __LINE__, S("/v.mp4"), "video/mp4" },
	{ __LINE__, S("/i.webp"), "image/webp" },
	{ __LINE__, S("/app.webmanifest"), "application/manifest+json" },
	{ __LINE__, S("/a.7z"), "application/x-7z-compressed" },	/* first */
	{ __LINE__, S("/a.zip"), "application/zip" },			/* last */
	{ __LINE__, S("index.html"), "text/html" },	/* a bare name */
	{ __LINE__, S("a.b.c.css"), "text/css" },	/* the last suffix */
	{ __LINE__, S("/a.tar.gz"), "application/gzip" },
	/* case */
	{ __LINE__, S("/INDEX.HTML"), "text/html" },
	{ __LINE__, S("/i.Png"), "image/png" },
	{ __LINE__, S("/F.WOFF2"), "font/woff2" },
	{ __LINE__, S("/i.jPeG"), "image/jpeg" },
	/* unknown */
	{ __LINE__, S("/a.unknown"), NULL },
	{ __LINE__, S("/a.htmlx"), NULL },
	{ __LINE__, S("/a.ht"), NULL },
	{ __LINE__, S("/a.h"), NULL },
	{ __LINE__, S("/a.0"), NULL },
	{ __LINE__, S("/a.{"), NULL },		/* sorts after every suffix */
	{ __LINE__, S("/a.!"), NULL },		/* and before */
	{ __LINE__, S("/a.html~"), NULL },
	{ __LINE__, S("/a.html.bak"), NULL },
	{ __LINE__, S("/README"), NULL },	/* no dot */
	{ __LINE__, S("README"), NULL },
	{ __LINE__, S("/"), NULL },
	{ __LINE__, S(""), NULL },
	{ __LINE__, S("/a.d/file"), NULL },	/* dot in a directory only */
	{ __LINE__, S("/x.html/"), NULL },
	{ __LINE__, S("/a.html/file"), NULL },
	{ __LINE__, S("/a.d/file.css"), "text/css" },
	{ __LINE__, S("/file."), NULL },	/* trailing dot */
	{ __LINE__, S("."), NULL },
	{ __LINE__, S("/.."), NULL },
	{ __LINE__, S("/a.\xc3\xa9"), NULL },
	/* a suffix longer than 15 characters never fits ext[16] */
	{ __LINE__, S("/a.abcdefghijklmno"), NULL },			/* 15 */
	{ __LINE__, S("/a.abcdefghijklmnop"), NULL },			/* 16 */
	{ __LINE__, S("/a.htmlhtmlhtmlhtml"), NULL },			/* 16 */
	{ __LINE__, S("/a.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
	  NULL },
	/* only len bytes count */
	{ __LINE__, "/a.html", 6, "text/html" },	/* "/a.htm" */
	{ __LINE__, "/a.json", 6, NULL },		/* "/a.jso" */
	{ __LINE__, "/a.htmlx", 7, "text/html" },
	{ __LINE__, "/a.css/b", 6, "text/css" },
	{ __LINE__, "/a.css", 0, NULL },
};

static void
test_names(void)
{
	char *p;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		tap_row(names[i].line);
		/* an exactly sized copy: no reading past len, or before 0 */
		if ((p = malloc(names[i].len == 0 ? 1 : names[i].len)) == NULL)
			abort();
		memcpy(p, names[i].name, names[i].len);
		is_str(mime_lookup(p, names[i].len), names[i].type,
		    "mime_lookup(\"%.*s\", %zu)", (int)names[i].len,
		    names[i].name, names[i].len);
		free(p);
	}
	tap_row(0);
}

/* A row's type: its offset must start a name in type_text. */
#define NTYPES		sizeof(type_text)
#define TYPE(i)		(types[i].type < NTYPES ? type_name(types[i].type) : NULL)

/* The binary search needs types[] sorted, in lower case, unique, short. */
static void
test_table(void)
{
	size_t i, n = sizeof(types) / sizeof(types[0]), len, bad;
	char name[32], upper[32];
	const char *e;

	bad = 0;
	for (i = 1; i < n; i++)
		if (strcmp(types[i - 1].ext, types[i].ext) >= 0) {
			note("types[] out of order at %zu: \"%s\" then \"%s\"",
			    i, types[i - 1].ext, types[i].ext);
			bad++;
		}
	is_int(bad, 0, "types[] sorted by strcmp, no duplicates (%zu entries)",
	    n);

	bad = 0;
	for (i = 0; i < n; i++) {
		len = strlen(types[i].ext);
		for (e = types[i].ext; *e != '\0'; e++)
			if ((*e >= 'A' && *e <= 'Z') || *e == '.' || *e == '/')
				break;
		if (len == 0 || len > 15 || *e != '\0' ||
		    types[i].type >= NTYPES || (types[i].type > 0 &&
		    type_name(types[i].type)[-1] != '\0') ||
		    strchr(type_name(types[i].type), '/') == NULL) {
			note("types[%zu] \"%s\" is not a lower-case suffix of "
			    "1-15 bytes with a type/subtype", i, types[i].ext);
			bad++;
		}
	}
	is_int(bad, 0, "types[] suffixes lower case, 1-15 bytes; types valid");

	for (i = 0; i < n; i++) {
		/* 15 bytes at most, checked above; a longer one has failed
		 * there (and the return value in use keeps gcc -O2's
		 * -Wformat-truncation quiet) */
		if ((size_t)snprintf(name, sizeof(name), "/f.%s",
		    types[i].ext) >= sizeof(name))
			continue;
		is_str(mime_lookup(name, strlen(name)), TYPE(i),
		    "types[%zu] looks itself up: %s", i, name);
		if ((size_t)snprintf(upper, sizeof(upper), "/F.%s",
		    types[i].ext) >= sizeof(upper))
			continue;
		for (e = upper; *e != '\0'; e++)
			if (*e >= 'a' && *e <= 'z')
				upper[e - upper] = (char)(*e - 'a' + 'A');
		is_str(mime_lookup(upper, strlen(upper)), TYPE(i),
		    "types[%zu] upper case: %s", i, upper);
	}
}

int
main(void)
{
	test_names();
	test_table();
	return done_testing();
}
