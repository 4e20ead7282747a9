/* mrhttpd.h - shared structures and prototypes. */
#ifndef MRHTTPD_H
#define MRHTTPD_H

#include <sys/types.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <pthread.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <config.h>	/* generated, from -I$(BUILD) */

/*
 * The features -V reports, one line each.  A new compile-time feature adds
 * one X() line here and its ENABLE_ switch in configure.
 */
#define FEATURE_LIST(X) \
	X("sendfile", ENABLE_SENDFILE) \
	X("log", ENABLE_LOG) \
	X("log-file", ENABLE_LOG_FILE) \
	X("syslog", ENABLE_SYSLOG) \
	X("pid-file", ENABLE_PID_FILE) \
	X("error-pages", ENABLE_PRIVATE_DIR) \
	X("default-index", ENABLE_DEFAULT_INDEX) \
	X("ext-file-cmd", ENABLE_EXT_FILE_CMD) \
	X("query-hack", ENABLE_QUERY_HACK) \
	X("pragma", ENABLE_PRAGMA) \
	X("detach", ENABLE_DETACH) \
	X("chroot", ENABLE_CHROOT) \
	X("setuid", ENABLE_SETUID) \
	X("cgi", ENABLE_CGI) \
	X("put", ENABLE_PUT) \
	X("auto-index", ENABLE_AUTO_INDEX) \
	X("auth", ENABLE_AUTH) \
	X("auth-file", ENABLE_AUTH_FILE) \
	X("path-prefix", ENABLE_PATH_PREFIX) \
	X("gzip-static", ENABLE_GZIP_STATIC) \
	X("ranges", ENABLE_RANGES) \
	X("validators", ENABLE_VALIDATORS) \
	X("request-bodies", ENABLE_BODIES) \
	X("per-ip-limit", ENABLE_PER_IP) \
	X("follow-symlinks", ENABLE_FOLLOW_SYMLINKS)

enum {
	PATH_MAX_LEN = 4096,		/* longest decoded request path */
	/* most slashes in a normalised path (414 past it): a path is
	 * opened a directory at a time where openat2 is missing (before
	 * Linux 5.6), two system calls each, on the turn */
	PATH_DEPTH_MAX = 64,
	HEAD_MAX = CONFIG_HTTP_HEADER_LENGTH,
	/* a response head's common part (http1_head) and the few fields
	 * every reply adds: configure keeps PRAGMA (and the other strings
	 * that go into a header) short enough for this */
	HEAD_ROOM = 512 + sizeof(CONFIG_PRAGMA),
};

/* Run-time settings: compiled-in values, some overridable on the command line. */
struct settings {
	int		 set_port;
	int		 set_public_fd;	/* the document root, opened at start */
	const char	*set_addr;
	const char	*set_public;	/* document root as the server sees it */
	size_t		 set_public_len;
	int		 set_foreground;
	int		 set_fd_cache_max;	/* fds at or above are scarce: not cached */
	int		 set_devnull;		/* /dev/null, opened before the jail */
	int		 set_tls_port;		/* HTTPS (TLS=1) */
	const char	*set_auth;		/* AUTH_HEADER, or from the environment */
	const char	*set_auth_user;		/* its user name, or "" */
	const char	*set_auth_type;		/* its scheme, e.g. "Basic" */
	int		 set_cgi_fd;		/* CGI_DIR, opened at start */
	size_t		 set_auth_len;
	int		 set_auth_methods;	/* AUTH_METHODS, or from the environment */
};
extern struct settings settings;

/* Methods the parser knows by name; route.c decides which are served. */
enum method {
	M_UNKNOWN = 0, M_GET, M_HEAD, M_POST, M_PUT, M_DELETE, M_OPTIONS,
	M_TRACE, M_CONNECT, M_PATCH,
};

enum { MAX_HEADERS = 64 };

struct header {
	const char	*h_name;	/* not terminated: h_name_len bytes */
	size_t		 h_name_len;
	const char	*h_value;	/* NUL-terminated, whitespace trimmed */
};

/*
 * One parsed request head.  Every pointer points into the connection's
 * receive buffer; nothing is allocated.  The request line stays intact
 * for the log, so the target is a pointer and a length.
 */
struct request {
	enum method	 req_method;
	const char	*req_line;	/* "GET / HTTP/1.1", NUL-terminated */
	size_t		 req_method_len;
	const char	*req_target;	/* origin-form; absolute-form reduced to it
					 * ("/" alone when it has no path) */
	size_t		 req_target_len; /* with the query */
	size_t		 req_path_len;	/* up to '?' */
	const char	*req_query;	/* after '?', or NULL */
	size_t		 req_query_len;
	int		 req_minor;	/* HTTP/1.x */
	int		 req_keepalive;	/* what the client asked for */
	int		 req_chunked;	/* Transfer-Encoding ends in chunked */
	long long	 req_clen;	/* Content-Length, -1 when absent */
	const char	*req_host;
	const char	*req_ua;
	const char	*req_referer;
	/* conditional and range requests (RFC 9110 13, 14) */
	const char	*req_if_match;
	const char	*req_if_none_match;
	const char	*req_if_modified_since;
	const char	*req_if_unmodified_since;
	const char	*req_if_range;
	const char	*req_range;
	const char	*req_authorization;
	/* set by route_authorized() only for credentials it checked and
	 * passed: the user name ("" when the scheme has none) and scheme */
	const char	*req_user;
	const char	*req_auth_type;
	int		 req_qhack;	/* QUERY_HACK put the query in the path */
	const char	*req_expect;
	const char	*req_accept_encoding;
	int		 req_nhdrs;
	struct header	 req_hdrs[MAX_HEADERS];
	/*
	 * The path, percent-decoded and normalised by route_request(), in
	 * PATH_MAX_LEN bytes of the request's own (the protocol provides
	 * them), apart from c_buf: reading a body never overwrites it.  The
	 * request's handler alone may change it in place (file.c tries
	 * FILE.gz, cgi.c and upload.c cut it at a slash for a moment).
	 */
	char		*req_decoded;
	ssize_t		 req_decoded_len;	/* its length, or -status */
	int		 req_h2;	/* came over HTTP/2 (h2.c) */
};
/* req_clen of an HTTP/2 body without Content-Length: it ends with its
 * stream */
#define REQ_CLEN_STREAM	(-2)

/*
 * request_parse: parses the head in buf[0..len) in place.
 * Returns the length of the head (> 0) once it is complete, 0 when more bytes
 * are needed, or -status (-400, -431, -505) for a request to refuse.
 * *scanned carries where the previous call stopped looking for the end of
 * the head, so a slow client does not make us rescan; start it at 0.
 */
int	 request_parse(struct request *, char *, size_t, size_t *);
const char *request_find(const struct request *, const char *, size_t);
/* util.c: the classes of each byte of a head, C_* bits (RFC 9110 5.6.2
 * tchar, a request-target's, a field value's, a Host's, a hex digit) */
enum { C_TCHAR = 1, C_TARGET = 2, C_VALUE = 4, C_HOST = 8, C_HEX = 16 };
extern const unsigned char http_cls[256];
/* The empty lines (CR LF, or LF) that may come before a request line
 * (RFC 9112 2.2): how many bytes of buf[0..len) they take.  A bare CR is
 * not one. */
size_t	 request_skip_empty(const char *, size_t);
/* One field of a request not read from text (HTTP/2's): stored as
 * request_parse stores it.  0, or -status. */
int	 request_header(struct request *, const struct header *, const char *);
enum method method_lookup(const char *, size_t);

/*
 * A bounded buffer: every response head, every log line and every other
 * line built in memory goes through one.  Each append checks the room
 * left; what does not fit sets b_over and is dropped, with everything
 * after it, and the caller
 * turns that into an error (a 500 for our own head, a 502 for a CGI
 * program's).  No stdio on the hot path.
 */
struct buf {
	char	*b_start;
	char	*b_p;		/* the next free byte */
	char	*b_end;		/* one past the last usable byte */
	int	 b_over;	/* an append did not fit */
};

static inline void
buf_init(struct buf *b, char *mem, size_t n)
{
	b->b_start = b->b_p = mem;
	b->b_end = mem + n;
	b->b_over = 0;
}

static inline size_t
buf_len(const struct buf *b)
{
	return (size_t)(b->b_p - b->b_start);
}

static inline size_t
buf_room(const struct buf *b)
{
	return (size_t)(b->b_end - b->b_p);
}

/* Once something did not fit, nothing more goes in: the contents stay a
 * prefix of everything appended, never a line with a hole in it. */
static inline void
buf_add(struct buf *b, const void *s, size_t n)
{
	if (b->b_over || n > buf_room(b)) {
		b->b_over = 1;
		return;
	}
	memcpy(b->b_p, s, n);
	b->b_p += n;
}
#define buf_lit(b, lit)	buf_add((b), (lit), sizeof(lit) - 1)

static inline void
buf_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static inline void
buf_char(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void	 buf_uint(struct buf *, unsigned long long);
void	 buf_hex(struct buf *, unsigned long long, int);
void	 buf_pad(struct buf *, unsigned, int);
/* Percent-encodes s[0..n) for a URI path: every byte but the unreserved
 * ones (and '/', with slash set) becomes %XX. */
void	 buf_url(struct buf *, const char *, size_t, int);
/* Terminates the contents with a NUL (which b_end must leave room for:
 * buf_init with one byte less).  Returns b_start. */
static inline char *
buf_cstr(struct buf *b)
{
	*b->b_p = '\0';
	return b->b_start;
}

/* util.c */
/*
 * url_decode: percent-decodes src[0..n) into dst (at most dstsz-1 bytes plus
 * NUL).  Returns the decoded length, or -1 on an invalid escape, an encoded
 * or literal NUL, or when dst is too small.
 */
ssize_t	 url_decode(const char *, size_t, char *, size_t);
/* The value of a hexadecimal digit, or -1; and the digits, [1] upper case. */
int	 hex_digit(unsigned char);
extern const char hex_chars[2][17];
extern const char month_names[];	/* "JanFeb...", 3 letters each */
/*
 * path_normalize: in place, folds "//", "/./" and "/x/.." in an absolute path.
 * Returns the new length, or -1 when the path is not absolute or ".." would
 * climb above the root, -2 when it has more than PATH_DEPTH_MAX slashes.
 * A trailing slash is kept.
 */
ssize_t	 path_normalize(char *);
void	 time_utc(time_t, struct tm *);
/* The dates every formatter can write: years 0000 to 9999. */
#define DATE_MIN	(-62167219200LL)	/* 0000-01-01T00:00:00Z */
#define DATE_MAX	253402300799LL		/* 9999-12-31T23:59:59Z */
char	*http_date_fmt(char *, time_t);	/* writes 29 bytes, returns the end */
const char *http_date_now(time_t *);	/* this thread's cached Date value */

/*
 * http_date_parse: an HTTP-date in any of the three forms RFC 9110 5.6.7
 * says recipients accept.  Returns 0 with *t set, or -1.
 */
int	 http_date_parse(const char *, time_t *);
ssize_t	 base64_decode(const char *, char *, size_t);
size_t	 utf8_next(const unsigned char *, size_t, unsigned *);
/* Are a[0..an) and the secret s[0..sn) equal?  Takes time that depends
 * on sn alone, never on how much of the secret a guess got right. */
int	 ct_equal(const char *, size_t, const char *, size_t);
size_t	 concat(char *, size_t, ...) __attribute__((sentinel));
long long now_ms(void);
void	 abstime(struct timespec *, long long);
void	 cond_init_mono(pthread_cond_t *);
/*
 * Spawn attributes for a program of ours (CGI, EXT_FILE_CMD): our blocked
 * signals and ignored SIGPIPE are not its business; with group set, its
 * own process group, so that a time-out ends what it started too.
 */
void	 spawn_attr_init(posix_spawnattr_t *, int);
void	 addr_fmt(const struct sockaddr_storage *, char *, size_t);

/*
 * One element of a comma-separated list (RFC 9110 5.6.1): its token
 * (up to whitespace, ';' or ','), its parameters after ';' (or NULL),
 * and whether something else followed the token.  list_next() skips
 * empty elements; returns 1 with *it filled, 0 at the list's end.
 */
struct list_item {
	const char	*li_name;
	size_t		 li_len;
	const char	*li_params;
	int		 li_junk;
};
int	 list_next(const char **, struct list_item *);
/* The status for a failed file operation's errno, reading or writing. */
int	 errno_status(int, int);
/* getdents64(2): bytes of records read, 0 at the end, -1 on error. */
ssize_t	 dir_read(int, void *, size_t);
/* A record of dir_read's, as getdents64(2) documents it. */
struct dir_rec {
	uint64_t	 d_ino;
	int64_t		 d_off;
	unsigned short	 d_reclen;
	unsigned char	 d_type;
	char		 d_name[];
};
/* The next record of buf[0..n) at *off, bounds checked; NULL at the end. */
const struct dir_rec *dir_next(const char *, size_t, size_t *);
/* Waits for pid to exit until deadline (monotonic ms): 0, or -1 when it
 * has not.  kill_wait() ends it (its group too with group set), reaped. */
int	 wait_exit(pid_t, long long, int *);
void	 kill_wait(pid_t, int, int *);

/* A Content-Length value (RFC 9110 8.6): digits only, at least one, and
 * no more than a long long holds.  0 with *out, or -1. */
static inline int
parse_clen(const char *v, long long *out)
{
	long long n = 0;

	if (*v == '\0')
		return -1;
	for (; *v != '\0'; v++)
		if (*v < '0' || *v > '9' || __builtin_mul_overflow(n, 10, &n) ||
		    __builtin_add_overflow(n, *v - '0', &n))
			return -1;
	*out = n;
	return 0;
}

/* mime.c: type for the file name's suffix, or NULL when unknown. */
const char *mime_lookup(const char *, size_t);

#include "transport.h"

/* body.c: the request body, de-chunked, streamed into the caller's buffer */
enum { BODY_DISCARD_MAX = 65536 };	/* unwanted bodies up to this are read */
/* b_left of a body that ends with its HTTP/2 stream (b_to_end): more
 * than any stream can carry, so it never reaches 0 before the end */
#define BODY_TO_END	(1LL << 62)
struct body {
	long long	 b_left;	/* of the Content-Length, or of this chunk */
	long long	 b_total;	/* body bytes delivered */
	long long	 b_max;		/* the limit, -1 for none */
	size_t		 b_head;	/* the head's length in c_buf */
	long long	 b_deadline;	/* monotonic ms no wait may pass, or 0 */
	int		 b_chunked;
	int		 b_state;	/* chunked framing */
	int		 b_digits;
	int		 b_ext;
	int		 b_continue;	/* 100 Continue still to send */
	int		 b_to_end;	/* HTTP/2, no length: ends with the stream */
	int		 b_nowait;	/* nothing there: BODY_AGAIN, no wait */
};
enum { BODY_AGAIN = -2 };	/* body_read with b_nowait: nothing yet */
enum {
	CH_SIZE, CH_SIZE_WS, CH_EXT, CH_EXT_NAME, CH_EXT_NAME_WS, CH_EXT_EQ,
	CH_EXT_VAL, CH_EXT_VAL_WS, CH_EXT_QUOTED, CH_EXT_QPAIR, CH_EXT_QEND,
	CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF,
	CH_TRAILER, CH_TRAILER_NAME, CH_TRAILER_VALUE, CH_TRAILER_LF, CH_END_LF,
	CH_DONE,
};
int	 body_start(struct conn *, struct request *, struct body *, long long);
ssize_t	 body_dechunk(struct body *, char *, size_t, size_t *);
ssize_t	 body_read(struct conn *, struct body *, char *, size_t);
int	 body_discard(struct conn *, struct body *);
int	 body_pending(const struct body *);

/* What a request got, for the log. */
struct reply {
	int		 rp_status;
	int		 rp_rejected;	/* refused by the route (LOG_LEVEL 1) */
	long long	 rp_bytes;	/* body bytes sent, for the log */
};

/* file.c */
#define UPLOAD_PREFIX	".mrhttpd-upload-"	/* PUT's temporary files */
int	 file_serve(struct conn *, struct request *, struct reply *);
void	 file_cache_flush(void);
int	 file_cache_trim(void);
void	*file_cache_run(void *(*)(void *), void *);
extern const size_t file_cache_size;	/* what that takes of the stack */
void	 file_cache_invalidate(void);
/*
 * The preconditions of a PUT or DELETE (RFC 9110 13.1, 13.2.2) against
 * the target as it is now: st, or NULL where there is none.  0, or 412.
 */
struct stat;
int	 file_preconditions(const struct request *, const struct stat *);

/* server.c */
int	 server_listen(int, const char *, int, char *, size_t);
void	 server_run(int);
extern int server_stop;		/* set once, at stop: read it with */
static inline int
server_stopping(void)
{
	return __atomic_load_n(&server_stop, __ATOMIC_ACQUIRE);
}
extern __thread int server_turn;
int	 server_yield_turn(void);
/* Out of descriptors: 1 when an idle connection was closed, 2 when a
 * slow client was cut (its descriptors come back within SHED_WAIT_TRIES
 * waits of 5 ms, usually), else 0. */
int	 server_shed_idle(void);
enum { SHED_WAIT_TRIES = 20 };
int	 server_wait(struct conn *, short, int);
int	 server_waiting(struct conn *, int);
int	 server_thread(void *(*)(void *), void *);
const unsigned char *server_peer(const struct conn *);
/* TLS handshakes in line for a thread (tls.c): see server.c */
int	 server_defer(int);
int	 server_defer_first(void);
void	 server_defer_room(void);
/*
 * About to block (a wait for a client, a program, the disk): let another
 * thread serve the other connections meanwhile.  Returns 0, or -1 when no
 * thread could take the turn (none waits, and none can be started): then
 * this thread keeps it, and the caller must not block, but shed the work
 * (a 503, or closing the connection), so that the event loop always has
 * an owner.
 */
static inline int
server_yield(void)
{
	return server_turn ? server_yield_turn() : 0;
}

#endif
