/*
 * fuzz_request.c - request_parse() on arbitrary bytes.
 *
 * The input is one receive buffer.  It is parsed whole, from an exactly
 * sized heap copy (ASan catches any read past len), and again the way
 * read_head() in src/http1.c meets it: the first part alone, then, when
 * that asked for more, all of it with *scanned carried over.  The split
 * point comes from the first byte.  Both ways must agree, and whatever
 * the parser returns must hold together (check_parsed).
 */
#include "../../src/request.c"
#include "../../src/util.c"

#include "fuzz.h"

/* What a parse gave, as offsets into its buffer, to compare two parses. */
struct result {
	int		 rc;
	long		 line, target, query, host;
	size_t		 target_len, path_len, query_len;
	enum method	 method;
	int		 minor, keepalive, chunked, nhdrs;
	long long	 clen;
};

static int
in_head(const char *buf, size_t head, const char *p, size_t n)
{
	return p >= buf && p <= buf + head && n <= (size_t)(buf + head - p);
}

/* A NUL-terminated string that lies inside the head, NUL included. */
static int
str_in_head(const char *buf, size_t head, const char *p)
{
	return in_head(buf, head, p, 0) &&
	    memchr(p, '\0', (size_t)(buf + head - p)) != NULL;
}

static long
off_of(const char *buf, size_t head, const char *p)
{
	return p == NULL ? -1 : in_head(buf, head, p, 0) ? p - buf : -2;
}

static void
check_value(const char *buf, size_t head, const char *v)
{
	const char *e;

	if (v == NULL)
		return;
	CHECK(str_in_head(buf, head, v));
	for (e = v; *e != '\0'; e++)
		CHECK(((unsigned char)*e >= ' ' || *e == '\t') && *e != 0x7f);
	/* trimmed */
	CHECK(*v != ' ' && *v != '\t');
	CHECK(e == v || (e[-1] != ' ' && e[-1] != '\t'));
}

static void
check_parsed(const struct request *r, const char *buf, size_t len, int rc,
    size_t scanned, struct result *res)
{
	size_t head, i;
	const char *t;

	memset(res, 0, sizeof(*res));
	res->rc = rc;
	if (rc == 0) {
		CHECK(scanned <= len);
		return;
	}
	if (rc < 0) {
		CHECK(rc == -400 || rc == -431 || rc == -501 || rc == -505);
		return;
	}
	head = (size_t)rc;
	CHECK(head <= len);
	CHECK(head >= 2 && buf[head - 1] == '\n');

	/* the request line: "METHOD SP target SP HTTP/1.x", terminated */
	CHECK(str_in_head(buf, head, r->req_line));
	CHECK(r->req_method_len >= 1 &&
	    r->req_method_len < strlen(r->req_line));
	CHECK(r->req_line[r->req_method_len] == ' ');
	CHECK(r->req_method == method_lookup(r->req_line, r->req_method_len));
	for (i = 0; i < r->req_method_len; i++)
		CHECK(http_cls[(unsigned char)r->req_line[i]] & C_TCHAR);
	CHECK(r->req_minor == 0 || r->req_minor == 1);
	CHECK(strlen(r->req_line) >= 12);	/* "A * HTTP/1.1" */
	CHECK(memcmp(r->req_line + strlen(r->req_line) - 9, " HTTP/1.", 8) == 0);

	/* the target: inside the head, or the string "/" */
	t = r->req_target;
	CHECK(t != NULL && r->req_target_len >= 1);
	CHECK(r->req_path_len <= r->req_target_len);
	if (in_head(buf, head, t, r->req_target_len)) {
		CHECK(t > r->req_line + r->req_method_len);
		CHECK(t + r->req_target_len <= r->req_line + strlen(r->req_line));
		for (i = 0; i < r->req_target_len; i++)
			CHECK((unsigned char)t[i] > ' ' && t[i] != 0x7f);
		CHECK(memchr(t, '?', r->req_path_len) == NULL);
		CHECK(t[0] == '/' || (r->req_target_len == 1 && t[0] == '*') ||
		    r->req_method == M_CONNECT);
		if (r->req_query == NULL) {
			CHECK(r->req_path_len == r->req_target_len);
			CHECK(r->req_query_len == 0);
		} else {
			CHECK(t[r->req_path_len] == '?');
			CHECK(r->req_query == t + r->req_path_len + 1);
			CHECK(r->req_path_len + 1 + r->req_query_len ==
			    r->req_target_len);
		}
	} else {
		/* absolute-form without a path */
		CHECK(strcmp(t, "/") == 0);
		CHECK(r->req_target_len == 1 && r->req_path_len == 1);
		CHECK(r->req_query == NULL ? r->req_query_len == 0 :
		    in_head(buf, head, r->req_query, r->req_query_len));
	}

	/* the fields */
	CHECK(r->req_nhdrs >= 0 && r->req_nhdrs <= MAX_HEADERS);
	for (i = 0; i < (size_t)r->req_nhdrs; i++) {
		const struct header *h = &r->req_hdrs[i];
		size_t k;

		CHECK(in_head(buf, head, h->h_name, h->h_name_len));
		CHECK(h->h_name > r->req_line);
		CHECK(h->h_name_len >= 1);
		for (k = 0; k < h->h_name_len; k++)
			CHECK(http_cls[(unsigned char)h->h_name[k]] & C_TCHAR);
		CHECK(h->h_name[h->h_name_len] == ':');
		check_value(buf, head, h->h_value);
		CHECK(h->h_value > h->h_name + h->h_name_len);
	}
	check_value(buf, head, r->req_host);
	check_value(buf, head, r->req_ua);
	check_value(buf, head, r->req_referer);
	check_value(buf, head, r->req_if_match);
	check_value(buf, head, r->req_if_none_match);
	check_value(buf, head, r->req_if_modified_since);
	check_value(buf, head, r->req_if_unmodified_since);
	check_value(buf, head, r->req_if_range);
	check_value(buf, head, r->req_range);
	check_value(buf, head, r->req_authorization);
	check_value(buf, head, r->req_expect);
	check_value(buf, head, r->req_accept_encoding);
	CHECK(r->req_user == NULL && r->req_auth_type == NULL);

	/* the framing and the smuggling guards */
	CHECK(r->req_clen >= -1);
	CHECK(r->req_chunked == 0 || r->req_chunked == 1);
	CHECK(!r->req_chunked || (r->req_clen == -1 && r->req_minor == 1));
	CHECK(r->req_minor == 0 || r->req_host != NULL);
	CHECK(r->req_keepalive == 0 || r->req_keepalive == 1);

	res->line = off_of(buf, head, r->req_line);
	res->target = off_of(buf, head, r->req_target);
	res->query = off_of(buf, head, r->req_query);
	res->host = off_of(buf, head, r->req_host);
	res->target_len = r->req_target_len;
	res->path_len = r->req_path_len;
	res->query_len = r->req_query_len;
	res->method = r->req_method;
	res->minor = r->req_minor;
	res->keepalive = r->req_keepalive;
	res->chunked = r->req_chunked;
	res->nhdrs = r->req_nhdrs;
	res->clen = r->req_clen;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct request r;	/* 1.5 KB: not on the stack each time */
	struct result whole, split;
	size_t scanned, pos;
	char *buf;
	int rc;

	if (size == 0)
		return 0;		/* read_head never parses nothing */

	/* whole */
	buf = fuzz_dup(data, size, 0);
	scanned = 0;
	rc = request_parse(&r, buf, size, &scanned);
	check_parsed(&r, buf, size, rc, scanned, &whole);
	free(buf);

	/* in two reads, split where the first byte says */
	pos = (size_t)(((unsigned long long)data[0] * (size + 1)) >> 8);
	scanned = 0;
	rc = 0;
	if (pos > 0) {
		buf = fuzz_dup(data, pos, 0);
		rc = request_parse(&r, buf, pos, &scanned);
		check_parsed(&r, buf, pos, rc, scanned, &split);
		free(buf);
	}
	if (rc == 0) {
		/* the caller asks again with the same *scanned */
		buf = fuzz_dup(data, size, 0);
		rc = request_parse(&r, buf, size, &scanned);
		check_parsed(&r, buf, size, rc, scanned, &split);
		free(buf);
	}
	/* a head complete in the first part is the same head in the whole */
	CHECK(split.rc == whole.rc);
	CHECK(split.line == whole.line && split.target == whole.target);
	CHECK(split.query == whole.query && split.host == whole.host);
	CHECK(split.target_len == whole.target_len);
	CHECK(split.path_len == whole.path_len);
	CHECK(split.query_len == whole.query_len);
	CHECK(split.method == whole.method && split.minor == whole.minor);
	CHECK(split.keepalive == whole.keepalive);
	CHECK(split.chunked == whole.chunked && split.clen == whole.clen);
	CHECK(split.nhdrs == whole.nhdrs);
	return 0;
}
