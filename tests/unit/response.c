/*
 * response.c - unit tests for buf_status(), the "NNN phrase" of a status
 * line: the server's phrase for the code, a CGI program's own (already
 * checked by cgi_parse_head), or none for a code the table lacks; and
 * bounded, as every write into a struct buf.
 */
#include <config.h>

#include "stubs.h"

#include "../../src/response.c"
#include "../../src/util.c"

#include "tap.h"

static const struct {
	int		 line;
	int		 status;
	const char	*reason;	/* NULL: the server's */
	size_t		 room;		/* of the buffer */
	const char	*out;		/* what it holds after */
	int		 over;		/* b_over set */
} rows[] = {
	{ __LINE__, 200, NULL, 64, "200 OK", 0 },
	{ __LINE__, 404, NULL, 64, "404 Not Found", 0 },
	{ __LINE__, 503, NULL, 64, "503 Service Unavailable", 0 },
	{ __LINE__, 201, NULL, 64, "201 Created", 0 },
	/* a code without a phrase: an empty one (RFC 9112 4) */
	{ __LINE__, 299, NULL, 64, "299 ", 0 },
	{ __LINE__, 205, NULL, 64, "205 ", 0 },
	{ __LINE__, 100, NULL, 64, "100 Continue", 0 },
	{ __LINE__, 101, NULL, 64, "101 ", 0 },
	{ __LINE__, 599, NULL, 64, "599 ", 0 },
	/* a program's own phrase, as it wrote it */
	{ __LINE__, 404, "Not Here", 64, "404 Not Here", 0 },
	{ __LINE__, 200, "Fine", 64, "200 Fine", 0 },
	{ __LINE__, 299, "\xc3\xa9t\xc3\xa9", 64, "299 \xc3\xa9t\xc3\xa9", 0 },
	{ __LINE__, 200, " lead", 64, "200  lead", 0 },
	{ __LINE__, 200, "", 64, "200 ", 0 },
	/* bounded: what does not fit is dropped whole, and said */
	{ __LINE__, 200, NULL, 6, "200 OK", 0 },	/* exact fit */
	{ __LINE__, 200, NULL, 5, "200 ", 1 },
	{ __LINE__, 200, NULL, 4, "200 ", 1 },
	{ __LINE__, 200, NULL, 3, "", 1 },
	{ __LINE__, 404, "Not Here", 11, "404 ", 1 },
	{ __LINE__, 404, "Not Here", 0, "", 1 },
};

int
main(void)
{
	char mem[80];
	struct buf b;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		tap_row(rows[i].line);
		memset(mem, 'X', sizeof(mem));
		buf_init(&b, mem, rows[i].room);
		buf_status(&b, rows[i].status, rows[i].reason);
		is_int((int)buf_len(&b), (int)strlen(rows[i].out),
		    "%d %s in %zu bytes: length", rows[i].status,
		    rows[i].reason ? rows[i].reason : "(table)", rows[i].room);
		ok(memcmp(mem, rows[i].out, strlen(rows[i].out)) == 0,
		    "... the bytes");
		is_int(b.b_over, rows[i].over, "... b_over");
		ok(mem[rows[i].room] == 'X', "... nothing past the buffer");
	}
	return done_testing();
}
