/*
 * cgi.c - unit tests for cgi_parse_head(), a CGI program's header block
 * (RFC 3875 6.2-6.3; the fields as in RFC 9110 5).
 *
 * Each row is a header block as cgi_gather() hands it over: up to and
 * including the empty line that ends it.  It is parsed from an exactly
 * sized heap copy with the one byte more that the parser writes its NUL
 * in, into a fields buffer of exactly the size given (that of
 * cgi_respond() unless the row says otherwise), so ASan sees any access
 * past either.  What must come of it: -1 (the reply is a 502), or 0 with
 * the Status, Location and Content-Length read and the fields passed on,
 * as CRLF lines.
 *
 * RFC 3875 7.2: a program's newline is LF, and "servers SHOULD also
 * accept CR LF": every row whose CRs all end lines is parsed again with
 * LF alone, and must give the same.
 *
 * Rows marked TODO disagree with the RFCs (see todo.h).
 */
#include <config.h>
/* the default configuration has no CGI, and cgi.h then stubs out what
 * cgi.c defines: the tests build it as a CGI build has it */
#undef ENABLE_CGI
#define ENABLE_CGI 1
#undef CONFIG_CGI_PATH
#define CONFIG_CGI_PATH "/cgi-bin"
#undef CONFIG_CGI_DIR
#define CONFIG_CGI_DIR "/var/www/cgi-bin"

#include "stubs.h"

#include "../../src/cgi.c"
#include "../../src/util.c"

#include <stdlib.h>

#include "tap.h"
#include "todo.h"

#define S(s)		s, sizeof(s) - 1
/* B(name, block): a row's line, name and header block */
#define B(n, s)		__LINE__, n, S(s)
/* the fields buffer of cgi_respond() */
#define DEF		((size_t)CGI_HEAD_MAX + 512)
#define NOLOC		NULL
#define NOLEN		(-1LL)
/* VALID(status, location, clen, fields): 0 and all that */
#define VALID(st, loc, cl, f)	0, st, loc, cl, f, NULL
/* INVALID: -1, a 502 */
#define INVALID		-1, 0, NOLOC, NOLEN, NULL, NULL

#define CT		"Content-Type: text/html\r\n"

static const struct row {
	int		 line;
	const char	*name;
	const char	*in;
	size_t		 inlen;
	size_t		 fsz;		/* the fields buffer */
	int		 rc;
	int		 status;	/* 0: no Status */
	const char	*location;	/* NULL: none */
	long long	 clen;		/* -1: none */
	const char	*fields;	/* passed on, CRLF lines */
	const char	*todo;		/* why the code disagrees, or NULL */
} rows[] = {
	/* document responses (6.2.1) */
	{ B("Content-Type", CT "\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT) },
	{ B("LF only", "Content-Type: text/html\n\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT) },
	{ B("mixed LF and CRLF", "Content-Type: text/html\nX-A: 1\r\n"
	    "X-B: 2\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT "X-A: 1\r\nX-B: 2\r\n") },
	{ B("other fields, in order", "X-First: 1\r\n" CT "Cache-Control: "
	    "no-store\r\nSet-Cookie: a=b; Path=/\r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, "X-First: 1\r\n" CT "Cache-Control: "
	  "no-store\r\nSet-Cookie: a=b; Path=/\r\n") },
	{ B("names keep their case", "content-TYPE: text/plain\r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, "content-TYPE: text/plain\r\n") },
	{ B("leading OWS dropped", "Content-Type: \t text/html\r\n"
	    "X-T:\tv\r\nX-N:v\r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT "X-T: v\r\nX-N: v\r\n") },
	{ B("inner whitespace kept", CT "X-S: a  b\tc\r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT "X-S: a  b\tc\r\n") },
	{ B("empty value", CT "X-Empty:\r\nX-Blank:  \r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT "X-Empty: \r\nX-Blank: \r\n") },
	{ B("name of letters, digits, '-', '_'", CT "X_a-B9: 1\r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT "X_a-B9: 1\r\n") },
	{ B("obs-text in a value", CT "X-U: caf\xc3\xa9\xff\r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT "X-U: caf\xc3\xa9\xff\r\n") },
	{ B("colons in a value", CT "X-C: a:b::\r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT "X-C: a:b::\r\n") },
	{ B("a name with '.'", CT "X.Custom: 1\r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT "X.Custom: 1\r\n") },
	{ B("a name with '!' and '~'", CT "X!y~: 1\r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT "X!y~: 1\r\n") },
	/* what is ours to say, or hop-by-hop (6.3.4: "MUST NOT return any
	 * header fields that relate to client-side communication issues") */
	{ B("hop-by-hop and our fields dropped", CT "Connection: close\r\n"
	    "Keep-Alive: timeout=5\r\nTransfer-Encoding: chunked\r\n"
	    "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\nServer: evil\r\n"
	    "X-Ok: 1\r\n\r\n"), DEF,
	  VALID(0, NOLOC, NOLEN, CT "X-Ok: 1\r\n") },
	{ B("dropped in any case", CT "CONNECTION: close\r\nserver: x\r\n\r\n"),
	  DEF, VALID(0, NOLOC, NOLEN, CT) },

	/* Status (6.3.3): 3 digits, SP, a reason phrase */
	{ B("Status with reason", "Status: 404 Not Found\r\n" CT "\r\n"), DEF,
	  VALID(404, NOLOC, NOLEN, CT) },
	{ B("Status without reason", "Status: 204\r\n\r\n"), DEF,
	  VALID(204, NOLOC, NOLEN, "") },
	{ B("Status, any case, no OWS", "STATUS:201 Created\r\n" CT "\r\n"),
	  DEF, VALID(201, NOLOC, NOLEN, CT) },
	{ B("Status alone", "status: 500 Oops\n\n"), DEF,
	  VALID(500, NOLOC, NOLEN, "") },
	{ B("Status 200, trailing SP", "Status: 200 \r\n" CT "\r\n"), DEF,
	  VALID(200, NOLOC, NOLEN, CT) },
	{ B("Status 599", "Status: 599 X\r\n\r\n"), DEF,
	  VALID(599, NOLOC, NOLEN, "") },
	{ B("Status after the fields", CT "Status: 403\r\n\r\n"), DEF,
	  VALID(403, NOLOC, NOLEN, CT) },
	/* 1xx is interim: never a program's final answer (RFC 9110 15.2) */
	{ B("Status 100", "Status: 100 Continue\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status 101", "Status: 101 Switching Protocols\r\n" CT "\r\n"), DEF,
	  INVALID },
	{ B("Status 103", "Status: 103 Early Hints\r\n" CT "\r\n"), DEF,
	  INVALID },
	{ B("Status 199", "Status: 199\r\n" CT "\r\n"), DEF, INVALID },
	/* 100-599 only (RFC 9110 15) */
	{ B("Status 099", "Status: 099\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status 000", "Status: 000\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status 600", "Status: 600\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status 999", "Status: 999\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status of 2 digits", "Status: 20\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status of 4 digits", "Status: 2000\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status, reason without SP", "Status: 200OK\r\n" CT "\r\n"), DEF,
	  INVALID },
	{ B("Status, TAB before the reason", "Status: 200\tOK\r\n" CT "\r\n"),
	  DEF, INVALID },
	{ B("Status empty", "Status:\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status of letters", "Status: OK\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status +200", "Status: +200\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status 2 00", "Status: 2 00\r\n" CT "\r\n"), DEF, INVALID },
	{ B("Status twice", "Status: 200\r\nStatus: 200\r\n" CT "\r\n"), DEF,
	  INVALID },
	{ B("Status twice, different", "Status: 200\r\nStatus: 404\r\n" CT
	    "\r\n"), DEF, INVALID },

	/* Location (6.3.2): local (a path) or a client redirect (a URI);
	 * cgi_respond() tells them apart by the leading '/' */
	{ B("local Location", "Location: /other/page?x=1\r\n\r\n"), DEF,
	  VALID(0, "/other/page?x=1", NOLEN, "") },
	{ B("absolute Location", "Location: http://example.com/x\r\n\r\n"),
	  DEF, VALID(0, "http://example.com/x", NOLEN, "") },
	{ B("absolute Location, fragment", "Location: https://e.x/p?q#frag\r\n"
	    "\r\n"), DEF, VALID(0, "https://e.x/p?q#frag", NOLEN, "") },
	{ B("Location with Status and a body", "Status: 301 Moved\r\n"
	    "Location: https://e.x/\r\n" CT "\r\n"), DEF,
	  VALID(301, "https://e.x/", NOLEN, CT) },
	{ B("Location, any case", "location:/x\n\n"), DEF,
	  VALID(0, "/x", NOLEN, "") },
	{ B("Location empty", "Location:\r\n\r\n"), DEF, INVALID },
	{ B("Location of OWS", "Location: \t \r\n\r\n"), DEF, INVALID },
	{ B("Location twice", "Location: /a\r\nLocation: /a\r\n\r\n"), DEF,
	  INVALID },
	{ B("Location with a control", "Location: /a\x01\r\n\r\n"), DEF,
	  INVALID },

	/* Content-Length: 1*DIGIT (RFC 9110 8.6) */
	{ B("Content-Length", CT "Content-Length: 1234\r\n\r\n"), DEF,
	  VALID(0, NOLOC, 1234, CT) },
	{ B("Content-Length 0", CT "Content-Length: 0\r\n\r\n"), DEF,
	  VALID(0, NOLOC, 0, CT) },
	{ B("Content-Length, leading zeros", CT "content-length: 007\r\n\r\n"),
	  DEF, VALID(0, NOLOC, 7, CT) },
	{ B("Content-Length twice, same", "Content-Length: 5\r\n" CT
	    "Content-Length: 5\r\n\r\n"), DEF, VALID(0, NOLOC, 5, CT) },
	{ B("Content-Length of 19 digits", CT
	    "Content-Length: 9223372036854775799\r\n\r\n"), DEF,
	  VALID(0, NOLOC, 9223372036854775799LL, CT) },
	{ B("Content-Length twice, different", CT "Content-Length: 5\r\n"
	    "Content-Length: 6\r\n\r\n"), DEF, INVALID },
	{ B("Content-Length empty", CT "Content-Length:\r\n\r\n"), DEF,
	  INVALID },
	{ B("Content-Length abc", CT "Content-Length: abc\r\n\r\n"), DEF,
	  INVALID },
	{ B("Content-Length -1", CT "Content-Length: -1\r\n\r\n"), DEF,
	  INVALID },
	{ B("Content-Length +5", CT "Content-Length: +5\r\n\r\n"), DEF,
	  INVALID },
	{ B("Content-Length 5x", CT "Content-Length: 5x\r\n\r\n"), DEF,
	  INVALID },
	{ B("Content-Length 0x10", CT "Content-Length: 0x10\r\n\r\n"), DEF,
	  INVALID },
	{ B("Content-Length 1 2", CT "Content-Length: 1 2\r\n\r\n"), DEF,
	  INVALID },
	{ B("Content-Length 5, 5", CT "Content-Length: 5, 5\r\n\r\n"), DEF,
	  INVALID },
	{ B("Content-Length 2^63 - 1", CT
	    "Content-Length: 9223372036854775807\r\n\r\n"), DEF,
	  VALID(0, NOLOC, 9223372036854775807LL, CT) },
	{ B("Content-Length 2^63", CT
	    "Content-Length: 9223372036854775808\r\n\r\n"), DEF, INVALID },
	{ B("Content-Length huge", CT
	    "Content-Length: 99999999999999999999999\r\n\r\n"), DEF, INVALID },
	{ B("Content-Length, trailing SP", CT "Content-Length: 5 \r\n\r\n"),
	  DEF, VALID(0, NOLOC, 5, CT) },
	{ B("Content-Length, trailing TAB", CT "Content-Length: 5\t\r\n\r\n"),
	  DEF, VALID(0, NOLOC, 5, CT) },

	/* not a response of 6.2: no Content-Type, Location or Status */
	{ B("no fields", "\r\n"), DEF, INVALID },
	{ B("no fields, LF", "\n"), DEF, INVALID },
	{ B("only other fields", "X-A: 1\r\n\r\n"), DEF, INVALID },
	{ B("only Content-Length", "Content-Length: 5\r\n\r\n"), DEF, INVALID },
	{ B("only dropped fields", "Connection: close\r\n\r\n"), DEF, INVALID },

	/* broken lines: the block is invalid (a 502), never passed on */
	{ B("no colon", CT "bogus\r\n\r\n"), DEF, INVALID },
	{ B("empty name", CT ": value\r\n\r\n"), DEF, INVALID },
	{ B("space in a name", CT "X Y: 1\r\n\r\n"), DEF, INVALID },
	{ B("space before the colon", "Content-Type : text/html\r\n\r\n"), DEF,
	  INVALID },
	{ B("TAB in a name", CT "X\tY: 1\r\n\r\n"), DEF, INVALID },
	{ B("leading space", " Content-Type: text/html\r\n\r\n"), DEF,
	  INVALID },
	{ B("obs-fold", CT "X-A: 1\r\n  more\r\n\r\n"), DEF, INVALID },
	{ B("an HTTP status line", "HTTP/1.1 200 OK\r\n" CT "\r\n"), DEF,
	  INVALID },
	{ B("name of obs-text", CT "X-\xc3\xa9: 1\r\n\r\n"), DEF, INVALID },
	{ B("control in a value", CT "X-A: a\x01z\r\n\r\n"), DEF, INVALID },
	{ B("ESC in a value", CT "X-A: \x1b[31m\r\n\r\n"), DEF, INVALID },
	{ B("DEL in a value", CT "X-A: a\x7f\r\n\r\n"), DEF, INVALID },
	{ B("bare CR in a value", CT "X-A: a\rSet-Cookie: x=1\r\n\r\n"), DEF,
	  INVALID },
	{ B("CR CR LF", "Content-Type: text/html\r\r\n\r\n"), DEF, INVALID },
	{ B("NUL in a value", "Content-Type: text/html\0x\r\n\r\n"), DEF,
	  INVALID },
	/* NUL is a CTL, allowed nowhere in a field (RFC 3875 2.2, RFC 9110
	 * 5.5): a NUL past the first line once ended the block there, and
	 * the fields after it were dropped unseen */
	{ B("NUL in a later value", CT "X-A: a\0b\r\n\r\n"), DEF,
	  INVALID },
	{ B("NUL in a name", CT "X-\0A: 1\r\n\r\n"), DEF,
	  INVALID },
	{ B("NUL at a line start", CT "\0X-A: 1\r\n\r\n"), DEF,
	  INVALID },
	{ B("NUL at a line start, then Location", CT "\0Location: /x\r\n"
	    "\r\n"), DEF, INVALID },

	/* the fields buffer: what does not fit makes the block invalid;
	 * only the fields passed on count, each "Name: value\r\n" */
	{ B("fields fit exactly", CT "\r\n"), sizeof(CT) - 1,
	  VALID(0, NOLOC, NOLEN, CT) },
	{ B("fields one byte over", CT "\r\n"), sizeof(CT) - 2, INVALID },
	{ B("LF lines: CRLF counted", "Content-Type: text/html\n\n"),
	  sizeof(CT) - 1, VALID(0, NOLOC, NOLEN, CT) },
	{ B("LF lines: one byte over", "Content-Type: text/html\n\n"),
	  sizeof(CT) - 2, INVALID },
	{ B("OWS dropped before counting", "Content-Type:     text/html\r\n"
	    "\r\n"), sizeof(CT) - 1, VALID(0, NOLOC, NOLEN, CT) },
	{ B("two fields, the second over", CT "X-A: 1\r\n\r\n"),
	  sizeof(CT "X-A: 1\r\n") - 2, INVALID },
	{ B("Status, Location, Content-Length take no room",
	    "Status: 302 Found\r\nLocation: http://e.x/\r\n"
	    "Content-Length: 0\r\nConnection: close\r\n\r\n"), 0,
	  VALID(302, "http://e.x/", 0, "") },
	{ B("nothing fits", CT "\r\n"), 0, INVALID },
};

struct result {
	int		 rc;
	int		 status;
	long long	 clen;
	char		*location;	/* a copy, or NULL */
	int		 loc_inside;	/* ch_location points into the block */
	char		*fields;	/* a copy */
	size_t		 flen;
	int		 over;
};

/* Parses in[0..n) as cgi_respond() does, into a fields buffer of fsz. */
static void
parse(const char *in, size_t n, size_t fsz, struct result *res)
{
	struct cgi_head h;
	char *head, *mem;

	head = tap_alloc(n + 1);		/* head[end] gets the NUL */
	memcpy(head, in, n);
	head[n] = 'Z';
	mem = tap_alloc(fsz);
	memset(&h, 0xa5, sizeof(h));
	buf_init(&h.ch_fields, mem, fsz);
	res->rc = cgi_parse_head(head, n, &h);
	res->status = h.ch_status;
	res->clen = h.ch_clen;
	res->loc_inside = h.ch_location == NULL || (h.ch_location >= head &&
	    h.ch_location < head + n);
	res->location = NULL;
	if (h.ch_location != NULL && res->loc_inside) {
		res->location = tap_alloc(strlen(h.ch_location) + 1);
		strcpy(res->location, h.ch_location);
	}
	res->flen = buf_len(&h.ch_fields);
	res->fields = tap_alloc(res->flen);
	memcpy(res->fields, mem, res->flen);
	res->over = h.ch_fields.b_over;
	free(mem);
	free(head);
}

static void
result_free(struct result *res)
{
	free(res->location);
	free(res->fields);
}

/* Do two parses agree on everything a caller uses? */
static int
same(const struct result *a, const struct result *b)
{
	if (a->rc != b->rc)
		return 0;
	if (a->rc != 0)
		return 1;
	return a->status == b->status && a->clen == b->clen &&
	    (a->location == NULL ? b->location == NULL : b->location != NULL &&
	    strcmp(a->location, b->location) == 0) && a->flen == b->flen &&
	    memcmp(a->fields, b->fields, a->flen) == 0;
}

/* The block with LF for each CRLF, or NULL when it has another CR. */
static char *
lf_only(const char *in, size_t n, size_t *outn)
{
	char *out = tap_alloc(n);
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (in[i] == '\r') {
			if (i + 1 == n || in[i + 1] != '\n') {
				free(out);
				return NULL;
			}
			continue;
		}
		out[k++] = in[i];
	}
	*outn = k;
	return out;
}

static void
check_row(const struct row *r)
{
	struct result res, lf;
	size_t fsz = r->fsz, n;
	char *alt;

	tap_row(r->line);
	parse(r->in, r->inlen, fsz, &res);
	is_int_todo(r->todo, res.rc, r->rc, "%s: result", r->name);
	if (res.rc == 0 && r->rc == 0) {
		is_int_todo(r->todo, res.status, r->status, "%s: status",
		    r->name);
		ok(res.loc_inside, "%s: location inside the block", r->name);
		is_mem_todo(r->todo, res.location, res.location == NULL ? 0 :
		    strlen(res.location), r->location, "%s: location", r->name);
		is_int_todo(r->todo, res.clen, r->clen, "%s: content length",
		    r->name);
		is_mem_todo(r->todo, res.fields, res.flen, r->fields,
		    "%s: fields passed on", r->name);
		is_int(res.over, 0, "%s: nothing dropped", r->name);
	}
	if ((alt = lf_only(r->in, r->inlen, &n)) != NULL &&
	    (n != r->inlen || memcmp(alt, r->in, n) != 0)) {
		parse(alt, n, fsz, &lf);
		ok(same(&lf, &res), "%s: the same with LF for CRLF", r->name);
		result_free(&lf);
	}
	free(alt);
	result_free(&res);
	tap_row(0);
}

/*
 * Blocks of up to CGI_HEAD_MAX - 1 bytes (cgi_gather() passes no more)
 * whose fields, with ": " and CRLF, need more than the CGI_HEAD_MAX + 512
 * bytes of cgi_respond()' buffer: the Content-Type line, 23 bytes passed
 * on, and k lines "a:\n", each passed on as "a: \r\n", fill 23 + 5k.
 */
#define CT_LF		"Content-Type: text/xy\n"
#define CT_OUT		(sizeof(CT_LF))		/* with CR: one more */

static void
test_overflow(void)
{
	static const struct {
		int	 line;
		size_t	 k;
		int	 rc;
	} t[] = {
		{ __LINE__, (DEF - CT_OUT) / 5, 0 },	/* fills it exactly */
		{ __LINE__, (DEF - CT_OUT) / 5 + 1, -1 },
		{ __LINE__, (CGI_HEAD_MAX - 1 - CT_OUT) / 3, -1 },
	};
	struct result res;
	struct row r;
	size_t i, j, n;
	char *in;

	/* the first boundary is exact only if 5 divides it */
	is_int((DEF - CT_OUT) % 5, 0, "the fields buffer is 23 + 5k bytes");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		tap_row(t[i].line);
		n = sizeof(CT_LF) - 1 + 3 * t[i].k + 1;
		ok(n <= CGI_HEAD_MAX - 1, "%zu lines fit in CGI_HEAD_MAX",
		    t[i].k);
		in = tap_alloc(n);
		memcpy(in, CT_LF, sizeof(CT_LF) - 1);
		for (j = 0; j < t[i].k; j++)
			memcpy(in + sizeof(CT_LF) - 1 + 3 * j, "a:\n", 3);
		in[n - 1] = '\n';
		if (t[i].rc == 0) {
			parse(in, n, DEF, &res);
			is_int(res.rc, 0, "%zu empty fields: valid", t[i].k);
			is_int(res.flen, DEF, "%zu empty fields: the buffer "
			    "full", t[i].k);
			is_int(res.over, 0, "%zu empty fields: nothing dropped",
			    t[i].k);
			result_free(&res);
		} else {
			memset(&r, 0, sizeof(r));
			r.line = t[i].line;
			r.name = "fields overflowing the buffer";
			r.in = in;
			r.inlen = n;
			r.fsz = DEF;
			r.rc = -1;
			r.clen = NOLEN;
			check_row(&r);
		}
		free(in);
	}
	tap_row(0);
}

/*
 * The reason phrase of Status (RFC 3875 6.3.3), passed on as the program
 * wrote it, past the one SP; none, or one longer than REASON_MAX, is NULL
 * (the server's phrase for the code, or an empty one).
 */
#define X64	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

static void
test_reason(void)
{
	static const struct {
		int		 line;
		const char	*in;
		const char	*reason;	/* NULL: none */
	} t[] = {
		{ __LINE__, "Status: 404 Not Here\r\n" CT "\r\n", "Not Here" },
		{ __LINE__, "Status: 202 Accepted\n\n", "Accepted" },
		{ __LINE__, "Status: 204\r\n\r\n", NULL },
		{ __LINE__, "Status: 200 \r\n" CT "\r\n", NULL },
		{ __LINE__, "Status: 200 OK  \t\r\n" CT "\r\n", "OK" },
		{ __LINE__, "Status: 418 I'm a\tteapot\n\n", "I'm a\tteapot" },
		{ __LINE__, "Status: 200  two SP\n\n", " two SP" },
		{ __LINE__, "Status: 299 \xc3\xa9t\xc3\xa9\n\n", "\xc3\xa9t\xc3\xa9" },
		{ __LINE__, "Status: 200 " X64 "\n\n", X64 },
		{ __LINE__, "Status: 200 " X64 "x\n\n", NULL },
		{ __LINE__, CT "\r\n", NULL },
	};
	struct cgi_head h;
	char fields[DEF], *head;
	size_t i, n;

	is_int(sizeof(X64) - 1, REASON_MAX, "X64 is REASON_MAX bytes");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		tap_row(t[i].line);
		n = strlen(t[i].in);
		head = tap_alloc(n + 1);
		memcpy(head, t[i].in, n);
		buf_init(&h.ch_fields, fields, sizeof(fields));
		h.ch_reason = "junk";
		is_int(cgi_parse_head(head, n, &h), 0, "parsed");
		if (t[i].reason == NULL)
			ok(h.ch_reason == NULL, "no phrase");
		else
			ok(h.ch_reason != NULL && h.ch_reason >= head &&
			    h.ch_reason < head + n &&
			    strcmp(h.ch_reason, t[i].reason) == 0,
			    "the phrase \"%s\"", t[i].reason);
		free(head);
	}
	tap_row(0);
}

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_row(&rows[i]);
	test_overflow();
	test_reason();
	todo_summary();
	return done_testing();
}
