/* request.c - parse a request head in place (RFC 9112).  No I/O here. */
#include <string.h>
#include <strings.h>

#include "mrhttpd.h"

/* tchar of RFC 9110 5.6.2: the characters of methods and header names. */
static const unsigned char tchar[256] = {
	['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1,
	['*'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1, ['^'] = 1, ['_'] = 1,
	['`'] = 1, ['|'] = 1, ['~'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
	['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
	['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
	['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
	['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
	['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
};

static const struct {
	char		 name[8];
	enum method	 m;
} methods[] = {	/* names, not pointers: no relocations */
	{ "GET", M_GET }, { "HEAD", M_HEAD }, { "POST", M_POST },
	{ "PUT", M_PUT }, { "DELETE", M_DELETE }, { "OPTIONS", M_OPTIONS },
	{ "TRACE", M_TRACE }, { "CONNECT", M_CONNECT }, { "PATCH", M_PATCH },
};

/* Methods are case-sensitive (RFC 9110 9.1): "get" is unknown. */
enum method
method_lookup(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strlen(methods[i].name) == n &&
		    memcmp(methods[i].name, s, n) == 0)
			return methods[i].m;
	return M_UNKNOWN;
}

/*
 * Finds the end of the head: the empty line after the headers.  Returns its
 * length, or 0 if it is not all there yet, with *scanned where to resume.
 */
static size_t
head_end(const char *buf, size_t len, size_t *scanned)
{
	const char *nl;
	size_t i = *scanned;

	while ((nl = memchr(buf + i, '\n', len - i)) != NULL) {
		i = (size_t)(nl - buf) + 1;
		if (i < len && buf[i] == '\n')
			return i + 1;
		if (i + 1 < len && buf[i] == '\r' && buf[i + 1] == '\n')
			return i + 2;
		if (i == len || (buf[i] == '\r' && i + 1 == len)) {
			*scanned = i - 1;	/* decide when more arrives */
			return 0;
		}
	}
	*scanned = len;
	return 0;
}

/*
 * Ends the line starting at p: NUL-terminates it over its CR LF or LF and
 * returns the next line.  A CR anywhere else, or a NUL, is an error (NULL).
 */
static char *
line_end(char *p, char **endp)
{
	for (;; p++) {
		if (*p == '\n') {
			*endp = p;
			*p = '\0';
			return p + 1;
		}
		if (*p == '\r') {
			if (p[1] != '\n')
				return NULL;
			*endp = p;
			*p = '\0';
			return p + 2;
		}
		if (*p == '\0')
			return NULL;
	}
}

static int
parse_clen(const char *v, long long *out)
{
	long long n = 0;

	if (*v == '\0')
		return -1;
	for (; *v != '\0'; v++) {
		if (*v < '0' || *v > '9')
			return -1;
		if (n > (0x7fffffffffffffffLL - 9) / 10)
			return -1;		/* overflow */
		n = n * 10 + (*v - '0');
	}
	*out = n;
	return 0;
}

/* Does the comma-separated list v contain token t (case-insensitive)? */
static int
list_has(const char *v, const char *t)
{
	size_t n = strlen(t), k;

	while (*v != '\0') {
		while (*v == ' ' || *v == '\t' || *v == ',')
			v++;
		for (k = 0; v[k] != '\0' && v[k] != ',' && v[k] != ' ' &&
		    v[k] != '\t'; k++)
			;
		if (k == n && strncasecmp(v, t, n) == 0)
			return 1;
		v += k;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != ',' && *v != '\0')
			return 0;
	}
	return 0;
}

/*
 * A Transfer-Encoding field of a request (RFC 9112 6.1): 0 for exactly
 * "chunked", the one coding we decode; -501 for a list with a coding we
 * do not implement ("gzip, chunked" would otherwise have its gzip
 * silently dropped); -400 for a list whose last coding is not chunked,
 * or with chunked twice, as then nothing delimits the body.
 */
static int
te_check(const char *v)
{
	struct list_item it;
	int chunked = 0, other = 0, last_chunked = 0;

	while (list_next(&v, &it)) {
		/* ";x", or "chunked xyz": no list at all */
		if (it.li_len == 0 || it.li_junk)
			return -400;
		last_chunked = it.li_len == 7 &&
		    strncasecmp(it.li_name, "chunked", 7) == 0;
		if (last_chunked)
			chunked++;
		else
			other = 1;
	}
	if (chunked == 0 && !other)
		return -400;		/* an empty list */
	if (other)
		return last_chunked && chunked == 1 ? -501 : -400;
	return chunked == 1 ? 0 : -400;
}

static int
hdr_is(const struct header *h, const char *name, size_t n)
{
	return h->h_name_len == n && strncasecmp(h->h_name, name, n) == 0;
}

/*
 * The fields the server itself reads, by name: h is stored in r (its value
 * v, NUL-terminated), and Connection's tokens go to *conn (1 close, 2
 * keep-alive).  Returns 0, or -status for a value to refuse.
 */
static int
request_field(struct request *r, const struct header *h, const char *v,
    int *conn)
{
	int rc;

	switch (h->h_name_len) {
	case 4:
		if (hdr_is(h, "Host", 4)) {
			if (r->req_host != NULL)
				return -400;
			r->req_host = v;
		}
		break;
	case 5:
		if (ENABLE_RANGES && hdr_is(h, "Range", 5))
			r->req_range = v;
		break;
	case 6:
		if (hdr_is(h, "Expect", 6))
			r->req_expect = v;
		break;
	case 7:
		if (hdr_is(h, "Referer", 7))
			r->req_referer = v;
		break;
	case 8:
		if (hdr_is(h, "If-Match", 8))
			r->req_if_match = v;
		else if (ENABLE_RANGES && hdr_is(h, "If-Range", 8))
			r->req_if_range = v;
		break;
	case 13:
		if (hdr_is(h, "If-None-Match", 13))
			r->req_if_none_match = v;
		else if (hdr_is(h, "Authorization", 13))
			r->req_authorization = v;
		break;
	case 15:
		if (hdr_is(h, "Accept-Encoding", 15))
			r->req_accept_encoding = v;
		break;
	case 19:
		if (ENABLE_VALIDATORS &&
		    hdr_is(h, "If-Unmodified-Since", 19))
			r->req_if_unmodified_since = v;
		break;
	case 10:
		if (hdr_is(h, "Connection", 10)) {
			*conn |= list_has(v, "close");
			*conn |= list_has(v, "keep-alive") << 1;
		} else if (hdr_is(h, "User-Agent", 10))
			r->req_ua = v;
		break;
	case 14:
		if (hdr_is(h, "Content-Length", 14)) {
			long long n;

			if (parse_clen(v, &n) != 0 ||
			    (r->req_clen >= 0 && r->req_clen != n))
				return -400;
			r->req_clen = n;
		}
		break;
	case 17:
		if (ENABLE_VALIDATORS &&
		    hdr_is(h, "If-Modified-Since", 17)) {
			r->req_if_modified_since = v;
			break;
		}
		if (hdr_is(h, "Transfer-Encoding", 17)) {
			if (r->req_chunked)
				return -400;	/* a second field */
			if ((rc = te_check(v)) != 0)
				return rc;
			r->req_chunked = 1;
		}
		break;
	}
	return 0;
}

/* The same for HTTP/2's decoded fields (h2.c); Connection has no meaning
 * there (nghttp2 refuses it).  Without HTTP2, never called. */
int
request_header(struct request *r, const struct header *h, const char *v)
{
	int conn = 0;

	if (!ENABLE_HTTP2)
		return 0;
	return request_field(r, h, v, &conn);
}

/* Parses the request line; returns 0 or -status. */
static int
parse_request_line(struct request *r, char *p)
{
	char *t, *v;
	size_t n;

	for (t = p; tchar[(unsigned char)*t]; t++)
		;
	if (t == p || *t != ' ')
		return -400;
	r->req_method_len = (size_t)(t - p);
	r->req_method = method_lookup(p, r->req_method_len);

	/* request-target: visible ASCII and obs-text, no controls or spaces */
	for (v = ++t; (unsigned char)*v > ' ' && *v != 0x7f; v++)
		;
	if (v == t || *v != ' ')
		return -400;
	n = (size_t)(v - t);

	if (*t != '/') {
		if ((n > 7 && strncasecmp(t, "http://", 7) == 0) ||
		    (n > 8 && strncasecmp(t, "https://", 8) == 0)) {
			/* absolute-form: keep only the path (and query) */
			char *s = t + (t[4] == ':' ? 7 : 8);

			while (s < v && *s != '/' && *s != '?')
				s++;
			if (s == t + (t[4] == ':' ? 7 : 8))
				return -400;	/* no authority */
			if (s == v || *s == '?') {
				/* no path: "http://h" or "http://h?q" means "/";
				 * the request line stays intact for the log */
				r->req_target = "/";
				r->req_target_len = r->req_path_len = 1;
				r->req_query = s < v ? s + 1 : NULL;
				r->req_query_len = s < v ? (size_t)(v - s - 1) : 0;
				goto version;
			}
			n -= (size_t)(s - t);
			t = s;
		} else if (!((n == 1 && *t == '*') || r->req_method == M_CONNECT))
			return -400;
	}
	r->req_target = t;
	r->req_target_len = n;
	r->req_path_len = n;
	r->req_query = NULL;
	r->req_query_len = 0;
	if ((t = memchr(t, '?', n)) != NULL) {
		r->req_path_len = (size_t)(t - r->req_target);
		r->req_query = t + 1;
		r->req_query_len = n - r->req_path_len - 1;
	}

	/* HTTP-version = "HTTP/" DIGIT "." DIGIT, then the end of the line */
 version:
	v++;
	if (strncmp(v, "HTTP/", 5) != 0 || v[5] < '0' || v[5] > '9' ||
	    v[6] != '.' || v[7] < '0' || v[7] > '9' || v[8] != '\0')
		return -400;
	if (v[5] != '1' || v[7] > '1')
		return -505;
	r->req_minor = v[7] - '0';
	return 0;
}

int
request_parse(struct request *r, char *buf, size_t len, size_t *scanned)
{
	char *p, *end, *next, *colon, *v, *e;
	size_t head, skip = 0;
	struct header *h;
	int rc, conn = 0;

	/* RFC 9112 2.2: ignore empty lines before the request line */
	while (skip < len && (buf[skip] == '\r' || buf[skip] == '\n'))
		skip++;
	if (*scanned < skip)
		*scanned = skip;
	if ((head = head_end(buf, len, scanned)) == 0)
		return 0;
	if (memchr(buf, '\0', head) != NULL)
		return -400;

	memset(r, 0, offsetof(struct request, req_hdrs));
	r->req_clen = -1;
	p = buf + skip;
	r->req_line = p;
	if ((next = line_end(p, &end)) == NULL)
		return -400;
	if ((rc = parse_request_line(r, p)) != 0)
		return rc;

	/* up to the empty line; a line starting with a bare CR is an error */
	for (p = next; *p != '\n' && !(*p == '\r' && p[1] == '\n'); p = next) {
		if ((next = line_end(p, &end)) == NULL)
			return -400;
		if (*p == ' ' || *p == '\t')
			return -400;		/* obs-fold */
		for (colon = p; tchar[(unsigned char)*colon]; colon++)
			;
		if (colon == p || *colon != ':')
			return -400;		/* no name, or space before ':' */
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		for (e = end; e > v && (e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		*e = '\0';
		for (e = v; *e != '\0'; e++)
			if (((unsigned char)*e < ' ' && *e != '\t') || *e == 0x7f)
				return -400;
		if (r->req_nhdrs == MAX_HEADERS)
			return -431;
		h = &r->req_hdrs[r->req_nhdrs++];
		h->h_name = p;
		h->h_name_len = (size_t)(colon - p);
		h->h_value = v;

		if ((rc = request_field(r, h, v, &conn)) != 0)
			return rc;
	}
	/* request smuggling guards, RFC 9112 6.1 and 6.3 */
	if (r->req_chunked && (r->req_clen >= 0 || r->req_minor == 0))
		return -400;
	if (r->req_minor == 1 && r->req_host == NULL)
		return -400;
	if (r->req_minor == 1)
		r->req_keepalive = !(conn & 1);
	else
		r->req_keepalive = conn == 2;
	return (int)head;
}
