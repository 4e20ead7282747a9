/*
 * dirlist.c - directory listings: AUTO_INDEX 1 JSON, 2 XML, 3 HTML.
 *
 * A listing is streamed while the directory is read: no temporary file,
 * no malloc (opendir would allocate), never more than one getdents64
 * buffer, one output chunk and the names of one group (below) in
 * memory, all on the thread's stack (about 17 KiB with the caller's
 * path buffer).
 * HTTP/1.1 gets Transfer-Encoding: chunked, one chunk per output buffer;
 * HTTP/1.0 gets no length and the connection closes after the body.
 *
 * What is listed: directories, then regular files, each group sorted by
 * name in byte order (strcmp(3) on the raw bytes, taken as unsigned: "B"
 * before "a", UTF-8 in code point order, invalid bytes last).  Sorting
 * holds a group's names in a fixed arena in struct dl_list (DL_ARENA
 * bytes on the thread's stack, no malloc: a name costs its length plus
 * three bytes, so about 300 names of 16 bytes fit).  When a group's
 * names do not all fit, those kept are listed sorted, then a marker, then
 * the rest of the group in the order the file system returns them; the
 * next group is sorted again.  The marker: in HTML a row
 * <tr><td colspan="3">The entries below are not sorted: ...</td></tr>, in
 * XML a comment <!-- The entries below are not sorted: ... --> before
 * the next <entry>, and in JSON, which has no comments, a member
 * "sorted":false after the array, once, when any group was cut; a listing
 * that was sorted whole has no marker at all.  Names starting with '.'
 * and entries whose d_type belongs to the other pass take no room.
 *
 * Entries are stat'ed when listed, following symbolic links as GET
 * follows them, so a link is listed as what it points to; sockets, FIFOs,
 * devices and dangling links are left out, and so are names starting
 * with '.' (".", "..", and hidden files, as upstream documents).  An entry
 * that cannot be stat'ed is skipped.  Times are UTC.
 *
 * The formats keep upstream 2.8's names, so its html.xslt still works.
 * They are shown wrapped here; the server writes the head on one line,
 * then one line per entry, then the end.  JSON (application/json):
 *	{"path":"/dir/","timestamp":"2024-05-01T12:00:00Z",
 *	"server":"mrhttpd/3.0.0","entries":[
 *	{"name":"sub","type":"dir","size":4096,
 *	"modified":"2024-05-01T11:00:00Z"},
 *	{"name":"a.txt","type":"text/plain","size":12,
 *	"modified":"2024-04-30T09:15:02Z"}
 *	]}
 * (with ],"sorted":false} at the end when a group did not fit to sort)
 * XML (application/xml), XSLT_HEADER on the line after the declaration:
 *	<?xml version="1.0" encoding="UTF-8"?>
 *	<?xml-stylesheet href="/html.xslt" type="text/xsl"?>
 *	<directory><path>/dir/</path><timestamp>2024-05-01T12:00:00Z
 *	</timestamp><server>mrhttpd/3.0.0</server>
 *	<entry><name>sub</name><type>dir</type><size>4096</size>
 *	<modified>2024-05-01T11:00:00Z</modified></entry>
 *	</directory>
 * path is the request path, with PATH_PREFIX, percent-decoded and
 * normalised; type is "dir" or the MIME type of the name's suffix
 * (application/octet-stream when unknown); size is in bytes (for a
 * directory its own st_size); times are ISO 8601 UTC.  Upstream wrote
 * size as a JSON string and times in local time.
 *
 * HTML (text/html; charset=utf-8): "Index of /dir/", a "Parent directory"
 * link except at the root, then a table of Name (a link), Size (binary
 * units, bytes in the title attribute) and Last modified (UTC).
 *
 * Names are bytes, not text: any of them may hold quotes, <, &, control
 * characters or invalid UTF-8.  JSON escapes " and \ and controls
 * (\u00XX), and U+2028/U+2029 for JavaScript's sake; XML and HTML use
 * entities.  Invalid UTF-8 becomes U+FFFD in all three, and so do
 * characters the format cannot carry (C0 controls in XML except tab, LF
 * and CR; all controls and noncharacters in HTML's text).  Links are
 * relative, and every byte of a name outside the URI's unreserved set is
 * percent-encoded in them, so each one requests exactly its file whatever
 * the name holds ('?', '#', ':', invalid UTF-8).
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

#include "dirlist.h"

enum {
	DL_OUT = 4096,		/* output buffer: one piece of the stream */
	DL_DENTS = 2048,	/* getdents64 buffer: 7 or more entries */
	DL_ARENA = 6144,	/* names held for sorting, and their offsets */
	DL_CHAR = 8,		/* the longest escape of one character */
	DL_NUM = 48,		/* room for a number or a date */
};

static const char *const dl_type[] = {
	[LIST_JSON] = "application/json",
	[LIST_XML] = "application/xml",
	[LIST_HTML] = "text/html; charset=utf-8",
};


/* The body being written: data gathers in o_buf until it is a piece of
 * the stream. */
struct dl_out {
	struct stream	*o_st;
	struct buf	 o_b;		/* the data */
	int		 o_err;		/* a write failed: send nothing more */
	int		 o_count;	/* entries written */
	int		 o_mark;	/* the marker is due before an entry */
	int		 o_unsorted;	/* the marker was written */
	char		 o_buf[DL_OUT];
};

/* A listing being made: what dirlist_serve found, for dl_stream, and the
 * names held for sorting.  l_arena has l_top bytes of names, each ended
 * by a NUL, from its start, and l_nkept 16-bit offsets of them at its
 * end, from l_arena.off[DL_ARENA / 2 - l_nkept] on. */
struct dl_list {
	union {
		char		 b[DL_DENTS];
		uint64_t	 align;	/* the records hold 64-bit fields */
	} l_dents;
	union {
		char		 b[DL_ARENA];
		uint16_t	 off[DL_ARENA / 2];
	} l_arena;
	size_t		 l_top;
	size_t		 l_nkept;
	ssize_t		 l_n;		/* bytes in l_dents, read already */
	int		 l_dirfd;
	const char	*l_path;	/* the path to show */
	size_t		 l_len;
	int		 l_root;
};

/* The text of the marker before a group's entries that were not sorted. */
#define DL_UNSORTED	"The entries below are not sorted: too many to sort."

static inline void out_room(struct dl_out *, size_t);
static void	 out_flush(struct dl_out *, int);
static void	 out_put(struct dl_out *, const char *, size_t);
static void	 out_text(struct dl_out *, const char *, size_t);
static void	 out_href(struct dl_out *, const char *, size_t);
static void	 out_time(struct dl_out *, time_t, int);
static void	 out_uint(struct dl_out *, unsigned long long);
static void	 out_size(struct dl_out *, unsigned long long);
static void	 dl_begin(struct dl_out *, const char *, size_t, int);
static int	 dl_skip(const char *, unsigned char, int);
static void	 dl_entry(struct dl_out *, const struct dl_list *,
		    const char *, size_t, int);
static int	 dl_keep(struct dl_list *, const char *, size_t);
static void	 dl_sort(struct dl_list *);
static void	 dl_kept(struct dl_out *, struct dl_list *, int);
static void	 dl_unsorted(struct dl_out *);
static int	 dl_pass(struct dl_out *, struct dl_list *, int, ssize_t);
static void	 dl_end(struct dl_out *);

#define out_lit(o, lit)	out_put((o), (lit), sizeof(lit) - 1)

/* Makes sure n bytes fit in o_b, sending what is there if they don't.
 * (Every append is bounded all the same: this only avoids cutting an
 * escape in two.) */
static inline void
out_room(struct dl_out *o, size_t n)
{
	if (buf_room(&o->o_b) < n)
		out_flush(o, 0);
}

/*
 * Passes the data gathered on; with last set, as the body's last piece.
 * A failed write sets o_err for good.
 */
static void
out_flush(struct dl_out *o, int last)
{
	size_t n = buf_len(&o->o_b);

	buf_init(&o->o_b, o->o_buf, sizeof(o->o_buf));
	if (!o->o_err && (last ? stream_last(o->o_st, o->o_buf, n) :
	    stream_put(o->o_st, o->o_buf, n)) == -1)
		o->o_err = 1;
}

static void
out_put(struct dl_out *o, const char *s, size_t n)
{
	size_t room;

	while (n > 0) {
		out_room(o, 1);
		room = buf_room(&o->o_b);
		if (room > n)
			room = n;
		buf_add(&o->o_b, s, room);
		s += room;
		n -= room;
	}
}

/*
 * Writes s[0..n) as text of the listing's format (a JSON string's
 * contents, XML character data or attribute, HTML text or attribute).
 * The output is valid UTF-8 and cannot end the string, element or
 * attribute it stands in, whatever the bytes are.
 */
static void
out_text(struct dl_out *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;
	unsigned cp;
	int bad;

	while (i < n) {
		out_room(o, DL_CHAR);
		if ((len = utf8_next(u + i, n - i, &cp)) == 0) {
			len = 1;
			bad = 1;
		} else if (CONFIG_AUTO_INDEX == LIST_JSON)
			bad = 0;
		else if (CONFIG_AUTO_INDEX == LIST_XML)
			/* XML 1.0 Char: no C0 but tab, LF, CR; no U+FFFE/F */
			bad = (cp < 0x20 && cp != '\t' && cp != '\n' &&
			    cp != '\r') || cp == 0xfffe || cp == 0xffff;
		else
			/* HTML: controls and noncharacters are parse errors,
			 * and a newline in a name would not show */
			bad = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
			    (cp >= 0xfdd0 && cp <= 0xfdef) ||
			    (cp & 0xfffe) == 0xfffe;
		i += len;
		if (bad) {
			if (CONFIG_AUTO_INDEX == LIST_JSON)
				buf_lit(&o->o_b, "\\ufffd");
			else
				buf_lit(&o->o_b, "\xef\xbf\xbd");
			continue;
		}
		if (CONFIG_AUTO_INDEX == LIST_JSON) {
			if (cp == '"' || cp == '\\') {
				buf_char(&o->o_b, '\\');
				buf_char(&o->o_b, (char)cp);
				continue;
			}
			/* U+2028 and U+2029 end a line in older JavaScript */
			if (cp < 0x20 || cp == 0x2028 || cp == 0x2029) {
				char t[8];
				struct buf tb;

				/* four digits: the 1 in front keeps the
				 * zeros, and is dropped */
				buf_init(&tb, t, sizeof(t));
				buf_hex(&tb, 0x10000 | cp, 0);
				buf_lit(&o->o_b, "\\u");
				buf_add(&o->o_b, t + 1, 4);
				continue;
			}
		} else {
			switch (cp) {
			case '&':
				buf_lit(&o->o_b, "&amp;");
				continue;
			case '<':
				buf_lit(&o->o_b, "&lt;");
				continue;
			case '>':
				buf_lit(&o->o_b, "&gt;");
				continue;
			case '"':
				buf_lit(&o->o_b, "&quot;");
				continue;
			case '\'':
				buf_lit(&o->o_b, "&#39;");
				continue;
			case '\r':
				/* a parser would read a bare CR as LF */
				buf_lit(&o->o_b, "&#13;");
				continue;
			}
		}
		buf_add(&o->o_b, s + i - len, len);
	}
}

/*
 * Writes s[0..n) percent-encoded for a link: every byte but the URI's
 * unreserved ones, so that '?', '#', ':' and '%' in a name stay part of
 * the path, and nothing in it can end an attribute.
 */
static void
out_href(struct dl_out *o, const char *s, size_t n)
{
	size_t k;

	for (; n > 0; s += k, n -= k) {
		k = n > 64 ? 64 : n;
		out_room(o, 3 * k);
		buf_url(&o->o_b, s, k, 0);
	}
}

/*
 * Writes t in UTC: ISO 8601 "2024-05-01T12:00:00Z" (iso set), or
 * "2024-05-01 12:00:00" for people.  Years outside 0-9999 are clamped.
 */
static void
out_time(struct dl_out *o, time_t t, int iso)
{
	long long v = (long long)t;	/* time_t may have 32 bits */
	struct tm tm;
	struct buf *b = &o->o_b;

	if (v < DATE_MIN)
		v = DATE_MIN;
	else if (v > DATE_MAX)
		v = DATE_MAX;
	time_utc((time_t)v, &tm);
	out_room(o, DL_NUM);
	buf_pad(b, (unsigned)(tm.tm_year + 1900), 4);
	buf_char(b, '-');
	buf_pad(b, (unsigned)tm.tm_mon + 1, 2);
	buf_char(b, '-');
	buf_pad(b, (unsigned)tm.tm_mday, 2);
	buf_char(b, iso ? 'T' : ' ');
	buf_pad(b, (unsigned)tm.tm_hour, 2);
	buf_char(b, ':');
	buf_pad(b, (unsigned)tm.tm_min, 2);
	buf_char(b, ':');
	buf_pad(b, (unsigned)tm.tm_sec, 2);
	if (iso)
		buf_char(b, 'Z');
}

static void
out_uint(struct dl_out *o, unsigned long long v)
{
	out_room(o, DL_NUM);
	buf_uint(&o->o_b, v);
}

/* Writes a size for people: "512 B", "1.5 KiB", "5.0 MiB", "12 GiB". */
static void
out_size(struct dl_out *o, unsigned long long v)
{
	static const char units[] = "KMGTPE";
	unsigned long long rest = 0;
	int u = 0;

	while (v >= 1024) {
		rest = v & 1023;
		v >>= 10;
		u++;
	}
	out_uint(o, v);
	if (u > 0 && v < 10) {
		buf_char(&o->o_b, '.');
		buf_char(&o->o_b, (char)('0' + rest * 10 / 1024));
	}
	buf_char(&o->o_b, ' ');
	if (u > 0) {
		buf_char(&o->o_b, units[u - 1]);
		buf_char(&o->o_b, 'i');
	}
	buf_char(&o->o_b, 'B');
}

/* The document up to the first entry.  root: no "Parent directory". */
static void
dl_begin(struct dl_out *o, const char *path, size_t len, int root)
{
	time_t now;

	(void)http_date_now(&now);
	if (CONFIG_AUTO_INDEX == LIST_JSON) {
		out_lit(o, "{\"path\":\"");
		out_text(o, path, len);
		out_lit(o, "\",\"timestamp\":\"");
		out_time(o, now, 1);
		out_lit(o, "\",\"server\":\"mrhttpd/" MRHTTPD_VERSION
		    "\",\"entries\":[");
	} else if (CONFIG_AUTO_INDEX == LIST_XML) {
		out_lit(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
		if (sizeof(CONFIG_XSLT_HEADER) > 1)
			out_lit(o, CONFIG_XSLT_HEADER "\n");
		out_lit(o, "<directory><path>");
		out_text(o, path, len);
		out_lit(o, "</path><timestamp>");
		out_time(o, now, 1);
		out_lit(o, "</timestamp><server>mrhttpd/" MRHTTPD_VERSION
		    "</server>\n");
	} else {
		out_lit(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		    "<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, "
		    "initial-scale=1\">\n<title>Index of ");
		out_text(o, path, len);
		out_lit(o, "</title>\n<style>\n"
		    "body{font-family:sans-serif;margin:1em 2em}\n"
		    "table{border-collapse:collapse}\n"
		    "th,td{padding:.2em 1.5em .2em 0;text-align:left;"
		    "vertical-align:top}\n"
		    ".s{text-align:right;white-space:nowrap}\n"
		    "tbody tr:hover{background:#eee}\n"
		    "</style>\n</head>\n<body>\n<h1>Index of ");
		out_text(o, path, len);
		out_lit(o, "</h1>\n<table>\n<thead><tr><th>Name</th>"
		    "<th class=\"s\">Size</th><th>Last modified (UTC)</th>"
		    "</tr></thead>\n"
		    "<tbody>\n");
		if (!root)
			out_lit(o, "<tr><td><a href=\"../\">Parent directory"
			    "</a></td><td></td><td></td></tr>\n");
	}
}

/*
 * Whether an entry is left out of this pass (0: directories, 1: files)
 * before any stat: a name starting with '.', or a d_type, when the file
 * system fills it in, of the other pass or of what is never listed.  It
 * spares those a stat and room in the arena.
 */
static int
dl_skip(const char *name, unsigned char dtype, int pass)
{
	return name[0] == '.' || (dtype != DT_UNKNOWN && dtype != DT_LNK &&
	    dtype != (pass == 0 ? DT_DIR : DT_REG));
}

/* One directory entry that dl_skip let through, if it belongs to this
 * pass. */
static void
dl_entry(struct dl_out *o, const struct dl_list *l, const char *name,
    size_t len, int pass)
{
	const char *type;
	struct stat st;
	int dir;

	/* FOLLOW_SYMLINKS=0: a link is not shown as what it points to
	 * (which may be outside PUBLIC_DIR), and so not listed at all */
	if (fstatat(l->l_dirfd, name, &st, ENABLE_FOLLOW_SYMLINKS ? 0 :
	    AT_SYMLINK_NOFOLLOW) == -1)
		return;
	dir = S_ISDIR(st.st_mode);
	if (pass == 0 ? !dir : !S_ISREG(st.st_mode))
		return;
	if (o->o_mark)
		dl_unsorted(o);

	if (CONFIG_AUTO_INDEX == LIST_HTML) {
		out_lit(o, "<tr><td><a href=\"");
		out_href(o, name, len);
		if (dir)
			out_lit(o, "/");
		out_lit(o, "\">");
		out_text(o, name, len);
		if (dir)
			out_lit(o, "/</a></td><td class=\"s\">-");
		else {
			out_lit(o, "</a></td><td class=\"s\" title=\"");
			out_uint(o, (unsigned long long)st.st_size);
			out_lit(o, " bytes\">");
			out_size(o, (unsigned long long)st.st_size);
		}
		out_lit(o, "</td><td>");
		out_time(o, st.st_mtime, 0);
		out_lit(o, "</td></tr>\n");
		o->o_count++;
		return;
	}

	if (dir)
		type = "dir";
	else if ((type = mime_lookup(name, len)) == NULL)
		type = "application/octet-stream";
	if (CONFIG_AUTO_INDEX == LIST_JSON) {
		if (o->o_count > 0)
			out_lit(o, ",");
		out_lit(o, "\n{\"name\":\"");
		out_text(o, name, len);
		out_lit(o, "\",\"type\":\"");
		out_put(o, type, strlen(type));
		out_lit(o, "\",\"size\":");
		out_uint(o, (unsigned long long)st.st_size);
		out_lit(o, ",\"modified\":\"");
		out_time(o, st.st_mtime, 1);
		out_lit(o, "\"}");
	} else {
		out_lit(o, "<entry><name>");
		out_text(o, name, len);
		out_lit(o, "</name><type>");
		out_put(o, type, strlen(type));
		out_lit(o, "</type><size>");
		out_uint(o, (unsigned long long)st.st_size);
		out_lit(o, "</size><modified>");
		out_time(o, st.st_mtime, 1);
		out_lit(o, "</modified></entry>\n");
	}
	o->o_count++;
}

/*
 * Holds name[0..len) for sorting: the name and a NUL at l_top, its
 * offset below those at the arena's end.  Returns -1 when they do not
 * fit.  (A name has at most 255 bytes, so one always fits alone.)
 */
static int
dl_keep(struct dl_list *l, const char *name, size_t len)
{
	if (l->l_top + len + 1 + (l->l_nkept + 1) * sizeof(uint16_t) >
	    DL_ARENA)
		return -1;
	memcpy(l->l_arena.b + l->l_top, name, len);
	l->l_arena.b[l->l_top + len] = '\0';
	l->l_nkept++;
	l->l_arena.off[DL_ARENA / 2 - l->l_nkept] = (uint16_t)l->l_top;
	l->l_top += len + 1;
	return 0;
}

/*
 * Sorts the offsets of the names held so that the names are in byte
 * order: strcmp compares bytes as unsigned char.  A shell sort with
 * Knuth's gaps (1, 4, 13, 40...): small, in place, and qsort(3) may
 * allocate.
 */
static void
dl_sort(struct dl_list *l)
{
	const char *a = l->l_arena.b;
	uint16_t *v = l->l_arena.off + DL_ARENA / 2 - l->l_nkept, t;
	size_t n = l->l_nkept, gap, i, j;

	for (gap = 1; gap < n / 3; gap = gap * 3 + 1)
		;
	for (; gap > 0; gap /= 3)
		for (i = gap; i < n; i++) {
			t = v[i];
			for (j = i; j >= gap &&
			    strcmp(a + v[j - gap], a + t) > 0; j -= gap)
				v[j] = v[j - gap];
			v[j] = t;
		}
}

/* Lists the names held, sorted, and empties the arena. */
static void
dl_kept(struct dl_out *o, struct dl_list *l, int pass)
{
	const uint16_t *v = l->l_arena.off + DL_ARENA / 2 - l->l_nkept;
	const char *name;
	size_t i;

	dl_sort(l);
	for (i = 0; i < l->l_nkept && !o->o_err; i++) {
		name = l->l_arena.b + v[i];
		dl_entry(o, l, name, strlen(name), pass);
	}
	l->l_top = l->l_nkept = 0;
}

/* Says that the entries that follow, to the group's end, are not sorted;
 * JSON says it after the array (dl_end). */
static void
dl_unsorted(struct dl_out *o)
{
	o->o_mark = 0;
	o->o_unsorted = 1;
	if (CONFIG_AUTO_INDEX == LIST_XML)
		out_lit(o, "<!-- " DL_UNSORTED " -->\n");
	else if (CONFIG_AUTO_INDEX == LIST_HTML)
		out_lit(o, "<tr><td colspan=\"3\">" DL_UNSORTED "</td></tr>\n");
}

static void
dl_end(struct dl_out *o)
{
	if (CONFIG_AUTO_INDEX == LIST_JSON && o->o_unsorted)
		out_lit(o, "\n],\"sorted\":false}\n");
	else if (CONFIG_AUTO_INDEX == LIST_JSON)
		out_lit(o, "\n]}\n");
	else if (CONFIG_AUTO_INDEX == LIST_XML)
		out_lit(o, "</directory>\n");
	else
		out_lit(o, "</tbody>\n</table>\n</body>\n</html>\n");
}

/*
 * One pass (0: directories, 1: files) over the directory, from the n
 * bytes of records in l_dents on.  Names are held while they fit and
 * listed sorted at the end; once one does not fit, those held are listed
 * sorted, then the rest as they are read, with the marker before the
 * first of them that is listed (o_mark: with DT_UNKNOWN, none may be).
 * Returns -1 when a read fails.
 */
static int
dl_pass(struct dl_out *o, struct dl_list *l, int pass, ssize_t n)
{
	const struct dir_rec *d;
	size_t off, len;
	int full = 0;

	while (n > 0 && !o->o_err) {
		off = 0;
		while ((d = dir_next(l->l_dents.b, (size_t)n, &off))) {
			if (dl_skip(d->d_name, d->d_type, pass))
				continue;
			len = strnlen(d->d_name, d->d_reclen -
			    offsetof(struct dir_rec, d_name));
			if (!full && dl_keep(l, d->d_name, len) == 0)
				continue;
			if (!full) {
				dl_kept(o, l, pass);
				o->o_mark = full = 1;
			}
			dl_entry(o, l, d->d_name, len, pass);
		}
		if ((n = dir_read(l->l_dirfd, l->l_dents.b,
		    sizeof(l->l_dents.b))) == -1)
			return -1;
	}
	dl_kept(o, l, pass);
	o->o_mark = 0;
	return 0;
}

/*
 * The listing's body, a stream: directories first, in two passes, as
 * only one group's names are held.  Returns 0, or -1 when the directory
 * could not be read to its end or the client is gone: the body is then
 * cut short (for HTTP/1.1, no last chunk), as a well-formed end would
 * pass a partial listing off as the whole.
 */
static int
dl_stream(void *arg, struct stream *st)
{
	struct dl_list *l = arg;
	struct dl_out o;
	ssize_t n = l->l_n;
	int pass;

	memset(&o, 0, offsetof(struct dl_out, o_buf));
	o.o_st = st;
	buf_init(&o.o_b, o.o_buf, sizeof(o.o_buf));
	dl_begin(&o, l->l_path, l->l_len, l->l_root);
	for (pass = 0; pass < 2 && !o.o_err; pass++) {
		if (pass > 0 && (lseek(l->l_dirfd, 0, SEEK_SET) == -1 ||
		    (n = dir_read(l->l_dirfd, l->l_dents.b,
		    sizeof(l->l_dents.b))) == -1))
			goto truncated;
		if (dl_pass(&o, l, pass, n) == -1)
			goto truncated;
	}
	dl_end(&o);
	out_flush(&o, 1);
	return o.o_err ? -1 : 0;

 truncated:
	out_flush(&o, 0);
	return -1;
}

int
dirlist_serve(struct conn *c, struct request *r, struct reply *rp, int dirfd)
{
	char fields[128], shown[PATH_MAX_LEN];
	struct dl_list l = { .l_dirfd = dirfd };
	struct response rs;
	char *path = shown;
	ssize_t len;
	size_t pfx = sizeof(CONFIG_PATH_PREFIX) - 1;

	/*
	 * A listing reads its directory and stats every entry, and its
	 * output is as long as the directory: like a program or the disk,
	 * not work for the turn, which a client reading as fast as it is
	 * written would otherwise hold for a pipeline of them.
	 */
	if (server_yield() != 0)
		return response_error(c, r, rp, 503);
	/*
	 * The first read comes before the status line, so that a directory
	 * that cannot be read gets an error status rather than a 200 with
	 * an empty listing.
	 */
	if ((l.l_n = dir_read(dirfd, l.l_dents.b, sizeof(l.l_dents.b))) == -1)
		return response_error(c, r, rp, errno_status(errno, 0));

	/*
	 * The path to show: the request's with PATH_PREFIX (which
	 * req_decoded is without), decoded and normalised.  Should that
	 * fail, the target as sent is shown instead, escaped all the same.
	 * It ends in "/": "/prefix" alone is redirected (file_serve), so
	 * relative links resolve below it.
	 */
	if ((len = url_decode(r->req_target, r->req_path_len, path,
	    PATH_MAX_LEN)) < 0 || (len = path_normalize(path)) < 0) {
		path = (char *)r->req_target;
		len = (ssize_t)r->req_path_len;
	}
	l.l_path = path;
	l.l_len = (size_t)len;
	l.l_root = len == 1 || (ENABLE_PATH_PREFIX && (size_t)len == pfx + 1 &&
	    memcmp(path, CONFIG_PATH_PREFIX "/", pfx + 1) == 0);

	response_init(&rs, 200, fields, sizeof(fields));
	response_field(&rs, "Content-Type", dl_type[CONFIG_AUTO_INDEX]);
	/* listings change without their directory's files changing */
	response_field(&rs, "Cache-Control", "no-cache");
	response_field(&rs, "X-Content-Type-Options", "nosniff");
	rs.rs_src = SRC_STREAM;
	rs.rs_len = -1;
	rs.rs_cork = 1;
	rs.rs_stream = dl_stream;
	rs.rs_arg = &l;
	return response_send(c, r, rp, &rs);
}
