/* request.c - parse a request head in place (RFC 9112).  No I/O here. */
#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

#include "mrhttpd.h"

/* The names of enum method, in its order: no pointers, no relocations. */
static const char methods[][8] = {
	"", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE",
	"CONNECT", "PATCH",
};

/* Methods are case-sensitive (RFC 9110 9.1): "get" is unknown. */
enum method
method_lookup(const char *s, size_t n)
{
	unsigned m;

	/* a name of exactly n bytes: its NUL at n, none before */
	for (m = M_GET; m <= M_PATCH && n - 1 < sizeof(methods[0]) - 1; m++)
		if (methods[m][n] == '\0' && methods[m][n - 1] != '\0' &&
		    memcmp(methods[m], s, n) == 0)
			return (enum method)m;
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
 * Ends the line at p, where a scan stopped: NUL-terminates it over its
 * CR LF or LF and returns the next line.  Any other byte (a bare CR, a
 * NUL, a control) is an error: NULL.
 */
static char *
line_end(char *p)
{
	if (*p == '\n') {
		*p = '\0';
		return p + 1;
	}
	if (*p == '\r' && p[1] == '\n') {
		*p = '\0';
		return p + 2;
	}
	return NULL;
}

/*
 * A Transfer-Encoding field of a request (RFC 9112 6.1): 0 for exactly
 * "chunked", the one coding we decode; -501 for a list with a coding we
 * do not implement ("gzip, chunked" would otherwise have its gzip
 * silently dropped); -400 for a list whose last coding is not chunked,
 * or with chunked twice, as then nothing delimits the body, or with
 * parameters on chunked, which has none (RFC 9112 7.1).
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
		if (last_chunked && it.li_params != NULL)
			return -400;	/* chunked has no parameters */
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

/*
 * Is the field name at p the lower-case name lc, n bytes long?  The name
 * is all tchar (the parser checked): of those, only the letters change
 * with 0x20 set, so this compares without regard to case, and exactly.
 */
static int
name_is(const char *p, const char *lc, size_t n)
{
	while (n-- > 0)
		if ((p[n] | 0x20) != lc[n])
			return 0;
	return 1;
}

/*
 * The options of a Connection field that the server acts on: 1 for close,
 * 2 for keep-alive, in any case, in one pass.  A token with parameters is
 * no option; the list ends at the first item that is no list.  A value
 * holds no controls, so name_is matches these two exactly here too.
 */
static int
conn_options(const char *v)
{
	struct list_item it;
	int found = 0;

	while (list_next(&v, &it)) {
		if (it.li_params == NULL && it.li_len == 5 &&
		    name_is(it.li_name, "close", 5))
			found |= 1;
		if (it.li_params == NULL && it.li_len == 10 &&
		    name_is(it.li_name, "keep-alive", 10))
			found |= 2;
		if (it.li_junk)
			break;
	}
	return found;
}

/*
 * Is [p, p + n) the inside of an IP-literal (RFC 3986 3.2.2): an IPv6
 * address, as inet_pton reads it?  IPvFuture ("[v1.x]") is refused: no
 * such address exists, and a client that sends one gets its 400.
 */
static int
ip_literal(const char *p, size_t n)
{
	char a[INET6_ADDRSTRLEN];
	struct in6_addr in6;

	if (n >= sizeof(a))
		return 0;
	memcpy(a, p, n);
	a[n] = '\0';
	return inet_pton(AF_INET6, a, &in6) == 1;
}

/*
 * Is v a Host value: uri-host [":" port] (RFC 9112 3.2, RFC 3986 3.2.2)?
 * An IP literal in brackets, or a reg-name (or IPv4 address) without
 * brackets or colons and with "%" only before two hex digits, then at
 * most one colon and digits.
 */
static int
host_ok(const char *v)
{
	const char *e = v;

	if (*e == '[') {
		while (*++e != ']')
			if (*e == '[' || !(http_cls[(unsigned char)*e] & C_HOST))
				return 0;	/* the NUL too: no ']' */
		if (!ip_literal(v + 1, (size_t)(e - v - 1)))
			return 0;
		e++;
	} else
		for (; *e != ':' && *e != '[' && *e != ']' &&
		    http_cls[(unsigned char)*e] & C_HOST; e++)
			if (*e == '%' &&	/* pct-encoded: two hex digits */
			    (!(http_cls[(unsigned char)e[1]] & C_HEX) ||
			    !(http_cls[(unsigned char)e[2]] & C_HEX)))
				return 0;
	if (*e == ':')
		while (*++e >= '0' && *e <= '9')
			;
	return *e == '\0';
}

/* The fields the server reads, by length and first letter: one compare
 * for the one name each could be. */
enum hfield {
	F_OTHER, F_HOST, F_RANGE, F_EXPECT, F_REFERER, F_IF_MATCH,
	F_IF_RANGE, F_IF_NONE_MATCH, F_AUTHORIZATION, F_ACCEPT_ENCODING,
	F_IF_UNMODIFIED_SINCE, F_CONNECTION, F_USER_AGENT, F_CONTENT_LENGTH,
	F_IF_MODIFIED_SINCE, F_TRANSFER_ENCODING,
};

static enum hfield
field_of(const char *p, size_t n)
{
	int c = *p | 0x20;

#define F(lit, f)	(name_is(p, lit, n) ? (f) : F_OTHER)
	switch (n) {
	case 4:		return F("host", F_HOST);
	case 5:		return F("range", F_RANGE);
	case 6:		return F("expect", F_EXPECT);
	case 7:		return F("referer", F_REFERER);
	case 8:		return p[3] == 'm' || p[3] == 'M' ?
			    F("if-match", F_IF_MATCH) :
			    F("if-range", F_IF_RANGE);
	case 10:	return c == 'c' ? F("connection", F_CONNECTION) :
			    F("user-agent", F_USER_AGENT);
	case 13:	return c == 'i' ? F("if-none-match", F_IF_NONE_MATCH) :
			    F("authorization", F_AUTHORIZATION);
	case 14:	return F("content-length", F_CONTENT_LENGTH);
	case 15:	return F("accept-encoding", F_ACCEPT_ENCODING);
	case 17:	return c == 'i' ? F("if-modified-since",
			    F_IF_MODIFIED_SINCE) :
			    F("transfer-encoding", F_TRANSFER_ENCODING);
	case 19:	return F("if-unmodified-since", F_IF_UNMODIFIED_SINCE);
	}
	return F_OTHER;
#undef F
}

/*
 * The fields the server itself reads: h is stored in r (its value v,
 * NUL-terminated), and Connection's tokens go to *conn (1 close, 2
 * keep-alive).  Returns 0, or -status for a value to refuse.
 */
static int
request_field(struct request *r, const struct header *h, const char *v,
    int *conn)
{
	long long n;
	int rc;

	switch (field_of(h->h_name, h->h_name_len)) {
	case F_OTHER:
		break;
	case F_HOST:	/* one, uri-host [":" port] (RFC 9112 3.2) */
		if (r->req_host != NULL || !host_ok(v))
			return -400;
		r->req_host = v;
		break;
	case F_RANGE:	/* no list: which would a second mean? */
		if (ENABLE_RANGES && r->req_range != NULL)
			return -400;
		if (ENABLE_RANGES)
			r->req_range = v;
		break;
	case F_EXPECT:
		r->req_expect = v;
		break;
	case F_REFERER:
		r->req_referer = v;
		break;
	case F_IF_MATCH:
		r->req_if_match = v;
		break;
	case F_IF_RANGE:
		if (ENABLE_RANGES)
			r->req_if_range = v;
		break;
	case F_IF_NONE_MATCH:
		r->req_if_none_match = v;
		break;
	case F_AUTHORIZATION:	/* one: which would a second mean? */
		if (r->req_authorization != NULL)
			return -400;
		r->req_authorization = v;
		break;
	case F_ACCEPT_ENCODING:
		r->req_accept_encoding = v;
		break;
	case F_IF_UNMODIFIED_SINCE:
		if (ENABLE_VALIDATORS)
			r->req_if_unmodified_since = v;
		break;
	case F_IF_MODIFIED_SINCE:
		if (ENABLE_VALIDATORS)
			r->req_if_modified_since = v;
		break;
	case F_CONNECTION:
		*conn |= conn_options(v);
		break;
	case F_USER_AGENT:
		r->req_ua = v;
		break;
	case F_CONTENT_LENGTH:
		if (parse_clen(v, &n) != 0 ||
		    (r->req_clen >= 0 && r->req_clen != n))
			return -400;
		r->req_clen = n;
		break;
	case F_TRANSFER_ENCODING:
		if (r->req_chunked)
			return -400;	/* a second field */
		if ((rc = te_check(v)) != 0)
			return rc;
		r->req_chunked = 1;
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

/*
 * An absolute-form target (RFC 9112 3.2.2), from t up to the space at
 * end: keeps only the path and query.  Returns 1 when the target is now
 * the path (its query still to be split off), 0 when there was no path
 * ("/" and the query are set), or -400 for no authority.
 */
static int
absolute_form(struct request *r, const char *t, const char *end)
{
	const char *host = t + (t[4] == ':' ? 7 : 8), *s;

	for (s = host; s < end && *s != '/' && *s != '?'; s++)
		;
	if (s == host)
		return -400;	/* no authority */
	if (s == end || *s == '?') {
		/* no path: "http://h" or "http://h?q" means "/"; the request
		 * line stays intact for the log */
		r->req_target = "/";
		r->req_target_len = r->req_path_len = 1;
		r->req_query = s < end ? s + 1 : NULL;
		r->req_query_len = s < end ? (size_t)(end - s - 1) : 0;
		return 0;
	}
	r->req_target = s;
	r->req_target_len = (size_t)(end - s);
	return 1;
}

/*
 * Parses the request line at p, up to its end.  Returns the next line, or
 * NULL with *rc the status to refuse it with.
 */
static char *
parse_request_line(struct request *r, char *p, int *rc)
{
	char *t, *v;
	const char *q;
	size_t n;

	*rc = -400;
	for (t = p; http_cls[(unsigned char)*t] & C_TCHAR; t++)
		;
	if (t == p || *t != ' ')
		return NULL;
	r->req_method_len = (size_t)(t - p);
	r->req_method = method_lookup(p, r->req_method_len);

	/* request-target: visible ASCII and obs-text, no controls or spaces */
	for (v = ++t; http_cls[(unsigned char)*v] & C_TARGET; v++)
		;
	if (v == t || *v != ' ')
		return NULL;
	n = (size_t)(v - t);
	r->req_target = t;
	r->req_target_len = n;
	if (*t != '/') {
		if ((n > 7 && strncasecmp(t, "http://", 7) == 0) ||
		    (n > 8 && strncasecmp(t, "https://", 8) == 0)) {
			switch (absolute_form(r, t, v)) {
			case -400:
				return NULL;
			case 0:
				goto version;
			}
		} else if (!((n == 1 && *t == '*') || r->req_method == M_CONNECT))
			return NULL;
	}
	r->req_path_len = r->req_target_len;
	if ((q = memchr(r->req_target, '?', r->req_target_len)) != NULL) {
		r->req_path_len = (size_t)(q - r->req_target);
		r->req_query = q + 1;
		r->req_query_len = r->req_target_len - r->req_path_len - 1;
	}

	/* HTTP-version = "HTTP/" DIGIT "." DIGIT, then the end of the line;
	 * each compare stops at the first byte that differs, at the latest
	 * at the LF that ends the head */
 version:
	v++;
	if (v[0] != 'H' || v[1] != 'T' || v[2] != 'T' || v[3] != 'P' ||
	    v[4] != '/' || v[5] < '0' || v[5] > '9' || v[6] != '.' ||
	    v[7] < '0' || v[7] > '9' || (t = line_end(v + 8)) == NULL)
		return NULL;
	*rc = -505;
	if (v[5] != '1' || v[7] > '1')
		return NULL;
	r->req_minor = v[7] - '0';
	return t;
}

/*
 * Parses the field line at p (RFC 9112 5), stores it, and returns the next
 * line; or NULL, with *rc the status.
 */
static char *
parse_field(struct request *r, char *p, int *conn, int *rc)
{
	struct header *h;
	char *colon, *v, *e, *next;

	*rc = -400;
	for (colon = p; http_cls[(unsigned char)*colon] & C_TCHAR; colon++)
		;
	/* no name (obs-fold starts with a space), or space before ':' */
	if (colon == p || *colon != ':')
		return NULL;
	for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
		;
	for (e = v; http_cls[(unsigned char)*e] & C_VALUE; e++)
		;
	if ((next = line_end(e)) == NULL)
		return NULL;
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	*rc = -431;
	if (r->req_nhdrs == MAX_HEADERS)
		return NULL;
	h = &r->req_hdrs[r->req_nhdrs++];
	h->h_name = p;
	h->h_name_len = (size_t)(colon - p);
	h->h_value = v;
	return (*rc = request_field(r, h, v, conn)) != 0 ? NULL : next;
}

/* Does buf[from..len) end with an empty line (LF LF, or LF CR LF)? */
static int
ends_blank(const char *buf, size_t from, size_t len)
{
	return len - from >= 2 && buf[len - 1] == '\n' &&
	    (buf[len - 2] == '\n' ||
	    (len - from >= 3 && buf[len - 2] == '\r' && buf[len - 3] == '\n'));
}

size_t
request_skip_empty(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len)
		if (buf[i] == '\n')
			i++;
		else if (buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n')
			i += 2;
		else
			break;
	return i;
}

int
request_parse(struct request *r, char *buf, size_t len, size_t *scanned)
{
	char *p;
	/* a request line starts with a letter: no call for that */
	size_t skip = len > 0 && buf[0] > '\r' ? 0 :
	    request_skip_empty(buf, len);
	int rc, conn = 0;

	if (*scanned < skip)
		*scanned = skip;
	/* a head that came whole (the usual case) ends the buffer; else it
	 * is looked for, from where the last look stopped */
	if (!ends_blank(buf, skip, len) && head_end(buf, len, scanned) == 0)
		return 0;

	/*
	 * An empty line ends what follows: every scan below stops at its LF
	 * at the latest, and every byte is checked against what may stand
	 * there, so a NUL or a bare CR is refused wherever it is.
	 */
	memset(r, 0, offsetof(struct request, req_hdrs));
	r->req_clen = -1;
	r->req_line = p = buf + skip;
	if ((p = parse_request_line(r, p, &rc)) == NULL)
		return rc;
	while (*p != '\n' && !(*p == '\r' && p[1] == '\n'))
		if ((p = parse_field(r, p, &conn, &rc)) == NULL)
			return rc;
	/* request smuggling guards, RFC 9112 6.1 and 6.3 */
	if (r->req_chunked && (r->req_clen >= 0 || r->req_minor == 0))
		return -400;
	if (r->req_minor == 1 && r->req_host == NULL)
		return -400;
	if (r->req_minor == 1)
		r->req_keepalive = !(conn & 1);
	else
		r->req_keepalive = conn == 2;
	return (int)(p + (*p == '\r' ? 2 : 1) - buf);
}

/* The value of r's first field named name (n bytes, any case), or NULL:
 * for the fields the parser does not keep by themselves. */
const char *
request_find(const struct request *r, const char *name, size_t n)
{
	int i;

	for (i = 0; i < r->req_nhdrs; i++)
		if (r->req_hdrs[i].h_name_len == n &&
		    strncasecmp(r->req_hdrs[i].h_name, name, n) == 0)
			return r->req_hdrs[i].h_value;
	return NULL;
}
