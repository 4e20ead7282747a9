/*
 * fuzz_cgi_head.c - cgi_parse_head(), a CGI program's header block.
 *
 * Input: 2 bytes that size the output buffer for the fields passed on
 * (0 to CGI_HEAD_MAX + 512, what cgi_respond() gives it), then the block:
 * an exactly sized heap copy with one byte more for the NUL the parser
 * writes at head[end].  The output buffer is followed by a guard of known
 * bytes, inside the same allocation, so a write past b_end shows even
 * where ASan cannot see it.
 *
 * Invariants: the result is 0 or -1; the buffer never ran past its end,
 * and the guard is untouched; on success, ch_status is 0 or 200-599,
 * ch_clen >= -1, ch_location (if any) is a non-empty string inside the
 * block without controls, and the fields passed on are whole lines
 * "Name: value\r\n", the name a token, the value without controls:
 * nothing a program says can split our response.
 */
#include "../../src/cgi.c"
#include "../../src/util.c"

#include "fuzz.h"

/* --- the harness ------------------------------------------------------------- */
enum { GUARD = 64, GUARD_BYTE = 0xa5, FIELDS_MAX = CGI_HEAD_MAX + 512 };

/* A token character (RFC 9110 5.6.2), written out rather than taken
 * from http_cls, so that a wrong table shows here. */
static int
name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c));
}

static int
value_char(char c)
{
	return ((unsigned char)c >= ' ' || c == '\t') && c != 0x7f;
}

/* The fields passed on: "Name: value\r\n" lines, nothing else. */
static void
check_fields(const char *p, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		for (k = i; k < n && name_char(p[k]); k++)
			;
		CHECK(k > i);
		CHECK(n - k >= 2 && p[k] == ':' && p[k + 1] == ' ');
		for (k += 2; k < n && value_char(p[k]); k++)
			;
		CHECK(n - k >= 2 && p[k] == '\r' && p[k + 1] == '\n');
		i = k + 2;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c;
	struct cgi_head h;
	const uint8_t *p;
	char *head, *mem, *e;
	const char *q;
	size_t fsz, end, i;
	int rc;

	cur_init(&c, data, size);
	fsz = (size_t)cur_le(&c, 2) % (FIELDS_MAX + 1);
	end = cur_bytes(&c, size, &p);

	head = fuzz_dup(p, end, 1);	/* head[end] is written */
	mem = malloc(fsz + GUARD);
	if (mem == NULL)
		abort();
	memset(mem, GUARD_BYTE, fsz + GUARD);
	buf_init(&h.ch_fields, mem, fsz);
	h.ch_status = -7;
	h.ch_clen = -7;
	h.ch_reason = "junk";

	rc = cgi_parse_head(head, end, &h);
	CHECK(rc == 0 || rc == -1);

	/* the bounded buffer stayed in bounds */
	CHECK(h.ch_fields.b_start == mem && h.ch_fields.b_end == mem + fsz);
	CHECK(h.ch_fields.b_p >= mem && h.ch_fields.b_p <= h.ch_fields.b_end);
	for (i = 0; i < GUARD; i++)
		CHECK((unsigned char)mem[fsz + i] == GUARD_BYTE);
	/* nothing written after what it holds */
	for (i = buf_len(&h.ch_fields); i < fsz; i++)
		CHECK((unsigned char)mem[i] == GUARD_BYTE);

	if (rc == 0) {
		CHECK(!h.ch_fields.b_over);
		CHECK(h.ch_status == 0 ||
		    (h.ch_status >= 200 && h.ch_status <= 599));
		CHECK(h.ch_clen >= -1);
		if (h.ch_location != NULL) {
			CHECK(h.ch_location > head &&
			    h.ch_location < head + end);
			CHECK(*h.ch_location != '\0');
			for (e = h.ch_location; *e != '\0'; e++)
				CHECK(value_char(*e));
			CHECK(e <= head + end);
		}
		/* a phrase only with a status, fit for a status line */
		if (h.ch_reason != NULL) {
			CHECK(h.ch_status != 0);
			CHECK(h.ch_reason > head && h.ch_reason < head + end);
			CHECK(strlen(h.ch_reason) <= REASON_MAX);
			for (q = h.ch_reason; *q != '\0'; q++)
				CHECK(value_char(*q));
		}
		check_fields(mem, buf_len(&h.ch_fields));
	}
	free(head);
	free(mem);
	return 0;
}
