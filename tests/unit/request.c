/*
 * request.c - unit tests for request_parse() and method_lookup().
 *
 * Each table row is one request head and what the parser must make of it.
 * Every row is parsed three ways: whole, one byte at a time (a fresh,
 * exactly sized buffer per call, so reading past len is caught under ASan,
 * and *scanned must resume), and split once at every offset.
 */
#include "../../src/request.c"
#include "../../src/util.c"

#include <stdlib.h>

#include "tap.h"

/* S("bytes"): a literal and its length, so rows may contain NULs. */
#define S(s)		s, sizeof(s) - 1
/* G(name, bytes), B(name, bytes): a row's line, name and input. */
#define G(n, s)		__LINE__, n, S(s)
#define B(n, s)		__LINE__, n, S(s)

#define HOST		"Host: a\r\n"
#define GET11		"GET / HTTP/1.1\r\n"

enum {
	ALL = 0,		/* expected head length: the whole input */
	NOLEN = -1,		/* no Content-Length */
	CLOSE = 0, KEEP = 1,
};

/* A request that parses: the head length and every field it sets. */
struct good {
	int		 line;
	const char	*name;
	const char	*in;
	size_t		 inlen;
	int		 rc;		/* ALL, or the head length */
	enum method	 method;
	const char	*target;	/* with the query */
	const char	*path;		/* up to '?' */
	const char	*query;		/* NULL: no '?' */
	int		 minor;
	int		 keepalive;
	long long	 clen;
	int		 chunked;
	const char	*host;		/* NULL: no Host header */
};

#define PIPE1	"GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
#define BODY1	"POST /f HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n"
#define BODY2	"PUT /f HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n"

static const struct good good[] = {
	/* methods and versions */
	{ G("GET 1.1", GET11 HOST "\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("HEAD 1.1", "HEAD /index.html HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_HEAD, "/index.html", "/index.html", NULL, 1, KEEP, NOLEN, 0,
	  "a" },
	{ G("GET 1.0 without Host", "GET / HTTP/1.0\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, CLOSE, NOLEN, 0, NULL },
	{ G("HEAD 1.0 with Host", "HEAD /x HTTP/1.0\r\nHost: h.example\r\n\r\n"),
	  ALL, M_HEAD, "/x", "/x", NULL, 0, CLOSE, NOLEN, 0, "h.example" },
	{ G("POST", "POST /p HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_POST, "/p", "/p", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("DELETE", "DELETE /p HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_DELETE, "/p", "/p", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("lower-case method parses, unknown", "get / HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_UNKNOWN, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("unknown method", "BREW /pot HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_UNKNOWN, "/pot", "/pot", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("method of odd tchars", "X-M.1!~ / HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_UNKNOWN, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("GETX is not GET", "GETX / HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_UNKNOWN, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },

	/* targets */
	{ G("query", "GET /a/b?x=1&y=2 HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_GET, "/a/b?x=1&y=2", "/a/b", "x=1&y=2", 1, KEEP, NOLEN, 0,
	  "a" },
	{ G("empty query", "GET /a? HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_GET, "/a?", "/a", "", 1, KEEP, NOLEN, 0, "a" },
	{ G("second '?' is in the query", "GET /a?b?c HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_GET, "/a?b?c", "/a", "b?c", 1, KEEP, NOLEN, 0, "a" },
	{ G("percent escapes stay encoded", "GET /a%20b HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_GET, "/a%20b", "/a%20b", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("obs-text in target", "GET /caf\xc3\xa9 HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_GET, "/caf\xc3\xa9", "/caf\xc3\xa9", NULL, 1, KEEP, NOLEN, 0,
	  "a" },
	{ G("absolute-form", "GET http://example.com/p?q HTTP/1.1\r\n"
	    "Host: example.com\r\n\r\n"),
	  ALL, M_GET, "/p?q", "/p", "q", 1, KEEP, NOLEN, 0, "example.com" },
	{ G("absolute-form with port", "GET http://h:8080/x/y HTTP/1.1\r\n"
	    "Host: h:8080\r\n\r\n"),
	  ALL, M_GET, "/x/y", "/x/y", NULL, 1, KEEP, NOLEN, 0, "h:8080" },
	{ G("absolute-form https, upper-case scheme",
	    "GET HTTPS://h/x HTTP/1.1\r\nHost: h\r\n\r\n"),
	  ALL, M_GET, "/x", "/x", NULL, 1, KEEP, NOLEN, 0, "h" },
	{ G("absolute-form without path", "GET http://example.com HTTP/1.1\r\n"
	    "Host: example.com\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "example.com" },
	/* the target is "/" alone here: the query stays in the intact line */
	{ G("absolute-form without path, with query",
	    "GET http://example.com?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n"),
	  ALL, M_GET, "/", "/", "q=1", 1, KEEP, NOLEN, 0, "example.com" },
	{ G("absolute-form in 1.0", "GET http://h/ HTTP/1.0\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, CLOSE, NOLEN, 0, NULL },
	{ G("asterisk-form", "OPTIONS * HTTP/1.1\r\n" HOST "\r\n"),
	  ALL, M_OPTIONS, "*", "*", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("authority-form", "CONNECT h.example:443 HTTP/1.1\r\n"
	    "Host: h.example:443\r\n\r\n"),
	  ALL, M_CONNECT, "h.example:443", "h.example:443", NULL, 1, KEEP,
	  NOLEN, 0, "h.example:443" },

	/* line endings, empty lines, what follows the head */
	{ G("bare LF line endings", "GET / HTTP/1.1\nHost: a\n\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("mixed line endings", "GET / HTTP/1.1\r\nHost: a\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("bare LF, 1.0, no headers", "GET /x HTTP/1.0\n\n"),
	  ALL, M_GET, "/x", "/x", NULL, 0, CLOSE, NOLEN, 0, NULL },
	{ G("leading CRLF ignored", "\r\n" GET11 HOST "\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("leading CRLF CRLF LF ignored", "\r\n\r\n\nGET / HTTP/1.0\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, CLOSE, NOLEN, 0, NULL },
	{ G("leading LF CRLF LF ignored", "\n\r\n\nGET / HTTP/1.0\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, CLOSE, NOLEN, 0, NULL },
	{ G("pipelined request not in the head", PIPE1 PIPE1),
	  sizeof(PIPE1) - 1, M_GET, "/1", "/1", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("partial next request not in the head", PIPE1 "GET /2 HT"),
	  sizeof(PIPE1) - 1, M_GET, "/1", "/1", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("body not in the head", BODY1 "hello"),
	  sizeof(BODY1) - 1, M_POST, "/f", "/f", NULL, 1, KEEP, 5, 0, "a" },
	{ G("NUL and CR in the body are not the parser's business",
	    BODY2 "\0\r\n"),
	  sizeof(BODY2) - 1, M_PUT, "/f", "/f", NULL, 1, KEEP, 3, 0, "a" },

	/* the fields the server reads, known by name in any case, and only
	 * by their name: the letters fold, nothing else does */
	{ G("field names in any case", "GET / HTTP/1.1\r\nhOsT: a\r\n"
	    "CONNECTION: close\r\ncontent-LENGTH: 5\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, CLOSE, 5, 0, "a" },
	{ G("a name one letter off Host", "GET / HTTP/1.0\r\nHosu: a\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, CLOSE, NOLEN, 0, NULL },
	{ G("'^' is no 's'", "GET / HTTP/1.0\r\nHo^t: a\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, CLOSE, NOLEN, 0, NULL },
	{ G("'_' is no '-'", "GET / HTTP/1.1\r\nHost: a\r\n"
	    "Content_Length: 5\r\nConnection_: close\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("If-Range and If-Match, same length", "GET / HTTP/1.1\r\n"
	    "if-range: x\r\nIF-MATCH: y\r\nHost: a\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },

	/* keep-alive */
	{ G("1.1 Connection: close", GET11 HOST "Connection: close\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, CLOSE, NOLEN, 0, "a" },
	{ G("1.1 Connection: CLOSE", GET11 HOST "Connection: CLOSE\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, CLOSE, NOLEN, 0, "a" },
	{ G("1.1 Connection: keep-alive", GET11 HOST
	    "Connection: keep-alive\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("1.1 Connection: foo, close", GET11 HOST
	    "Connection: foo, close\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, CLOSE, NOLEN, 0, "a" },
	{ G("1.1 Connection: close,foo", GET11 HOST "Connection: close,foo\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, CLOSE, NOLEN, 0, "a" },
	{ G("1.1 Connection: , ,close ,", GET11 HOST
	    "Connection: , ,close ,\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, CLOSE, NOLEN, 0, "a" },
	{ G("1.1 Connection: closed is not close", GET11 HOST
	    "Connection: closed\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("1.1 Connection: close;x is no close", GET11 HOST
	    "Connection: close;x\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("1.1 Connection: x;y, close", GET11 HOST
	    "Connection: x;y, close\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, CLOSE, NOLEN, 0, "a" },
	{ G("1.1 Connection: close x", GET11 HOST "Connection: close x\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, CLOSE, NOLEN, 0, "a" },
	{ G("1.1 Connection: x close, no list past x", GET11 HOST
	    "Connection: x close\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("1.1 Connection: upgrade", GET11 HOST "Connection: upgrade\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("1.1 two Connection fields", GET11 HOST
	    "Connection: keep-alive\r\nConnection: close\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, CLOSE, NOLEN, 0, "a" },
	{ G("1.0 Connection: keep-alive", "GET / HTTP/1.0\r\n"
	    "Connection: keep-alive\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, KEEP, NOLEN, 0, NULL },
	{ G("1.0 Connection: Keep-Alive", "GET / HTTP/1.0\r\n"
	    "Connection: Keep-Alive\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, KEEP, NOLEN, 0, NULL },
	{ G("1.0 Connection: foo, keep-alive", "GET / HTTP/1.0\r\n"
	    "connection: foo, keep-alive\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, KEEP, NOLEN, 0, NULL },
	{ G("1.0 Connection: keep-alive, close", "GET / HTTP/1.0\r\n"
	    "Connection: keep-alive, close\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, CLOSE, NOLEN, 0, NULL },
	{ G("1.0 Connection: foo", "GET / HTTP/1.0\r\nConnection: foo\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, CLOSE, NOLEN, 0, NULL },

	/* Content-Length and Transfer-Encoding */
	{ G("Content-Length: 0", GET11 HOST "Content-Length: 0\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, 0, 0, "a" },
	{ G("Content-Length with leading zeros", GET11 HOST
	    "Content-Length: 00012\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, 12, 0, "a" },
	{ G("Content-Length ' 1 ' trimmed", GET11 HOST
	    "Content-Length:  1 \r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, 1, 0, "a" },
	{ G("Content-Length tabs trimmed", GET11 HOST
	    "content-length:\t7\t\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, 7, 0, "a" },
	{ G("Content-Length 2^40", GET11 HOST
	    "Content-Length: 1099511627776\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, 1099511627776LL, 0, "a" },
	{ G("Content-Length 2^63 - 1", GET11 HOST
	    "Content-Length: 9223372036854775807\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, 9223372036854775807LL, 0, "a" },
	{ G("Content-Length same value twice", GET11 HOST
	    "Content-Length: 7\r\nContent-Length: 7\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, 7, 0, "a" },
	{ G("Transfer-Encoding: chunked", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: chunked\r\n\r\n"),
	  ALL, M_POST, "/", "/", NULL, 1, KEEP, NOLEN, 1, "a" },
	{ G("Transfer-Encoding: Chunked, OWS", "POST / HTTP/1.1\r\n" HOST
	    "transfer-encoding:  Chunked \r\n\r\n"),
	  ALL, M_POST, "/", "/", NULL, 1, KEEP, NOLEN, 1, "a" },

	/* Host and other fields */
	{ G("host: lower-case name", "GET / HTTP/1.1\r\nhost: a\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("Host value trimmed", "GET / HTTP/1.1\r\nHost: \t h.example \t\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "h.example" },
	{ G("Host without space", "GET / HTTP/1.1\r\nHost:a\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("empty Host value", "GET / HTTP/1.1\r\nHost:\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "" },
	{ G("Host with a port", "GET / HTTP/1.1\r\nHost: h.example:8080\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "h.example:8080" },
	{ G("Host, IPv6 with a port", "GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "[::1]:80" },
	{ G("Host, IPv6", "GET / HTTP/1.1\r\nHost: [fe80::1]\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "[fe80::1]" },
	{ G("Host, an empty port", "GET / HTTP/1.1\r\nHost: h:\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "h:" },
	{ G("Host, IPv4 in IPv6", GET11 "Host: [::ffff:1.2.3.4]:8\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "[::ffff:1.2.3.4]:8" },
	{ G("Host, IPv6 of eight pieces", GET11 "Host: [1:2:3:4:5:6:7:ffff]\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "[1:2:3:4:5:6:7:ffff]" },
	{ G("Host, IPv6 :: for one", GET11 "Host: [1::3:4:5:6:7:8]\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "[1::3:4:5:6:7:8]" },
	{ G("Host, IPv6 ::", GET11 "Host: [::]\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "[::]" },
	{ G("Host, IPv6 ending ::", GET11 "Host: [fe80::]:1\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "[fe80::]:1" },
	{ G("Host, IPv6 with IPv4 of 0 and 255",
	    GET11 "Host: [1:2:3:4:5:6:0.255.10.9]\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "[1:2:3:4:5:6:0.255.10.9]" },
	{ G("Host, percent-encoded", GET11 "Host: a%41b%c3%a4\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a%41b%c3%a4" },
	{ G("Host after other fields", GET11 "Accept: */*\r\nHost: b\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "b" },
	{ G("X-Host is not Host", "GET / HTTP/1.0\r\nX-Host: b\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 0, CLOSE, NOLEN, 0, NULL },
	{ G("obs-text and TAB in a value", GET11 HOST "X: \x80 a\tb \xff\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
	{ G("name of every tchar", GET11 HOST
	    "!#$%&'*+-.^_`|~09AZaz: v\r\n\r\n"),
	  ALL, M_GET, "/", "/", NULL, 1, KEEP, NOLEN, 0, "a" },
};

/* A request head that is refused (-status), or incomplete (0). */
struct bad {
	int		 line;
	const char	*name;
	const char	*in;
	size_t		 inlen;
	int		 rc;
};

static const struct bad bad[] = {
	/* incomplete: 0 */
	{ B("nothing", ""), 0 },
	{ B("only empty lines", "\r\n\r\n\n"), 0 },
	{ B("half a request line", "GET / HT"), 0 },
	{ B("request line only", GET11), 0 },
	{ B("no empty line", GET11 HOST), 0 },
	{ B("empty line's CR only", GET11 HOST "\r"), 0 },
	{ B("bare LF, no empty line", "GET / HTTP/1.1\nHost: a\n"), 0 },

	/* request line */
	/* transfer codings we do not implement: 501 (RFC 9112 6.1), not
	 * a body whose gzip is silently dropped */
	{ B("Transfer-Encoding: gzip, chunked", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: gzip, chunked\r\n\r\n"), -501 },
	{ B("Transfer-Encoding: gzip,chunked", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: gzip,chunked\r\n\r\n"), -501 },
	{ B("Transfer-Encoding: x;p=1, chunked", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: x;p=1, chunked\r\n\r\n"), -501 },
	{ B("Transfer-Encoding: chunked, chunked", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: chunked, chunked\r\n\r\n"), -400 },
	/* RFC 9112 7.1: chunked has no parameters; one that has them is no
	 * framing a front end and we would surely read alike */
	{ B("Transfer-Encoding: chunked;q=1", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: chunked;q=1\r\n\r\n"), -400 },
	{ B("Transfer-Encoding: gzip, chunked ; x", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: gzip, chunked ; x\r\n\r\n"), -400 },
	{ B("Transfer-Encoding: chunked, gzip", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: chunked, gzip\r\n\r\n"), -400 },
	{ B("Transfer-Encoding: gzip", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: gzip\r\n\r\n"), -400 },
	{ B("Transfer-Encoding empty", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: \r\n\r\n"), -400 },
	{ B("Transfer-Encoding: chunked xyz", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: chunked xyz\r\n\r\n"), -400 },
	{ B("Transfer-Encoding: ;p, chunked", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: ;p, chunked\r\n\r\n"), -400 },

	{ B("no SP at all", "GET\r\n\r\n"), -400 },
	{ B("no SP after method", "GET/ HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("no SP before version", "GET /HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("two SPs after method", "GET  / HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("two SPs before version", "GET /  HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("TAB for SP", "GET\t/ HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("empty method", " / HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("leading SP after empty line", "\r\n GET / HTTP/1.1\r\n" HOST "\r\n"),
	  -400 },
	/* RFC 9112 2.2: a bare CR is no empty line */
	{ B("bare CR before the request line", "\rGET / HTTP/1.1\r\n" HOST "\r\n"),
	  -400 },
	{ B("CR CR LF before the request line", "\r\r\nGET / HTTP/1.1\r\n" HOST
	  "\r\n"), -400 },
	{ B("bare CR after an empty line", "\r\n\rGET / HTTP/1.1\r\n" HOST "\r\n"),
	  -400 },
	{ B("non-tchar in method", "G(T / HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("'@' in method", "GE@T / HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("obs-text in method", "G\xc9T / HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("empty target", "GET  HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("CTL in target", "GET /a\x01" "b HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("ESC in target", "GET /a\x1b HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("DEL in target", "GET /a\x7f HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("TAB in target", "GET /a\tb HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("relative target", "GET a/b HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("'*' with more", "OPTIONS *x HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("absolute-form without authority",
	    "GET http:///x HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("absolute-form scheme only", "GET http:// HTTP/1.1\r\n" HOST "\r\n"),
	  -400 },
	{ B("absolute-form other scheme", "GET ftp://h/x HTTP/1.1\r\n" HOST "\r\n"),
	  -400 },
	{ B("missing version", "GET /\r\n" HOST "\r\n"), -400 },
	{ B("missing version after SP", "GET / \r\n" HOST "\r\n"), -400 },
	{ B("HTTP/1", "GET / HTTP/1\r\n" HOST "\r\n"), -400 },
	{ B("HTTP/1.", "GET / HTTP/1.\r\n" HOST "\r\n"), -400 },
	{ B("HTTP/", "GET / HTTP/\r\n" HOST "\r\n"), -400 },
	{ B("HTTX/1.1", "GET / HTTX/1.1\r\n" HOST "\r\n"), -400 },
	{ B("http/1.1 (case-sensitive)", "GET / http/1.1\r\n" HOST "\r\n"), -400 },
	{ B("HTTP/1.10", "GET / HTTP/1.10\r\n" HOST "\r\n"), -400 },
	{ B("HTTP/11", "GET / HTTP/11\r\n" HOST "\r\n"), -400 },
	{ B("HTTP/1.x", "GET / HTTP/1.x\r\n" HOST "\r\n"), -400 },
	{ B("HTTP/1.1 and SP", "GET / HTTP/1.1 \r\n" HOST "\r\n"), -400 },
	{ B("HTTP/1.1 and more", "GET / HTTP/1.1x\r\n" HOST "\r\n"), -400 },
	{ B("HTTP/2.0", "GET / HTTP/2.0\r\n" HOST "\r\n"), -505 },
	{ B("HTTP/1.2", "GET / HTTP/1.2\r\n" HOST "\r\n"), -505 },
	{ B("HTTP/0.9", "GET / HTTP/0.9\r\n" HOST "\r\n"), -505 },
	{ B("HTTP/3.0", "GET / HTTP/3.0\r\n" HOST "\r\n"), -505 },
	{ B("HTTP/9.9", "GET / HTTP/9.9\r\n\r\n"), -505 },

	/* field lines */
	{ B("field without colon", GET11 HOST "Accept */*\r\n\r\n"), -400 },
	{ B("field name only", GET11 HOST "X\r\n\r\n"), -400 },
	{ B("SP before colon", GET11 "Host : a\r\n\r\n"), -400 },
	{ B("TAB before colon", GET11 HOST "X\t: a\r\n\r\n"), -400 },
	{ B("empty name", GET11 HOST ": a\r\n\r\n"), -400 },
	{ B("SP in name", GET11 HOST "X Y: a\r\n\r\n"), -400 },
	{ B("non-tchar in name", GET11 HOST "X(Y): a\r\n\r\n"), -400 },
	{ B("obs-fold SP", GET11 HOST "X: a\r\n b\r\n\r\n"), -400 },
	{ B("obs-fold TAB", GET11 HOST "X: a\r\n\tb\r\n\r\n"), -400 },
	{ B("SP before first field", GET11 " Host: a\r\n\r\n"), -400 },
	{ B("bare CR ending the request line", "GET / HTTP/1.1\r" HOST "\r\n"),
	  -400 },
	{ B("bare CR in a value", GET11 HOST "X: a\rb\r\n\r\n"), -400 },
	{ B("CR CR LF", GET11 HOST "X: a\r\r\n\r\n"), -400 },
	{ B("bare CR in a name", GET11 HOST "X\rY: a\r\n\r\n"), -400 },
	{ B("bare CR starting a field line", GET11 HOST "\rX: a\r\n\r\n"), -400 },
	{ B("bare CR starting a field line, 1.0",
	    "GET / HTTP/1.0\r\n\rX: a\r\n\r\n"), -400 },
	{ B("CR CR LF as the empty line", GET11 HOST "\r\r\n\r\n"), -400 },
	{ B("NUL first", "\0GET / HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("NUL in an empty line before", "\r\n\0\r\nGET / HTTP/1.0\r\n\r\n"),
	  -400 },
	{ B("NUL in method", "G\0T / HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("NUL in target", "GET /a\0b HTTP/1.1\r\n" HOST "\r\n"), -400 },
	{ B("NUL in version", "GET / HTTP/1.1\0\r\n" HOST "\r\n"), -400 },
	{ B("NUL in name", GET11 HOST "X\0Y: a\r\n\r\n"), -400 },
	{ B("NUL in value", GET11 HOST "X: a\0b\r\n\r\n"), -400 },
	{ B("NUL ending a value", GET11 "Host: a\0\r\n\r\n"), -400 },
	{ B("NUL for CR", GET11 HOST "X: a\0\n\r\n"), -400 },
	{ B("NUL in the empty line", GET11 HOST "\0\r\n\r\n"), -400 },
	{ B("SOH in value", GET11 HOST "X: a\x01\r\n\r\n"), -400 },
	{ B("ESC in value", GET11 HOST "X: \x1b[0m\r\n\r\n"), -400 },
	{ B("VT in value", GET11 HOST "X: a\x0b" "b\r\n\r\n"), -400 },
	{ B("FF in value", GET11 HOST "X: a\x0c\r\n\r\n"), -400 },
	{ B("DEL in value", GET11 HOST "X: a\x7f\r\n\r\n"), -400 },
	{ B("DEL in name", GET11 HOST "X\x7f: a\r\n\r\n"), -400 },

	/* Host */
	{ B("1.1 without Host", GET11 "\r\n"), -400 },
	{ B("1.1 without Host, other fields", GET11 "Accept: */*\r\n\r\n"),
	  -400 },
	{ B("duplicate Host", GET11 HOST HOST "\r\n"), -400 },
	{ B("duplicate Host, other values", GET11 "Host: a\r\nhost: b\r\n\r\n"),
	  -400 },
	{ B("duplicate Host in 1.0", "GET / HTTP/1.0\r\n" HOST HOST "\r\n"),
	  -400 },
	/* Host = uri-host [ ":" port ] (RFC 9112 3.2, RFC 3986 3.2.2): an
	 * invalid value is a 400 (a MUST), not only a wrong character */
	{ B("Host a:b:c", GET11 "Host: a:b:c\r\n\r\n"), -400 },
	{ B("Host a:80:80", GET11 "Host: a:80:80\r\n\r\n"), -400 },
	{ B("Host a:8x", GET11 "Host: a:8x\r\n\r\n"), -400 },
	{ B("Host [::1]x", GET11 "Host: [::1]x\r\n\r\n"), -400 },
	{ B("Host [::1", GET11 "Host: [::1\r\n\r\n"), -400 },
	{ B("Host a]b", GET11 "Host: a]b\r\n\r\n"), -400 },
	{ B("Host a[b]", GET11 "Host: a[b]\r\n\r\n"), -400 },
	{ B("Host [a[b]]", GET11 "Host: [a[b]]\r\n\r\n"), -400 },
	{ B("Host []", GET11 "Host: []\r\n\r\n"), -400 },
	{ B("Host [!]", GET11 "Host: [!]\r\n\r\n"), -400 },
	{ B("Host [1.2.3.4]", GET11 "Host: [1.2.3.4]\r\n\r\n"), -400 },
	{ B("Host [::1::2]", GET11 "Host: [::1::2]\r\n\r\n"), -400 },
	{ B("Host [v1]", GET11 "Host: [v1]\r\n\r\n"), -400 },
	{ B("Host [1:2:3:4:5:6:7:8:9]", GET11 "Host: [1:2:3:4:5:6:7:8:9]\r\n\r\n"),
	  -400 },
	{ B("Host [1:2:3:4:5:6:7]", GET11 "Host: [1:2:3:4:5:6:7]\r\n\r\n"),
	  -400 },
	{ B("Host [1::2:3:4:5:6:7:8]", GET11 "Host: [1::2:3:4:5:6:7:8]\r\n\r\n"),
	  -400 },
	{ B("Host [12345::]", GET11 "Host: [12345::]\r\n\r\n"), -400 },
	{ B("Host [:1]", GET11 "Host: [:1]\r\n\r\n"), -400 },
	{ B("Host [1:]", GET11 "Host: [1:]\r\n\r\n"), -400 },
	{ B("Host [1:::2]", GET11 "Host: [1:::2]\r\n\r\n"), -400 },
	{ B("Host [::1.2.3.256]", GET11 "Host: [::1.2.3.256]\r\n\r\n"), -400 },
	{ B("Host [::01.2.3.4]", GET11 "Host: [::01.2.3.4]\r\n\r\n"), -400 },
	{ B("Host [::1.2.3]", GET11 "Host: [::1.2.3]\r\n\r\n"), -400 },
	{ B("Host [::1.2.3.4.5]", GET11 "Host: [::1.2.3.4.5]\r\n\r\n"), -400 },
	{ B("Host [1.2.3.4::]", GET11 "Host: [1.2.3.4::]\r\n\r\n"), -400 },
	{ B("Host [1:2:3:4:5:6:7:1.2.3.4]",
	    GET11 "Host: [1:2:3:4:5:6:7:1.2.3.4]\r\n\r\n"), -400 },
	{ B("Host [vx.a]", GET11 "Host: [vx.a]\r\n\r\n"), -400 },
	/* IPvFuture is the grammar's, but no such address exists: refused */
	{ B("Host [v1f.a:b]", GET11 "Host: [v1f.a:b]\r\n\r\n"), -400 },
	{ B("Host a%zz", GET11 "Host: a%zz\r\n\r\n"), -400 },
	{ B("Host a%4", GET11 "Host: a%4\r\n\r\n"), -400 },
	{ B("Host %", GET11 "Host: %\r\n\r\n"), -400 },

	/* Content-Length */
	{ B("Content-Length abc", GET11 HOST "Content-Length: abc\r\n\r\n"),
	  -400 },
	{ B("Content-Length -1", GET11 HOST "Content-Length: -1\r\n\r\n"), -400 },
	{ B("Content-Length +1", GET11 HOST "Content-Length: +1\r\n\r\n"), -400 },
	{ B("Content-Length empty", GET11 HOST "Content-Length:\r\n\r\n"), -400 },
	{ B("Content-Length OWS only", GET11 HOST "Content-Length:  \r\n\r\n"),
	  -400 },
	{ B("Content-Length 1 2", GET11 HOST "Content-Length: 1 2\r\n\r\n"),
	  -400 },
	{ B("Content-Length 1.0", GET11 HOST "Content-Length: 1.0\r\n\r\n"),
	  -400 },
	{ B("Content-Length 0x10", GET11 HOST "Content-Length: 0x10\r\n\r\n"),
	  -400 },
	{ B("Content-Length 5x", GET11 HOST "Content-Length: 5x\r\n\r\n"), -400 },
	{ B("Content-Length 2^63", GET11 HOST
	    "Content-Length: 9223372036854775808\r\n\r\n"), -400 },
	{ B("Content-Length 2^64", GET11 HOST
	    "Content-Length: 18446744073709551616\r\n\r\n"), -400 },
	{ B("Content-Length huge", GET11 HOST
	    "Content-Length: 99999999999999999999999999999999\r\n\r\n"), -400 },
	{ B("Content-Length twice, different", GET11 HOST
	    "Content-Length: 5\r\nContent-Length: 6\r\n\r\n"), -400 },
	{ B("Content-Length twice, second bad", GET11 HOST
	    "Content-Length: 5\r\nContent-Length: x\r\n\r\n"), -400 },

	/* Transfer-Encoding */
	{ B("CL then TE", "POST / HTTP/1.1\r\n" HOST "Content-Length: 3\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n"), -400 },
	{ B("TE then CL", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"), -400 },
	{ B("TE: gzip", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: gzip\r\n\r\n"), -400 },
	{ B("TE: chunked, gzip", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: chunked, gzip\r\n\r\n"), -400 },
	{ B("TE: identity", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: identity\r\n\r\n"), -400 },
	{ B("TE: xchunked", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: xchunked\r\n\r\n"), -400 },
	{ B("TE empty", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding:\r\n\r\n"), -400 },
	{ B("TE chunked twice", "POST / HTTP/1.1\r\n" HOST
	    "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
	  -400 },
	{ B("TE in 1.0", "POST / HTTP/1.0\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n"), -400 },
};

/* One header field and the name and value it must yield. */
static const struct field {
	int		 line;
	const char	*name;
	const char	*in;		/* the field line, CRLF included */
	size_t		 inlen;
	const char	*want_name;
	const char	*want_value;
} fields[] = {
	{ B("no OWS", "X:v\r\n"), "X", "v" },
	{ B("SP", "X: v\r\n"), "X", "v" },
	{ B("OWS both sides", "X-Long:  \t v \t \r\n"), "X-Long", "v" },
	{ B("inner spaces kept", "Accept: a b,  c\r\n"), "Accept", "a b,  c" },
	{ B("inner TAB kept", "X: a \t b \r\n"), "X", "a \t b" },
	{ B("empty", "X:\r\n"), "X", "" },
	{ B("OWS only", "X: \t \r\n"), "X", "" },
	{ B("bare LF", "X:  v  \n"), "X", "v" },
	{ B("colon in value", "X: a:b: \r\n"), "X", "a:b:" },
	{ B("case kept", "x-Foo: BaR\r\n"), "x-Foo", "BaR" },
};

/* Returns a copy of in[0..n) in a buffer of exactly n bytes (1 when n is 0). */
static char *
dup_mem(const char *in, size_t n)
{
	char *p = tap_alloc(n);

	memcpy(p, in, n);
	return p;
}

/* Returns a copy of buf[0..n-1) with in[n-1] appended, n bytes in all. */
static char *
grow_by_one(const char *buf, const char *in, size_t n)
{
	char *p = tap_alloc(n);

	memcpy(p, buf, n - 1);
	p[n - 1] = in[n - 1];
	return p;
}

/* The request line of in[0..n): after leading empty lines (LF, CR LF),
 * up to CR or LF. */
static void
first_line(const char *in, size_t n, const char **start, size_t *len)
{
	size_t i = 0, j;

	while (i < n && (in[i] == '\n' ||
	    (in[i] == '\r' && i + 1 < n && in[i + 1] == '\n')))
		i += in[i] == '\n' ? 1 : 2;
	for (j = i; j < n && in[j] != '\r' && in[j] != '\n'; j++)
		;
	*start = in + i;
	*len = j - i;
}

/* Parses a copy of in[0..n) in one call; *bufp gets the copy to free. */
static int
parse_whole(struct request *r, const char *in, size_t n, char **bufp)
{
	size_t scanned = 0;

	*bufp = dup_mem(in, n);
	return request_parse(r, *bufp, n, &scanned);
}

/*
 * Feeds in[0..n) one byte per call, each time into a new buffer of exactly
 * the bytes received so far, carrying over whatever the parser left in the
 * old one.  Returns the first non-zero result, or 0; *at gets the bytes fed
 * by then, *touched whether a call that returned 0 changed the buffer.
 */
static int
parse_bytewise(struct request *r, const char *in, size_t n, char **bufp,
    size_t *at, int *touched)
{
	size_t k = 0, scanned = 0;
	char *buf, *nbuf;
	int rc;

	*touched = 0;
	buf = dup_mem(in, 0);
	rc = request_parse(r, buf, 0, &scanned);
	while (rc == 0 && k < n) {
		k++;
		nbuf = grow_by_one(buf, in, k);
		free(buf);
		buf = nbuf;
		rc = request_parse(r, buf, k, &scanned);
		if (rc == 0 && memcmp(buf, in, k) != 0)
			*touched = 1;
	}
	*bufp = buf;
	*at = k;
	return rc;
}

/*
 * Parses in[0..s) and then, resuming, all of in[0..n), for every split s.
 * Returns the first s where the outcome is not want (a head of want bytes
 * must be reported by the first call exactly when s >= want), or 0.
 */
static size_t
parse_splits(const char *in, size_t n, int want)
{
	struct request r;
	size_t s, scanned;
	char *buf;
	int rc1, rc2;

	for (s = 1; s < n; s++) {
		scanned = 0;
		buf = dup_mem(in, n);
		rc1 = request_parse(&r, buf, s, &scanned);
		rc2 = rc1 == 0 ? request_parse(&r, buf, n, &scanned) : rc1;
		free(buf);
		if (rc2 != want)
			return s;
		if (want > 0 && (rc1 != 0) != (s >= (size_t)want))
			return s;
	}
	return 0;
}

/* Checks every field of r against row g; how names the way it was parsed. */
static void
check_good(const struct good *g, const struct request *r, const char *how)
{
	const char *line, *sp;
	size_t linelen;
	char want[512];

	first_line(g->in, g->inlen, &line, &linelen);
	if (linelen >= sizeof(want))
		linelen = sizeof(want) - 1;
	memcpy(want, line, linelen);
	want[linelen] = '\0';
	sp = memchr(want, ' ', linelen);

	is_int(r->req_method, g->method, "%s (%s): method", g->name, how);
	is_int(r->req_method_len, sp == NULL ? 0 : sp - want,
	    "%s (%s): method length", g->name, how);
	is_str(r->req_line, want, "%s (%s): request line intact", g->name, how);
	is_mem(r->req_target, r->req_target_len, g->target,
	    "%s (%s): target", g->name, how);
	is_mem(r->req_target, r->req_path_len, g->path,
	    "%s (%s): path", g->name, how);
	is_mem(r->req_query, r->req_query_len, g->query,
	    "%s (%s): query", g->name, how);
	is_int(r->req_minor, g->minor, "%s (%s): minor", g->name, how);
	is_int(r->req_keepalive, g->keepalive, "%s (%s): keep-alive",
	    g->name, how);
	is_int(r->req_clen, g->clen, "%s (%s): content length", g->name, how);
	is_int(r->req_chunked, g->chunked, "%s (%s): chunked", g->name, how);
	is_str(r->req_host, g->host, "%s (%s): host", g->name, how);
}

static void
test_good(struct request *r)
{
	const struct good *g;
	size_t i, at, split;
	int rc, want, touched;
	char *buf;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		g = &good[i];
		tap_row(g->line);
		want = g->rc == ALL ? (int)g->inlen : g->rc;

		rc = parse_whole(r, g->in, g->inlen, &buf);
		if (is_int(rc, want, "%s: head length", g->name))
			check_good(g, r, "whole");
		free(buf);

		rc = parse_bytewise(r, g->in, g->inlen, &buf, &at, &touched);
		is_int(rc, want, "%s (bytewise): head length", g->name);
		is_int(at, want, "%s (bytewise): complete at its last byte",
		    g->name);
		ok(!touched, "%s (bytewise): buffer untouched while incomplete",
		    g->name);
		if (rc == want)
			check_good(g, r, "bytewise");
		free(buf);

		split = parse_splits(g->in, g->inlen, want);
		is_int(split, 0, "%s: same result split at any offset", g->name);
	}
	tap_row(0);
}

static void
test_bad(struct request *r)
{
	const struct bad *b;
	size_t i, at;
	int rc, touched;
	char *buf;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = &bad[i];
		tap_row(b->line);

		rc = parse_whole(r, b->in, b->inlen, &buf);
		is_int(rc, b->rc, "%s", b->name);
		free(buf);

		rc = parse_bytewise(r, b->in, b->inlen, &buf, &at, &touched);
		is_int(rc, b->rc, "%s (bytewise)", b->name);
		ok(!touched, "%s (bytewise): buffer untouched while incomplete",
		    b->name);
		free(buf);

		is_int(parse_splits(b->in, b->inlen, b->rc), 0,
		    "%s: same result split at any offset", b->name);
	}
	tap_row(0);
}

/* Value trimming and the header array, one field after Host. */
static void
test_fields(struct request *r)
{
	const struct field *f;
	char in[256], *buf;
	size_t i, n;
	int rc;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		f = &fields[i];
		tap_row(f->line);
		n = 0;
		memcpy(in + n, GET11 HOST, sizeof(GET11 HOST) - 1);
		n += sizeof(GET11 HOST) - 1;
		memcpy(in + n, f->in, f->inlen);
		n += f->inlen;
		memcpy(in + n, "\r\n", 2);
		n += 2;

		rc = parse_whole(r, in, n, &buf);
		if (is_int(rc, n, "field %s: parses", f->name) &&
		    is_int(r->req_nhdrs, 2, "field %s: two fields", f->name)) {
			is_mem(r->req_hdrs[0].h_name, r->req_hdrs[0].h_name_len,
			    "Host", "field %s: first name", f->name);
			is_str(r->req_hdrs[0].h_value, "a",
			    "field %s: first value", f->name);
			is_mem(r->req_hdrs[1].h_name, r->req_hdrs[1].h_name_len,
			    f->want_name, "field %s: name", f->name);
			is_str(r->req_hdrs[1].h_value, f->want_value,
			    "field %s: value", f->name);
		}
		free(buf);
	}
	tap_row(0);
}

/* A head with nfields fields: Host, then X-1: 1 ... */
static size_t
make_fields(char *p, size_t sz, const char *version, int nfields)
{
	int i, k;

	k = snprintf(p, sz, "GET / %s\r\nHost: a\r\n", version);
	for (i = 1; i < nfields; i++)
		k += snprintf(p + k, sz - (size_t)k, "X-%d: %d\r\n", i, i);
	k += snprintf(p + k, sz - (size_t)k, "\r\n");
	return (size_t)k;
}

static void
test_limits(struct request *r)
{
	char in[4096], *buf;
	size_t n, at;
	int rc, touched;

	n = make_fields(in, sizeof(in), "HTTP/1.1", MAX_HEADERS);
	rc = parse_whole(r, in, n, &buf);
	is_int(rc, n, "MAX_HEADERS fields: accepted");
	is_int(r->req_nhdrs, MAX_HEADERS, "MAX_HEADERS fields: all kept");
	is_mem(r->req_hdrs[MAX_HEADERS - 1].h_name,
	    r->req_hdrs[MAX_HEADERS - 1].h_name_len, "X-63",
	    "MAX_HEADERS fields: last name");
	is_str(r->req_hdrs[MAX_HEADERS - 1].h_value, "63",
	    "MAX_HEADERS fields: last value");
	free(buf);

	n = make_fields(in, sizeof(in), "HTTP/1.1", MAX_HEADERS + 1);
	rc = parse_whole(r, in, n, &buf);
	is_int(rc, -431, "MAX_HEADERS + 1 fields: 431");
	free(buf);
	rc = parse_bytewise(r, in, n, &buf, &at, &touched);
	is_int(rc, -431, "MAX_HEADERS + 1 fields (bytewise): 431");
	free(buf);

	n = make_fields(in, sizeof(in), "HTTP/1.0", MAX_HEADERS + 10);
	rc = parse_whole(r, in, n, &buf);
	is_int(rc, -431, "MAX_HEADERS + 10 fields, 1.0: 431");
	free(buf);
}

static void
test_misc(struct request *r)
{
	static const char two[] = PIPE1 "HEAD /2 HTTP/1.0\r\n\r\n";
	static const char ua[] = GET11 HOST "User-Agent:  curl/8.0 \r\n"
	    "referer: http://r.example/\r\n\r\n";
	char *buf;
	size_t scanned;
	int rc, rc2;

	/* the second of two pipelined requests, parsed where the first ended */
	rc = parse_whole(r, two, sizeof(two) - 1, &buf);
	is_int(rc, sizeof(PIPE1) - 1, "pipelined: first head");
	scanned = 0;
	rc2 = request_parse(r, buf + rc, sizeof(two) - 1 - (size_t)rc, &scanned);
	is_int(rc2, sizeof(two) - sizeof(PIPE1), "pipelined: second head");
	is_int(r->req_method, M_HEAD, "pipelined: second method");
	is_mem(r->req_target, r->req_target_len, "/2", "pipelined: second target");
	is_str(r->req_host, NULL, "pipelined: no Host left over from the first");
	is_int(r->req_keepalive, CLOSE, "pipelined: second is 1.0, close");
	free(buf);

	rc = parse_whole(r, ua, sizeof(ua) - 1, &buf);
	is_int(rc, sizeof(ua) - 1, "User-Agent and Referer: parsed");
	is_str(r->req_ua, "curl/8.0", "User-Agent: trimmed value");
	is_str(r->req_referer, "http://r.example/", "Referer: any case");
	free(buf);

	rc = parse_whole(r, S(GET11 HOST "\r\n"), &buf);
	is_int(rc, sizeof(GET11 HOST "\r\n") - 1, "plain GET: parsed");
	is_str(r->req_ua, NULL, "no User-Agent: NULL");
	is_str(r->req_referer, NULL, "no Referer: NULL");
	is_int(r->req_nhdrs, 1, "one field");
	free(buf);
}

static const struct {
	int		 line;
	const char	*in;
	size_t		 len;
	enum method	 want;
} methods_tab[] = {
	{ __LINE__, S("GET"), M_GET },
	{ __LINE__, S("HEAD"), M_HEAD },
	{ __LINE__, S("POST"), M_POST },
	{ __LINE__, S("PUT"), M_PUT },
	{ __LINE__, S("DELETE"), M_DELETE },
	{ __LINE__, S("OPTIONS"), M_OPTIONS },
	{ __LINE__, S("TRACE"), M_TRACE },
	{ __LINE__, S("CONNECT"), M_CONNECT },
	{ __LINE__, S("PATCH"), M_PATCH },
	{ __LINE__, S("get"), M_UNKNOWN },
	{ __LINE__, S("Get"), M_UNKNOWN },
	{ __LINE__, S("head"), M_UNKNOWN },
	{ __LINE__, S("GE"), M_UNKNOWN },
	{ __LINE__, S("GETS"), M_UNKNOWN },
	{ __LINE__, S("HEADER"), M_UNKNOWN },
	{ __LINE__, S("PUTT"), M_UNKNOWN },
	{ __LINE__, S("BREW"), M_UNKNOWN },
	{ __LINE__, S(""), M_UNKNOWN },
	{ __LINE__, "GETX", 3, M_GET },		/* only n bytes count */
	{ __LINE__, "POSTAL", 4, M_POST },
	{ __LINE__, "HEAD", 3, M_UNKNOWN },
	{ __LINE__, S("GET\0"), M_UNKNOWN },
};

static void
test_method_lookup(void)
{
	size_t i;
	char *p;

	for (i = 0; i < sizeof(methods_tab) / sizeof(methods_tab[0]); i++) {
		tap_row(methods_tab[i].line);
		/* an exactly sized copy: no reading past n */
		p = dup_mem(methods_tab[i].in, methods_tab[i].len);
		is_int(method_lookup(p, methods_tab[i].len), methods_tab[i].want,
		    "method_lookup(\"%.*s\", %zu)", (int)methods_tab[i].len,
		    methods_tab[i].in, methods_tab[i].len);
		free(p);
	}
	tap_row(0);
}

int
main(void)
{
	static struct request r;

	/* one struct for every row: stale fields must not survive a parse */
	memset(&r, 0xa5, sizeof(r));
	test_method_lookup();
	test_good(&r);
	test_bad(&r);
	test_fields(&r);
	test_limits(&r);
	test_misc(&r);
	return done_testing();
}
