/*
 * cgi.c - CGI/1.1 (RFC 3875): requests below CGI_PATH run a program from
 * CGI_DIR with posix_spawn, in its own process group and its own
 * directory, with the RFC's environment and nothing of ours.
 *
 * One poll loop per request moves the request body to the program's stdin
 * while its stdout streams to the client and its stderr to the log, so a
 * program that writes before it has read all its input cannot deadlock.
 * A chunked request body is streamed de-chunked, and CONTENT_LENGTH is then
 * left unset (RFC 3875 4.1.2 allows no other way without spooling).
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cgi.h"
#include "tls.h"
#include "route.h"
#include "h2.h"
#include "log.h"
#include "peer.h"

enum {
	CGI_HEAD_MAX = 4096,	/* the program's header block */
	ENV_SIZE = 3 * HEAD_MAX + 8192,	/* URI, query, PATH_INFO repeat the head */
	ENV_MAX = MAX_HEADERS + 32,
	IO_SIZE = 4096,
};

static int cgi_running;		/* CGI_MAX places taken (cgi_wait_lock) */

struct cgi {
	struct conn	*g_conn;
	struct request	*g_req;
	const char	*g_script;	/* for the log */
	pid_t		 g_pid;
	int		 g_in, g_out, g_err;	/* our ends of its stdio */
	int		 g_nph;
	long long	 g_deadline;	/* CGI_TIMEOUT from its start */
	int		 g_body_done;	/* the request body is all in */
	int		 g_body_wait;	/* and the rest is not here yet */
	long long	 g_body_at;	/* when a piece of it last came */
	short		 g_watch;	/* what to poll the client's socket for */
	int		 g_fail;	/* why it stopped: a status, or -1 gone */
	int		 g_sent;	/* our response head is out */
	int		 g_orphan;	/* handed to the reaper (cgi_orphan) */
	char		*g_redirect;	/* local Location: serve that instead */
	const char	*g_pend;	/* output read with the header block */
	size_t		 g_pendlen;
	size_t		 g_inlen, g_inoff;	/* of g_inbuf, for its stdin */
	size_t		 g_hlen;
	size_t		 g_elen;
	int		 g_termed;	/* running when the stop's SIGTERM came */
	/* cgi_serve clears the fields above this one */
	char		 g_ebuf[512];	/* a partial stderr line */
	char		 g_inbuf[IO_SIZE];
	char		 g_io[IO_SIZE];	/* its stdout */
	char		 g_head[CGI_HEAD_MAX];
	struct cgi	*g_next, **g_prevp;	/* in cgi_list while it runs */
	struct cgi	*g_wnext, **g_wprevp;	/* in cgi_waits while it waits */
	long long	 g_start;	/* when it started, and of its body: */
	long long	 g_body_n;	/* the bytes read */
	/* g_body_at, g_start and g_body_n as they were when it was listed,
	 * for cgi_cut (the pump changes none while it waits) */
	long long	 g_wsince, g_wstart, g_wn;
	int		 g_cut;		/* its wait was cut (cgi_cut): CUT_* */
	int		 g_wout;	/* listed for its output, not its body */
	const unsigned char *g_peer;	/* its client's address (peer.c) */
};

/* The programs running, for the server's stop (cgi_end_all). */
static pthread_mutex_t cgi_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cgi *cgi_list;

/*
 * With CGI_MAX, a request that finds every place taken waits for one in
 * cgi_queue, a moment (CGI_PLACE_WAIT_MS), rather than get 503 at once.
 * A place given back goes to the waiter whose address holds fewest
 * (peer_cgi; oldest first among equals), so that one address that asks
 * over and over cannot keep the places from the others: each address
 * gets its turn.  The waiter also cuts, of the pumps waiting for more of
 * their request body (cgi_waits) whose body has come slower than
 * CGI_CUT_RATE since their program started (a second ago at least), the
 * one whose body moved longest ago (cgi_cut), as a wait for a client is
 * cut for a newcomer at MAX_CONNECTIONS: bodies trickled from a few
 * addresses cannot hold every place until CGI_TIMEOUT.  A waiter cuts
 * only a program of an address that holds as many places as its own, or
 * more, and no more cuts are under way than there are waiters.  It may
 * also cut, one at a time, a program of an address that holds two places
 * more than its own (cgi_cuttable) whose output has waited
 * CGI_OUT_STALL_MS for its client, or whose body, however fast it flows,
 * is being waited for (503): replies read and uploads sent at a modest
 * pace must not keep one address's every place from the others.  It
 * looks again each CGI_CUT_EVERY_MS of the first second of its wait.  All under cgi_wait_lock, which is taken before an HTTP/2
 * connection's h_lock and peer.c's, never after.
 */
struct place_wait {
	const unsigned char	*q_peer;	/* its address */
	int			 q_handed;	/* a place is its now */
	struct place_wait	*q_next;
};
static pthread_mutex_t cgi_wait_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cgi *cgi_waits, **cgi_wtail = &cgi_waits;
static struct place_wait *cgi_queue;	/* newest first */
static int cgi_queued, cgi_cuts;	/* waiters; cut, their place not back */
static int cgi_sharecuts;	/* of those, cut for a share (CUT_OUT, CUT_SHARE) */
static pthread_cond_t cgi_place_cond;	/* a place was handed over */
static int cgi_cond_made;
static void cgi_release(const unsigned char *, int, int);

/* g_cut: why a wait was cut (cgi_cuttable) */
enum { CUT_SLOW = 1, CUT_OUT, CUT_SHARE };

enum {
	CGI_PLACE_WAIT_MS = 2000,	/* for a place, at most */
	CGI_CUT_AGE_MS = 1000,		/* a program this old, at least, */
	CGI_CUT_RATE = 1024,		/* whose body came slower (bytes/s) */
	CGI_OUT_STALL_MS = 100,		/* output not taken for this long */
	CGI_CUT_EVERY_MS = 100,		/* a waiter looks for a cut */
};

/*
 * Programs that ended their output but run on: the reply is whole, so
 * the connection goes on, and a thread of their own (cgi_reaper) reaps
 * them, or ends them at CGI_TIMEOUT as cgi_reap would.  Under cgi_lock.
 * A program that ends within ORPHAN_GRACE_MS of its output, as nearly all
 * do, never comes here; past ORPHANS_MAX a request's thread waits for its
 * own, as before.
 */
enum { ORPHANS_MAX = 16, ORPHAN_GRACE_MS = 50, ORPHAN_TICK_MS = 20 };
/* A program's stderr after its output: read ERR_READ bytes at a time,
 * ERR_READS times at most each tick of the reaper (8 KiB), and logged
 * ERR_LINES lines at most each time (reading stops there: a program that
 * writes faster waits, its pipe full; lines past it in the last read are
 * counted, not logged).  Once it has gone, ERR_READS_END reads (80 KiB,
 * more than a pipe holds) and ERR_LINES_END lines, and the pipe is
 * closed: no program makes the log take more than that at once. */
enum { ERR_READ = 512, ERR_READS = 16, ERR_READS_END = 160, ERR_LINES = 32,
    ERR_LINES_END = 1024 };
static struct orphan {
	pid_t		 o_pid;
	long long	 o_deadline;	/* CGI_TIMEOUT; then SIGKILL's second */
	int		 o_termed;	/* SIGTERM sent */
	int		 o_err;		/* its stderr, read for the log, or -1 */
	char		 o_script[64];	/* for the log */
	size_t		 o_elen;
	char		 o_ebuf[256];	/* a partial stderr line */
} orphans[ORPHANS_MAX];
static int orphans_n, reaper_on;

/* --- environment ------------------------------------------------------------- */

struct env {
	struct buf	 e_b;		/* NAME=value\0 strings, one after another */
	char		*e_v[ENV_MAX + 1];
	int		 e_n;
	int		 e_full;	/* something did not fit: refuse to run */
};

/* Adds NAME=value (value of n bytes); marks the environment full if not. */
static void
env_add(struct env *e, const char *name, const char *val, size_t n)
{
	if (e->e_full || e->e_n >= ENV_MAX) {
		e->e_full = 1;
		return;
	}
	e->e_v[e->e_n++] = e->e_b.b_p;
	buf_str(&e->e_b, name);
	buf_char(&e->e_b, '=');
	buf_add(&e->e_b, val, n);
	buf_char(&e->e_b, '\0');
	e->e_full |= e->e_b.b_over;
}

/* Appends s to the variable just added (over its NUL). */
static void
env_more(struct env *e, const char *s, size_t n)
{
	if (e->e_full)
		return;
	e->e_b.b_p--;
	buf_add(&e->e_b, s, n);
	buf_char(&e->e_b, '\0');
	e->e_full |= e->e_b.b_over;
}

/* Adds NAME=a followed by b. */
static void
env_cat(struct env *e, const char *name, const char *a, const char *b)
{
	env_add(e, name, a, strlen(a));
	env_more(e, b, strlen(b));
}

static void
env_str(struct env *e, const char *name, const char *val)
{
	env_add(e, name, val, strlen(val));
}

static void
env_num(struct env *e, const char *name, unsigned long long v)
{
	char num[24];
	struct buf b;

	buf_init(&b, num, sizeof(num));
	buf_uint(&b, v);
	env_add(e, name, num, buf_len(&b));
}

/* The request's headers as HTTP_* variables, minus those RFC 3875 and
 * httpoxy say must not go through. */
static void
env_headers(struct env *e, const struct request *r)
{
	char name[96];
	const struct header *h;
	size_t i, k;
	int j, seen;

	for (j = 0; j < r->req_nhdrs; j++) {
		h = &r->req_hdrs[j];
		if (h->h_name_len + 6 > sizeof(name))
			continue;
		memcpy(name, "HTTP_", 5);
		for (i = 0, k = 5; i < h->h_name_len; i++) {
			char ch = h->h_name[i];

			if (ch == '-')
				ch = '_';
			else if (ch >= 'a' && ch <= 'z')
				ch = (char)(ch - 'a' + 'A');
			else if (!((ch >= 'A' && ch <= 'Z') ||
			    (ch >= '0' && ch <= '9')))
				break;	/* not [A-Za-z0-9-]: never passed */
			name[k++] = ch;
		}
		if (i < h->h_name_len)
			continue;
		name[k] = '\0';
		if (strcmp(name, "HTTP_PROXY") == 0 ||		/* httpoxy */
		    strcmp(name, "HTTP_CONTENT_TYPE") == 0 ||	/* CONTENT_TYPE */
		    strcmp(name, "HTTP_CONTENT_LENGTH") == 0 ||
		    (strcmp(name, "HTTP_AUTHORIZATION") == 0 &&
		    !CONFIG_CGI_AUTHORIZATION))
			continue;
		/* repeated fields are one, joined with ", " (RFC 3875 4.1.18) */
		for (seen = 0, i = 0; i < (size_t)e->e_n && !seen; i++)
			seen = strncmp(e->e_v[i], name, k) == 0 &&
			    e->e_v[i][k] == '=';
		if (seen)
			continue;
		env_str(e, name, h->h_value);
		for (int l = j + 1; l < r->req_nhdrs && !e->e_full; l++) {
			const struct header *o = &r->req_hdrs[l];

			if (o->h_name_len != h->h_name_len ||
			    strncasecmp(o->h_name, h->h_name, h->h_name_len) != 0)
				continue;
			/* the variable just written is the last: extend it */
			env_more(e, ", ", 2);
			env_more(e, o->h_value, strlen(o->h_value));
		}
	}
}

/*
 * The RFC 3875 environment.  script is CGI_DIR-relative, info the
 * PATH_INFO (decoded, "" when none).  Returns 0, or -1 when it does not fit.
 */
static int
env_build(struct env *e, struct conn *c, struct request *r,
    const char *script, const char *info)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char addr[48];
	const char *host, *v;
	int port = settings.set_port;

	env_str(e, "PATH", "/usr/local/bin:/usr/bin:/bin");
	env_str(e, "GATEWAY_INTERFACE", "CGI/1.1");
	env_str(e, "SERVER_SOFTWARE", "mrhttpd/" MRHTTPD_VERSION);
	env_str(e, "SERVER_PROTOCOL", ENABLE_HTTP2 && r->req_h2 ? "HTTP/2.0" :
	    r->req_minor == 1 ? "HTTP/1.1" : "HTTP/1.0");
	env_str(e, "REDIRECT_STATUS", "200");	/* php-cgi wants it */
	env_add(e, "REQUEST_METHOD", r->req_line, r->req_method_len);
	env_add(e, "REQUEST_URI", r->req_target, r->req_target_len);
	env_add(e, "QUERY_STRING", r->req_query ? r->req_query : "",
	    r->req_query_len);
	env_str(e, "DOCUMENT_ROOT", settings.set_public);
	env_cat(e, "SCRIPT_FILENAME", CONFIG_CGI_DIR "/", script);
	env_cat(e, "SCRIPT_NAME", CONFIG_PATH_PREFIX CONFIG_CGI_PATH "/", script);
	if (*info != '\0') {
		env_str(e, "PATH_INFO", info);
		env_cat(e, "PATH_TRANSLATED", settings.set_public, info);
	}
	if (r->req_clen >= 0 && !r->req_chunked)
		env_num(e, "CONTENT_LENGTH", (unsigned long long)r->req_clen);
	if ((v = request_find(r, "Content-Type", 12)) != NULL)
		env_str(e, "CONTENT_TYPE", v);

	/* the two ends of the connection */
	env_str(e, "REMOTE_ADDR", c->c_addr);
	env_num(e, "REMOTE_PORT", c->c_port);
	strcpy(addr, "-");
	if (getsockname(conn_socket(c), (struct sockaddr *)&ss, &len) == 0) {
		addr_fmt(&ss, addr, sizeof(addr));
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
	env_str(e, "SERVER_ADDR", addr);
	env_num(e, "SERVER_PORT", (unsigned)port);
	if (conn_secure(c)) {	/* what programs test for a secure request */
		env_str(e, "HTTPS", "on");
		env_str(e, "REQUEST_SCHEME", "https");
	}
	if (*CONFIG_SERVER_NAME != '\0')
		env_str(e, "SERVER_NAME", CONFIG_SERVER_NAME);
	else if ((host = r->req_host) != NULL && *host != '\0') {
		/* the Host header without its port ("[::1]:80" too) */
		const char *end = host[0] == '[' ? strchr(host, ']') : NULL;

		end = end != NULL ? end + 1 : strchr(host, ':');
		env_add(e, "SERVER_NAME", host, end != NULL ?
		    (size_t)(end - host) : strlen(host));
	} else
		env_str(e, "SERVER_NAME", addr);

	/* who: only credentials that route_authorized() checked and passed */
	if (r->req_auth_type != NULL) {
		env_str(e, "AUTH_TYPE", r->req_auth_type);
		if (r->req_user != NULL && *r->req_user != '\0')
			env_str(e, "REMOTE_USER", r->req_user);
	}
	env_headers(e, r);
	e->e_v[e->e_n] = NULL;
	return e->e_full ? -1 : 0;
}

/* --- the program ------------------------------------------------------------- */

/*
 * Signals the program's process group, or the program alone while it has
 * no group of its own yet: where posix_spawn returns before the child has
 * run setpgid() (qemu-user turns its vfork into a fork), the group does
 * not exist for a while, and a child that never gets that far must still
 * be ended, or waitpid() below waits for it for ever.
 */
static void
cgi_signal(pid_t pid, int sig)
{
	if (kill(-pid, sig) == -1 && errno == ESRCH)
		kill(pid, sig);
}

/*
 * Has the program ended?  Looks until deadline (one look when it has
 * passed), without reaping it: while its zombie holds its pid, the pid
 * and the process group are still its own to signal.
 */
static int
cgi_ended(pid_t pid, long long deadline)
{
	const struct timespec tick = { .tv_nsec = 5 * 1000000 };
	siginfo_t si;

	for (;;) {
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
		    0 ? si.si_pid == pid : errno == ECHILD)
			return 1;	/* ECHILD: gone, reaped by no one here */
		if (now_ms() >= deadline)
			return 0;
		nanosleep(&tick, NULL);
	}
}

/* The program is no longer the request's to signal: cleared under the
 * lock cgi_signal_all reads it under, before it is reaped. */
static void
cgi_forget(struct cgi *g)
{
	pthread_mutex_lock(&cgi_lock);
	g->g_pid = 0;
	pthread_mutex_unlock(&cgi_lock);
}

/*
 * Ends the program: SIGTERM to its process group, then SIGKILL to the
 * group once the program has gone or a second has passed; reaped, and
 * no longer the request's to signal (g_pid 0) before it is.
 */
static void
cgi_kill(struct cgi *g)
{
	pid_t pid = g->g_pid;
	int st;

	cgi_signal(pid, SIGTERM);
	(void)cgi_ended(pid, now_ms() + 1000);
	cgi_forget(g);
	kill_wait(pid, 1, &st);		/* its children too */
}

/* Reaps a program that has ended, which is no longer the request's to
 * signal once it is reaped. */
static int
cgi_reaped(struct cgi *g)
{
	pid_t pid = g->g_pid;
	int st = 0;

	cgi_forget(g);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return st;
}

/* Logs how a program that ended on its own ended, unless it went well. */
static void
cgi_exited(const char *script, int st)
{
	(void)script;		/* LOG_LEVEL=0 */
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		log_warn("cgi %s: exit status %d", script, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		log_warn("cgi %s: killed by signal %d", script, WTERMSIG(st));
}

/* Waits for the program to exit until deadline, then kills it. */
static void
cgi_reap(struct cgi *g, long long deadline)
{
	if (cgi_ended(g->g_pid, deadline))
		cgi_exited(g->g_script, cgi_reaped(g));
	else {
		log_warn("cgi %s: still running after %d s, killed",
		    g->g_script, CONFIG_CGI_TIMEOUT);
		cgi_kill(g);
	}
}

/* A program's stderr for the log, a line at a time: whole lines go out,
 * the start of one waits in ebuf (size bytes, *elen of them used), and
 * past *left lines (counted down) they are only counted.  Returns how
 * many lines were not logged. */
static unsigned
err_lines(const char *script, char *ebuf, size_t size, size_t *elen,
    const char *p, size_t n, unsigned *left)
{
	unsigned skipped = 0;
	size_t i;

	(void)script;		/* LOG_LEVEL=0 */
	for (i = 0; i < n; i++) {
		if (p[i] == '\n' || *elen == size - 1) {
			if (*left > 0) {
				log_warn("cgi %s: %.*s", script, (int)*elen, ebuf);
				--*left;
			} else
				skipped++;
			*elen = 0;
			if (p[i] == '\n')
				continue;
		}
		ebuf[(*elen)++] = p[i];
	}
	return skipped;
}

/*
 * What a program that has ended its output writes to stderr, read from
 * fd (non-blocking) for the log, within the bounds of ERR_READS and
 * ERR_LINES; with end set (the program is gone), or at its end, fd is
 * closed and the line begun logged.  Returns fd, or -1 once closed.
 * Kept open, a program that runs on may go on writing to it: closed, its
 * next write would kill it (SIGPIPE).  Never under cgi_lock.
 */
static int
err_drain(int fd, const char *script, char *ebuf, size_t size,
    size_t *elen, int end)
{
	char buf[ERR_READ];
	unsigned left = end ? ERR_LINES_END : ERR_LINES, skipped = 0;
	ssize_t n = 0;
	int i;

	for (i = 0; i < (end ? ERR_READS_END : ERR_READS) && (end ||
	    left > 0) && (n = read(fd, buf, sizeof(buf))) > 0; i++)
		skipped += err_lines(script, ebuf, size, elen, buf, (size_t)n,
		    &left);
	if (end || n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		close(fd);
		fd = -1;
		if (*elen > 0)
			skipped += err_lines(script, ebuf, size, elen, "\n", 1,
			    &left);
	}
	if (skipped > 0)
		log_warn("cgi %s: %u more lines on stderr not logged", script,
		    skipped);
	return fd;
}

/* One look at an orphan: 1 when it is gone (reaped), else 0, with
 * SIGTERM or SIGKILL sent to its group when it is due. */
static int
orphan_check(struct orphan *o, long long now)
{
	int st = 0;

	if (cgi_ended(o->o_pid, 0)) {
		/* its stderr not read to the end yet: the next tick reads
		 * it (cgi_reaper), outside the lock; not "still running" */
		if (ENABLE_LOG && o->o_err != -1)
			return 0;
		if (o->o_termed)	/* its group goes with it, as in cgi_kill */
			kill_wait(o->o_pid, 1, &st);
		else {
			while (waitpid(o->o_pid, &st, 0) == -1 && errno == EINTR)
				;
			cgi_exited(o->o_script, st);
		}
		return 1;
	}
	if (now >= o->o_deadline) {
		if (!o->o_termed)
			log_warn("cgi %s: still running after %d s, killed",
			    o->o_script, CONFIG_CGI_TIMEOUT);
		cgi_signal(o->o_pid, o->o_termed ? SIGKILL : SIGTERM);
		o->o_termed = 1;
		o->o_deadline = now + 1000;
	}
	return 0;
}

/* The orphans' thread: looks at them every ORPHAN_TICK_MS while any is
 * left, then ends. */
static void *
cgi_reaper(void *arg)
{
	const struct timespec tick = { .tv_nsec = ORPHAN_TICK_MS * 1000000L };
	struct orphan *o;
	int i, n;

	(void)arg;
	pthread_mutex_lock(&cgi_lock);
	while ((n = orphans_n) > 0) {
		pthread_mutex_unlock(&cgi_lock);
		nanosleep(&tick, NULL);
		/* their stderr, for the log, without the lock the programs'
		 * threads take: only this thread moves or drops an entry, and
		 * cgi_orphan adds its own past n.  One that has gone has the
		 * rest read and its pipe closed, then orphan_check reaps it */
		for (i = 0; ENABLE_LOG && i < n; i++)
			if ((o = &orphans[i])->o_err != -1)
				o->o_err = err_drain(o->o_err, o->o_script,
				    o->o_ebuf, sizeof(o->o_ebuf), &o->o_elen,
				    cgi_ended(o->o_pid, 0));
		pthread_mutex_lock(&cgi_lock);
		for (i = 0; i < orphans_n; i++)
			if (orphan_check(&orphans[i], now_ms())) {
				orphans[i--] = orphans[--orphans_n];
				if (CONFIG_CGI_MAX > 0)	/* its place is free */
					cgi_release(NULL, 1, 0);
			}
	}
	reaper_on = 0;
	pthread_mutex_unlock(&cgi_lock);
	return NULL;
}

/* Hands a program that runs on after its output to the reaper.  1, or 0
 * when there is no room for it, or no thread. */
static int
cgi_orphan(struct cgi *g)
{
	struct orphan *o;
	int ok = 0;

	pthread_mutex_lock(&cgi_lock);
	if (orphans_n < ORPHANS_MAX &&
	    (reaper_on || server_thread(cgi_reaper, NULL) == 0)) {
		reaper_on = ok = 1;
		o = &orphans[orphans_n++];
		o->o_pid = g->g_pid;
		o->o_deadline = g->g_deadline;
		o->o_termed = 0;
		concat(o->o_script, sizeof(o->o_script), g->g_script, NULL);
		/* its stderr, and the line it has begun there */
		o->o_err = g->g_err;
		g->g_err = -1;
		o->o_elen = 0;
		{
			unsigned all = -1U;

			(void)err_lines(o->o_script, o->o_ebuf,
			    sizeof(o->o_ebuf), &o->o_elen, g->g_ebuf,
			    g->g_elen, &all);
		}
		g->g_elen = 0;
		g->g_pid = 0;	/* not the request's any more */
		g->g_orphan = 1;
	}
	pthread_mutex_unlock(&cgi_lock);
	return ok;
}

/* g's program joins (on) or leaves the programs running. */
static void
cgi_track(struct cgi *g, int on)
{
	pthread_mutex_lock(&cgi_lock);
	if (on) {
		if ((g->g_next = cgi_list) != NULL)
			cgi_list->g_prevp = &g->g_next;
		g->g_prevp = &cgi_list;
		cgi_list = g;
	} else {
		if ((*g->g_prevp = g->g_next) != NULL)
			g->g_next->g_prevp = g->g_prevp;
	}
	pthread_mutex_unlock(&cgi_lock);
}

/* sig to every program still running; returns how many there were. */
static int
cgi_signal_all(int sig)
{
	struct cgi *g;
	pid_t pid;
	int n = 0, i;

	pthread_mutex_lock(&cgi_lock);
	for (g = cgi_list; g != NULL; g = g->g_next, n++)
		if ((pid = __atomic_load_n(&g->g_pid, __ATOMIC_ACQUIRE)) > 0) {
			/* ended by us, not by itself: its output is cut */
			if (sig == SIGTERM && !cgi_ended(pid, 0))
				__atomic_store_n(&g->g_termed, 1,
				    __ATOMIC_RELAXED);
			cgi_signal(pid, sig);
		}
	for (i = 0; i < orphans_n; i++, n++) {
		cgi_signal(orphans[i].o_pid, sig);
		if (sig == SIGTERM)	/* SIGKILL its group when it ends */
			orphans[i].o_termed = 1;
	}
	pthread_mutex_unlock(&cgi_lock);
	return n;
}

/*
 * The server stops, its drain over: programs still running would outlive
 * it, outside CGI_MAX and CGI_TIMEOUT.  Each gets what CGI_TIMEOUT would
 * give it, SIGTERM to its process group and SIGKILL a second later; their
 * threads, their pipes closed, reap them and leave the list.
 */
void
cgi_end_all(void)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000000 };
	long long deadline = now_ms() + 1000;

	if (cgi_signal_all(SIGTERM) == 0)
		return;
	while (cgi_signal_all(0) > 0 && now_ms() < deadline)	/* 0: counts */
		nanosleep(&tick, NULL);
	(void)cgi_signal_all(SIGKILL);
}

/* Starts the program.  Returns 0, or -1 with errno set. */
static int
cgi_spawn(struct cgi *g, const char *script, char *const envp[],
    const char *dir)
{
	char path[sizeof(CONFIG_CGI_DIR) + PATH_MAX_LEN + 2];
	char *argv[2];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int in[2], out[2], err[2] = { -1, -1 }, rc, e;

	snprintf(path, sizeof(path), "%s/%s", CONFIG_CGI_DIR, script);
	argv[0] = path;
	argv[1] = NULL;
	if (pipe2(in, O_CLOEXEC) == -1)
		return -1;
	if (pipe2(out, O_CLOEXEC) == -1) {
		e = errno;
		close(in[0]);
		close(in[1]);
		errno = e;
		return -1;
	}
	if (ENABLE_LOG && pipe2(err, O_CLOEXEC) == -1) {
		e = errno;
		close(in[0]); close(in[1]); close(out[0]); close(out[1]);
		errno = e;
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	/* without a log, its stderr goes to /dev/null */
	posix_spawn_file_actions_adddup2(&fa, ENABLE_LOG ? err[1] :
	    settings.set_devnull, STDERR_FILENO);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	/* its own process group, so a time-out ends what it started too */
	spawn_attr_init(&at, 1);
	rc = posix_spawn(&g->g_pid, path, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(in[0]);
	close(out[1]);
	if (ENABLE_LOG)
		close(err[1]);
	if (rc != 0) {
		close(in[1]);
		close(out[0]);
		if (ENABLE_LOG)
			close(err[0]);
		errno = rc;
		return -1;
	}
	g->g_in = in[1];
	g->g_out = out[0];
	g->g_err = ENABLE_LOG ? err[0] : -1;
	fcntl(g->g_in, F_SETFL, O_NONBLOCK);
	if (ENABLE_LOG)		/* read when poll says so, and by err_drain */
		fcntl(g->g_err, F_SETFL, O_NONBLOCK);
	return 0;
}

/* --- its output -------------------------------------------------------------- */

/* The three digits of a status at v, the first from lo to 5; or -1. */
static int
cgi_status(const char *v, char lo)
{
	if (v[0] < lo || v[0] > '5' || v[1] < '0' || v[1] > '9' ||
	    v[2] < '0' || v[2] > '9')
		return -1;
	return (v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0');
}

/*
 * Parses the program's header block (RFC 3875 6.3), head[0..end), in
 * place.  The fields we pass on go to h->ch_fields as CRLF lines, bounded:
 * a block whose fields do not fit there is as invalid as a malformed one.
 * Returns 0, or -1 for an invalid block (the reply is then a 502).
 */
int
cgi_parse_head(char *head, size_t end, struct cgi_head *h)
{
	char *line, *next, *colon, *v, *e;
	int fields = 0, has_type = 0;

	h->ch_status = 0;
	h->ch_reason = NULL;
	h->ch_location = NULL;
	h->ch_clen = -1;
	if (memchr(head, '\0', end) != NULL)
		return -1;	/* it would end the block early, unseen */
	head[end] = '\0';
	for (line = head; *line != '\0' && *line != '\n' &&
	    !(line[0] == '\r' && line[1] == '\n'); line = next) {
		if ((next = strchr(line, '\n')) == NULL)
			break;
		*next++ = '\0';
		if (next - line >= 2 && next[-2] == '\r')
			next[-2] = '\0';
		for (colon = line; *colon != ':' && *colon != '\0'; colon++)
			if (!(http_cls[(unsigned char)*colon] & C_TCHAR))
				return -1;	/* a token (RFC 3875 6.3) */
		if (*colon != ':' || colon == line)
			return -1;
		*colon = '\0';
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		for (e = v; *e != '\0'; e++)
			if (((unsigned char)*e < ' ' && *e != '\t') || *e == 0x7f)
				return -1;
		while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';	/* no trailing OWS (RFC 9110 5.5) */
		fields++;
		if (strcasecmp(line, "Status") == 0) {
			/* 1xx is interim, never a program's final answer */
			if (h->ch_status != 0 ||
			    (h->ch_status = cgi_status(v, '2')) == -1 ||
			    (v[3] != '\0' && v[3] != ' '))
				return -1;
			/* the program's phrase goes on (RFC 3875 6.3.3), as
			 * checked above; one too long for a status line is
			 * dropped */
			if (v[3] == ' ' && strlen(v + 4) <= REASON_MAX)
				h->ch_reason = v + 4;
			continue;
		}
		if (strcasecmp(line, "Location") == 0) {
			if (h->ch_location != NULL || *v == '\0')
				return -1;
			h->ch_location = v;
			continue;
		}
		if (strcasecmp(line, "Content-Length") == 0) {
			long long n;

			if (parse_clen(v, &n) != 0 || (h->ch_clen >= 0 &&
			    h->ch_clen != n))
				return -1;
			h->ch_clen = n;
			continue;
		}
		/* hop-by-hop, and ours: not the program's to say */
		if (strcasecmp(line, "Connection") == 0 ||
		    strcasecmp(line, "Keep-Alive") == 0 ||
		    strcasecmp(line, "Transfer-Encoding") == 0 ||
		    strcasecmp(line, "Date") == 0 ||
		    strcasecmp(line, "Server") == 0)
			continue;
		if (strcasecmp(line, "Content-Type") == 0)
			has_type = 1;
		buf_str(&h->ch_fields, line);
		buf_lit(&h->ch_fields, ": ");
		buf_str(&h->ch_fields, v);
		buf_lit(&h->ch_fields, "\r\n");
	}
	if (fields == 0 || h->ch_fields.b_over ||
	    (!has_type && h->ch_location == NULL && h->ch_status == 0))
		return -1;
	return 0;
}

/* Passes complete lines of the program's stderr to the log. */
static void
cgi_stderr(struct cgi *g, const char *p, size_t n)
{
	unsigned all = -1U;	/* its thread reads as it writes */

	(void)err_lines(g->g_script, g->g_ebuf, sizeof(g->g_ebuf), &g->g_elen,
	    p, n, &all);
}

/*
 * The client has sent its FIN.  That is not a hang-up: an HTTP/1.0 client
 * (or nc -N) half-closes once its request is out and still reads the
 * reply.  So the program goes on, and the client's socket is watched for
 * nothing but a reset from now on.  A client that really closed shows
 * itself when the reply is written (EPIPE); before that, an HTTP/1.1
 * client is asked with an interim 102, which one that is still there
 * ignores (RFC 9110 15.2) and a closed socket answers with a reset.
 */
static void
cgi_half_closed(struct cgi *g)
{
	if (!g->g_sent && g->g_body_done && g->g_req->req_minor == 1)
		(void)g->g_conn->c_proto->p_interim(g->g_conn, g->g_req, 102,
		    IO_NOWAIT);
	g->g_watch = 0;
}

/* Stops for good: the program is ended, fail says why. */
static ssize_t
cgi_stop(struct cgi *g, int fail)
{
	if (fail == 504)
		log_warn("cgi %s: timed out after %d s", g->g_script,
		    CONFIG_CGI_TIMEOUT);
	if (g->g_pid > 0)
		cgi_kill(g);	/* and forgets it */
	g->g_fail = g->g_sent && fail != -1 ? -1 : fail;
	return -1;
}

/*
 * The next piece of the request body, once the last is in its stdin.
 * It takes what is there and never waits (g_body_wait: the pump polls
 * conn_watch() for the rest: the socket, or an HTTP/2 stream's pipe,
 * which h2.c pokes when more comes), so that output is not held up by a
 * client that sends the rest only once it has seen some.  Returns 0, or
 * -1 when it must stop.
 */
static int
cgi_feed(struct cgi *g)
{
	struct conn *c = g->g_conn;
	ssize_t n;

	c->c_body->b_deadline = g->g_deadline;	/* no wait past CGI_TIMEOUT */
	c->c_body->b_nowait = 1;
	n = body_read(c, c->c_body, g->g_inbuf, sizeof(g->g_inbuf));
	c->c_body->b_nowait = 0;
	if (n == BODY_AGAIN) {
		g->g_body_wait = 1;
		return 0;
	}
	if (n > 0) {
		g->g_inlen = (size_t)n;
		g->g_inoff = 0;
		g->g_body_at = now_ms();
		g->g_body_n += n;
		return 0;
	}
	if (n == 0) {
		g->g_body_done = 1;
		close(g->g_in);
		g->g_in = -1;
		return 0;
	}
	/* 400, 413, or the client gone or stalled before the body's end: the
	 * program must not take a cut body for a whole one (a chunked one
	 * has no CONTENT_LENGTH to tell it) */
	c->c_close = 1;
	return (int)cgi_stop(g, n < -1 ? (int)-n :
	    now_ms() >= g->g_deadline ? 504 : 408);
}

/* Its stdin has room: writes what it can. */
static void
cgi_write_in(struct cgi *g)
{
	ssize_t n = write(g->g_in, g->g_inbuf + g->g_inoff, g->g_inlen);

	if (n > 0) {
		g->g_inoff += (size_t)n;
		g->g_inlen -= (size_t)n;
		if (g->g_inlen == 0)	/* the wait for the next piece starts */
			g->g_body_at = now_ms();
	} else if (n == -1 && errno != EAGAIN && errno != EINTR) {
		close(g->g_in);		/* it does not want the rest */
		g->g_in = -1;
		g->g_inlen = 0;
		g->g_body_done = 1;
	}
}

/* One of its output pipes is readable: stdout goes to g_io, stderr to
 * the log.  Returns the bytes of stdout read, or 0. */
static ssize_t
cgi_read_out(struct cgi *g, int *fdp)
{
	char line[512];
	int out = fdp == &g->g_out;
	ssize_t n = read(*fdp, out ? g->g_io : line, out ? sizeof(g->g_io) :
	    sizeof(line));

	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close(*fdp);
		*fdp = -1;
		return 0;
	}
	if (!out) {
		cgi_stderr(g, line, (size_t)n);
		return 0;
	}
	return n;
}

/* Takes g out of cgi_waits, if it is there.  Under cgi_wait_lock. */
static void
cgi_unlist(struct cgi *g)
{
	if (g->g_wprevp == NULL)
		return;
	if ((*g->g_wprevp = g->g_wnext) != NULL)
		g->g_wnext->g_wprevp = g->g_wprevp;
	else
		cgi_wtail = g->g_wprevp;
	g->g_wprevp = NULL;
}

/* g's pump begins (on 1) or ends (0) a wait for its body, or its
 * stream a wait for its client to take output (2): listed in cgi_waits,
 * or taken out.  Returns whether the wait was cut. */
static int
cgi_waiting(struct cgi *g, int on)
{
	int cut;

	pthread_mutex_lock(&cgi_wait_lock);
	cgi_unlist(g);
	if (on && !g->g_cut) {
		g->g_wout = on == 2;
		g->g_wsince = on == 2 ? now_ms() : g->g_body_at;
		g->g_wstart = g->g_start;
		g->g_wn = g->g_body_n;
		g->g_wnext = NULL;
		g->g_wprevp = cgi_wtail;
		*cgi_wtail = g;
		cgi_wtail = &g->g_wnext;
	}
	cut = g->g_cut;
	pthread_mutex_unlock(&cgi_wait_lock);
	return cut;
}

/* May a waiter whose address holds mine places cut g's wait, and why
 * (CUT_*, or 0)?  A slow body's, when g's address holds as many or more
 * (CUT_SLOW).  When it holds two more: a wait for the client to take a
 * piece of output, stalled CGI_OUT_STALL_MS (CUT_OUT), or for more of a
 * body however fast it comes (CUT_SHARE): a client that reads or sends
 * at a modest pace must not keep every place of its address's programs
 * from others until CGI_TIMEOUT.  Those one at a time: the places are
 * counted again once it is done, so that waiters that came together cut
 * one, not one each. */
static int
cgi_cuttable(const struct cgi *g, long long now, int mine)
{
	int held;

	if (now - g->g_wstart < CGI_CUT_AGE_MS)
		return 0;
	held = peer_cgi(g->g_peer, 0);
	if (!g->g_wout && held >= mine &&
	    g->g_wn * 1000 < CGI_CUT_RATE * (now - g->g_wstart))
		return CUT_SLOW;
	if (cgi_sharecuts > 0 || held < mine + 2)
		return 0;
	if (!g->g_wout)
		return CUT_SHARE;
	return now - g->g_wsince >= CGI_OUT_STALL_MS ? CUT_OUT : 0;
}

/* Every CGI_MAX place is taken, and a request from peer waits: cuts, of
 * the waits it may (cgi_cuttable), the one that moved longest ago, and
 * its program is stopped: for a body with 408 (the socket shut down, or
 * the stream's pipe poked), for output with the reply cut short (the
 * socket shut down, or the stream reset: h2_stream_cut).  Its place is
 * given back as any other (cgi_release). */
static void
cgi_cut(const unsigned char *peer)
{
	long long now = now_ms();
	struct cgi *g, *old = NULL;
	int mine = peer_cgi(peer, 0), why, kind = 0;

	for (g = cgi_waits; g != NULL && cgi_cuts < cgi_queued; g = g->g_wnext)
		if ((old == NULL || g->g_wsince < old->g_wsince) &&
		    (why = cgi_cuttable(g, now, mine)) != 0) {
			old = g;
			kind = why;
		}
	if ((g = old) == NULL)
		return;
	cgi_unlist(g);
	g->g_cut = kind;
	cgi_cuts++;
	cgi_sharecuts += kind >= CUT_OUT;
	if (ENABLE_HTTP2 && g->g_conn->c_hup != -1 && g->g_wout)
		h2_stream_cut(g->g_conn);
	else if (ENABLE_HTTP2 && g->g_conn->c_hup != -1)
		h2_stream_poke(g->g_conn);
	else
		(void)shutdown(g->g_conn->c_fd, SHUT_RDWR);
}

/* The address of c's client: an HTTP/2 stream's is its connection's. */
static const unsigned char *
cgi_peer(struct conn *c)
{
	return ENABLE_HTTP2 && c->c_hup != -1 ? h2_stream_peer(c) :
	    server_peer(c);
}

/* A place for a request from peer: 1 when taken, 0 when none came free
 * in CGI_PLACE_WAIT_MS (the program is ended first: SIGTERM, and SIGKILL
 * a second later, so a cut one's place comes within that). */
static int
cgi_place(const unsigned char *peer)
{
	struct place_wait q = { .q_peer = peer }, **pp;
	struct timespec t;
	int i;

	pthread_mutex_lock(&cgi_wait_lock);
	if (cgi_running < CONFIG_CGI_MAX) {
		cgi_running++;
		(void)peer_cgi(peer, 1);
		pthread_mutex_unlock(&cgi_wait_lock);
		return 1;
	}
	if (!cgi_cond_made) {
		cond_init_mono(&cgi_place_cond);
		cgi_cond_made = 1;
	}
	q.q_next = cgi_queue;
	cgi_queue = &q;
	cgi_queued++;
	/* a cut again each CGI_CUT_EVERY_MS: a wait for output comes and
	 * goes with each piece its client takes.  None in the last second:
	 * a program that ignores SIGTERM gives its place back a second
	 * after it, too late for us, and would be cut for nothing */
	for (i = 0; !q.q_handed && i < CGI_PLACE_WAIT_MS / CGI_CUT_EVERY_MS;
	    i++) {
		if (i < (CGI_PLACE_WAIT_MS - 1000) / CGI_CUT_EVERY_MS)
			cgi_cut(peer);
		abstime(&t, CGI_CUT_EVERY_MS);
		while (!q.q_handed && pthread_cond_timedwait(&cgi_place_cond,
		    &cgi_wait_lock, &t) != ETIMEDOUT)
			continue;
	}
	if (!q.q_handed) {
		for (pp = &cgi_queue; *pp != &q; pp = &(*pp)->q_next)
			continue;
		*pp = q.q_next;
		cgi_queued--;
	}
	pthread_mutex_unlock(&cgi_wait_lock);
	return q.q_handed;
}

/* A place given back: to the waiter whose address holds fewest, else
 * free.  peer's share ends with it (NULL: an orphan's, ended before);
 * place 0: only that, the reaper has the place (cgi_orphan); cut: it is
 * a cut program's. */
static void
cgi_release(const unsigned char *peer, int place, int cut)
{
	struct place_wait **pp, **best = NULL, *q;
	int n, fewest = 0;

	pthread_mutex_lock(&cgi_wait_lock);
	if (peer != NULL)
		(void)peer_cgi(peer, -1);
	cgi_cuts -= cut != 0;
	cgi_sharecuts -= cut >= CUT_OUT;
	for (pp = &cgi_queue; place && (q = *pp) != NULL; pp = &q->q_next)
		if ((n = peer_cgi(q->q_peer, 0)) <= fewest || best == NULL) {
			fewest = n;
			best = pp;
		}
	if (best != NULL) {
		q = *best;
		*best = q->q_next;
		cgi_queued--;
		q->q_handed = 1;
		(void)peer_cgi(q->q_peer, 1);
		pthread_cond_broadcast(&cgi_place_cond);
	} else
		cgi_running -= place;
	pthread_mutex_unlock(&cgi_wait_lock);
}

/* The pump's wait for more of the body is a wait for the client: marked
 * (on), a newcomer at MAX_CONNECTIONS may have it cut, as a wait in
 * body_read would be (server_wait, h2.c's h2_cut); -1 when it was. */
static int
cgi_client_wait(struct conn *c, int on)
{
	return ENABLE_HTTP2 && c->c_hup != -1 ? h2_stream_wait(c, on) :
	    server_waiting(c, on);
}

/* Until when the pump may wait: CGI_TIMEOUT, and REQUEST_TIMEOUT after
 * the last piece of a body that is still to come. */
static long long
cgi_until(const struct cgi *g)
{
	long long t = g->g_body_at + CONFIG_REQUEST_TIMEOUT * 1000LL;

	return g->g_body_wait && t < g->g_deadline ? t : g->g_deadline;
}

/* That time is up: 504 at CGI_TIMEOUT, else 408 for a body that stopped
 * coming (and the connection closes: the rest of it is unread). */
static ssize_t
cgi_timeout(struct cgi *g)
{
	if (now_ms() >= g->g_deadline)
		return cgi_stop(g, 504);
	g->g_conn->c_close = 1;
	return cgi_stop(g, 408);
}

/*
 * The program's pump: moves the request body to its stdin and its
 * stderr to the log until it writes to stdout, in one poll loop, so a
 * program that writes before it has read all its input cannot deadlock.
 * Returns the bytes read into g_io, 0 once its stdout has ended, or -1
 * when it must stop (g_fail says why).
 */
static ssize_t
cgi_pump(struct cgi *g)
{
	struct pollfd pfd[4];
	long long left;
	ssize_t n;
	int np, i, wait, sock = conn_watch(g->g_conn);

	while (g->g_out != -1) {
		if (!g->g_body_done && g->g_inlen == 0 && !g->g_body_wait &&
		    cgi_feed(g) == -1)
			return -1;
		np = 0;
		if (g->g_in != -1 && g->g_inlen > 0)
			pfd[np++] = (struct pollfd){ .fd = g->g_in, .events = POLLOUT };
		pfd[np++] = (struct pollfd){ .fd = g->g_out, .events = POLLIN };
		if (g->g_err != -1)
			pfd[np++] = (struct pollfd){ .fd = g->g_err, .events = POLLIN };
		/* a client that hangs up ends the program (POLLHUP and
		 * POLLERR are reported whatever events asks for) */
		pfd[np++] = (struct pollfd){ .fd = sock, .events = g->g_watch |
		    (g->g_body_wait ? POLLIN : 0) };
		if ((left = cgi_until(g) - now_ms()) <= 0)
			return cgi_timeout(g);
		wait = g->g_body_wait;
		if (wait && cgi_client_wait(g->g_conn, 1) == -1)
			return cgi_stop(g, 503);
		if (CONFIG_CGI_MAX > 0 && wait)
			(void)cgi_waiting(g, 1);
		n = poll(pfd, (nfds_t)np, (int)left);
		if (wait) {	/* unmark both; cut for a newcomer by either? */
			int cut = CONFIG_CGI_MAX > 0 ? cgi_waiting(g, 0) : 0;

			if (cgi_client_wait(g->g_conn, 0) == -1 || cut) {
				g->g_conn->c_close = 1;
				/* a body that came, cut for a share: busy */
				return cgi_stop(g, cut == CUT_SHARE ? 503 : 408);
			}
		}
		if (n == 0)
			return cgi_timeout(g);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return cgi_stop(g, 500);
		}
		for (i = 0, n = 0; i < np; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (pfd[i].fd == sock) {
				if (pfd[i].revents & (POLLHUP | POLLERR))
					return cgi_stop(g, -1);	/* gone */
				if (pfd[i].revents & POLLIN)
					g->g_body_wait = 0;	/* more of it */
				if (pfd[i].revents & POLLRDHUP)
					cgi_half_closed(g);
			} else if (pfd[i].fd == g->g_in)
				cgi_write_in(g);
			else if (pfd[i].fd == g->g_err)
				(void)cgi_read_out(g, &g->g_err);
			else
				n = cgi_read_out(g, &g->g_out);
		}
		if (n > 0)
			return n;
	}
	return 0;
}

/*
 * Gathers the program's header block until the empty line that ends it
 * (LF or CRLF).  Returns its length, with what followed it in the same
 * read kept in g_pend; 0 when more is needed; -1 when it is too long.
 */
static ssize_t
cgi_gather(struct cgi *g, size_t n)
{
	size_t i, take = n;

	if (take > sizeof(g->g_head) - 1 - g->g_hlen)
		take = sizeof(g->g_head) - 1 - g->g_hlen;
	memcpy(g->g_head + g->g_hlen, g->g_io, take);
	for (i = g->g_hlen > 2 ? g->g_hlen - 2 : 0; i < g->g_hlen + take; i++)
		if (g->g_head[i] == '\n' && (i == 0 || (i + 1 < g->g_hlen + take &&
		    (g->g_head[i + 1] == '\n' || (g->g_head[i + 1] == '\r' &&
		    i + 2 < g->g_hlen + take && g->g_head[i + 2] == '\n')))))
			break;
	if (i == g->g_hlen + take) {
		g->g_hlen += take;
		return g->g_hlen >= sizeof(g->g_head) - 1 ? -1 : 0;
	}
	/* the end of the block: the rest of this read is body */
	i = i == 0 ? 1 : i + 1 + (g->g_head[i + 1] == '\r' ? 2 : 1);
	g->g_pend = g->g_io + (i - g->g_hlen);
	g->g_pendlen = n - (i - g->g_hlen);
	g->g_hlen = i;
	return (ssize_t)i;
}

/* Hands a piece of output to the client, listed meanwhile (CGI_MAX) as
 * a wait that a program of another address may cut (cgi_cut).  0, or
 * -1 when the client is gone or the wait was cut. */
static int
cgi_put(struct cgi *g, struct stream *st, const char *p, size_t n)
{
	int r;

	if (CONFIG_CGI_MAX > 0)
		(void)cgi_waiting(g, 2);
	r = stream_put(st, p, n);
	if (CONFIG_CGI_MAX > 0 && cgi_waiting(g, 0))
		r = -1;
	return r == -1 ? cgi_stop(g, -1) : 0;
}

/* The response's body: what came with the header block, then the rest
 * of its stdout, as it comes. */
static int
cgi_stream(void *arg, struct stream *st)
{
	struct cgi *g = arg;
	ssize_t n;

	if (cgi_put(g, st, g->g_pend, g->g_pendlen) == -1)
		return -1;
	while ((n = cgi_pump(g)) > 0)
		if (cgi_put(g, st, g->g_io, (size_t)n) == -1)
			return -1;
	/* its output ended as the server stopped it: cut short, which a
	 * last chunk would pass for whole; not one that had ended itself */
	if (n == 0 && __atomic_load_n(&g->g_termed, __ATOMIC_RELAXED))
		return (int)cgi_stop(g, -1);
	return (int)n;
}

/* An error of ours for the program's request: it waits for the client
 * as any answer does, not by the program's clock (c_wdue), which may have
 * run out (504): over HTTP/2 the answer was lost, the stream reset.  But
 * a cut one's waits for nothing: over HTTP/2 its answer sat on a window
 * held at zero, and its place with it, until HTTP2_IDLE_TIMEOUT. */
static int
cgi_error(struct cgi *g, struct reply *rp, int status)
{
	g->g_conn->c_wdue = g->g_cut ? now_ms() : 0;
	return response_error(g->g_conn, g->g_req, rp, status);
}

/* Answers with an error of ours, before the program's output ends: no
 * 102 may follow it. */
static int
cgi_answer(struct cgi *g, struct reply *rp, int status)
{
	g->g_sent = 1;
	g->g_fail = status;	/* and the program is ended (cgi_finish) */
	return cgi_error(g, rp, status);
}

/*
 * Answers with what the program wrote: its header block parsed (an
 * invalid one is a 502), then its stdout streamed.  Returns as a
 * handler, or 1 for a local Location (g_redirect).
 */
static int
cgi_respond(struct cgi *g, struct reply *rp, size_t end)
{
	char fields[CGI_HEAD_MAX + 512];
	struct cgi_head h;
	struct response rs;

	response_init(&rs, 0, fields, sizeof(fields));
	if (g->g_nph) {
		/* it frames its own reply: the status is only for the log */
		const char *p = g->g_pend;
		int n;

		rs.rs_status = 200;	/* unless it names a sound one */
		if (g->g_pendlen >= 12 && memcmp(p, "HTTP/1.", 7) == 0 &&
		    (n = cgi_status(p + 9, '1')) != -1)
			rs.rs_status = n;
		rs.rs_raw = 1;
		rs.rs_len = -1;
	} else {
		h.ch_fields = rs.rs_fields;
		if (cgi_parse_head(g->g_head, end, &h) == -1) {
			log_warn("cgi %s: invalid header block", g->g_script);
			return cgi_answer(g, rp, 502);
		}
		rs.rs_fields = h.ch_fields;
		if (h.ch_location != NULL && h.ch_location[0] == '/' &&
		    h.ch_status == 0) {
			g->g_redirect = h.ch_location;	/* RFC 3875 6.2.2 */
			return 1;
		}
		rs.rs_status = h.ch_status != 0 ? h.ch_status :
		    h.ch_location != NULL ? 302 : 200;
		rs.rs_reason = h.ch_reason;
		if (h.ch_location != NULL)
			response_field(&rs, "Location", h.ch_location);
		if (rs.rs_fields.b_over) {
			log_warn("cgi %s: header block too long", g->g_script);
			return cgi_answer(g, rp, 502);
		}
		/* RFC 9110 15.3.6: a 205 has no content, whatever the
		 * program writes (read and dropped, as for a HEAD) */
		rs.rs_len = rs.rs_status == 205 ? 0 : h.ch_clen;
	}
	rs.rs_src = SRC_STREAM;
	rs.rs_stream = cgi_stream;
	rs.rs_arg = g;
	g->g_sent = 1;		/* from now on, a failure can only close */
	if (response_send(g->g_conn, g->g_req, rp, &rs) == -1)
		return (int)cgi_stop(g, -1);	/* the program goes too */
	return 0;
}

/*
 * Reads the program's output until its header block is in, then
 * answers.  Returns as a handler, or 1 for a local Location.
 */
static int
cgi_run(struct cgi *g, struct reply *rp)
{
	ssize_t n, end = 0;

	while (end == 0 && (n = cgi_pump(g)) > 0) {
		if (g->g_nph) {
			g->g_pend = g->g_io;
			g->g_pendlen = (size_t)n;
			break;
		}
		if ((end = cgi_gather(g, (size_t)n)) == -1) {
			log_warn("cgi %s: header block too long", g->g_script);
			g->g_fail = 502;
		}
	}
	if (g->g_fail != 0)
		return g->g_fail == -1 ? -1 : cgi_error(g, rp, g->g_fail);
	if (end == 0 && (!g->g_nph || g->g_pend == NULL)) {
		log_warn("cgi %s: no header block before it ended", g->g_script);
		g->g_fail = 500;	/* it may run on without its stdout */
		return cgi_error(g, rp, 500);
	}
	return cgi_respond(g, rp, (size_t)end);
}

/* --- the request ------------------------------------------------------------- */

/*
 * Finds the program a path below CGI_PATH names: the first component that
 * is a regular file in CGI_DIR; what follows is PATH_INFO.  Returns 0 with
 * *infop set (script NUL-terminated in place), or -status.
 */
static int
cgi_locate(char *script, char **infop)
{
	struct stat st;
	char *slash = script, save;

	for (;;) {
		slash = strchr(slash, '/');
		save = slash != NULL ? *slash : '\0';
		if (slash != NULL)
			*slash = '\0';
		if (*script == '\0')
			return -404;
		if (fstatat(settings.set_cgi_fd, script, &st, 0) == -1)
			return -errno_status(errno, 0);
		if (S_ISREG(st.st_mode))
			break;
		if (!S_ISDIR(st.st_mode) || slash == NULL)
			return -403;
		*slash++ = save;
	}
	if (faccessat(settings.set_cgi_fd, script, X_OK, 0) == -1)
		return -403;
	*infop = slash != NULL ? slash + 1 : NULL;	/* NULL: no PATH_INFO */
	return 0;
}

int
cgi_below(const char *path, ssize_t len)
{
	size_t plen = sizeof(CONFIG_CGI_PATH) - 1;

	return (size_t)len >= plen && memcmp(path, CONFIG_CGI_PATH, plen) == 0 &&
	    (path[plen] == '/' || path[plen] == '\0');
}

/*
 * Builds the environment and starts the program.  Returns 0, or -status
 * (logged).
 */
static int
cgi_start(struct cgi *g, char *script, const char *inf)
{
	char envbuf[ENV_SIZE], dir[sizeof(CONFIG_CGI_DIR) + PATH_MAX_LEN];
	char info[PATH_MAX_LEN];
	struct env env = { .e_n = 0 };
	const char *base = strrchr(script, '/');
	int e;

	base = base != NULL ? base + 1 : script;
	g->g_nph = strncmp(base, "nph-", 4) == 0;
	/* the program runs in its own directory */
	snprintf(dir, sizeof(dir), "%s/%.*s", CONFIG_CGI_DIR,
	    (int)(base - script), script);
	/* PATH_INFO keeps its leading '/' */
	info[0] = '\0';
	if (inf != NULL) {
		info[0] = '/';
		strcpy(info + 1, inf);
	}
	buf_init(&env.e_b, envbuf, sizeof(envbuf));
	if (env_build(&env, g->g_conn, g->g_req, script, info) == -1) {
		log_warn("cgi %s: environment too large", script);
		return -500;
	}
	if (cgi_spawn(g, script, env.e_v, dir) == -1) {
		e = errno;
		log_warn("cgi %s: cannot start: %s", script, strerror(e));
		/* out of descriptors or processes: busy, not broken */
		return e == EACCES ? -403 : e == EMFILE || e == ENFILE ||
		    e == EAGAIN ? -503 : -500;
	}
	return 0;
}

/* Done with the program: its pipes closed, and waited for (or ended). */
static void
cgi_finish(struct cgi *g)
{
	/* output nobody asked for (HEAD, 204, more than announced) is read
	 * to its end all the same, with stderr */
	while (g->g_fail == 0 && g->g_redirect == NULL && cgi_pump(g) > 0)
		;
	if (g->g_in != -1)
		close(g->g_in);
	if (g->g_out != -1)
		close(g->g_out);
	/* stderr stays open while it runs (the reaper's, if it gets it) */
	/* a local redirect, or an error of ours (500, 502) answered already:
	 * nothing the program does now reaches anyone, and the connection
	 * (and a CGI_MAX place) would wait for it until CGI_TIMEOUT */
	if (g->g_pid > 0 && (g->g_redirect != NULL || g->g_fail != 0))
		cgi_kill(g);
	else if (g->g_pid > 0) {
		/* its output is over and the reply whole: one that runs on
		 * is not the connection's to wait for */
		if (cgi_ended(g->g_pid, now_ms() + ORPHAN_GRACE_MS))
			cgi_exited(g->g_script, cgi_reaped(g));
		else if (!cgi_orphan(g))
			cgi_reap(g, g->g_deadline);
	}
	if (g->g_err != -1)	/* what it wrote last */
		g->g_err = err_drain(g->g_err, g->g_script, g->g_ebuf,
		    sizeof(g->g_ebuf), &g->g_elen, 1);
	else if (g->g_elen > 0)
		cgi_stderr(g, "\n", 1);
}

/*
 * A local Location (RFC 3875 6.2.2): served as a GET (or HEAD) of our
 * own.  A program's path goes back to the client instead (302), so that
 * a program's source is never served as a file.
 */
static int
cgi_redirect(struct cgi *g, struct reply *rp)
{
	struct request *r = g->g_req;
	char *q = strchr(g->g_redirect, '?');
	char fields[HEAD_ROOM + CGI_HEAD_MAX];
	struct response rs;

	if (r->req_method != M_HEAD)
		r->req_method = M_GET;
	r->req_target = g->g_redirect;
	r->req_target_len = strlen(g->g_redirect);
	r->req_path_len = q != NULL ? (size_t)(q - g->g_redirect) :
	    r->req_target_len;
	r->req_query = q != NULL ? q + 1 : NULL;
	r->req_query_len = q != NULL ? strlen(q + 1) : 0;
	r->req_range = r->req_if_range = NULL;
	/* decided as any request's route: "/./cgi-bin/x" names a program */
	if (route_request(r) != ROUTE_CGI)
		return file_serve(g->g_conn, r, rp);
	response_init(&rs, 302, fields, sizeof(fields));
	response_field(&rs, "Location", g->g_redirect);
	if (rs.rs_fields.b_over)
		return response_error(g->g_conn, r, rp, 502);
	return response_send(g->g_conn, r, rp, &rs);
}

int
cgi_serve(struct conn *c, struct request *r, struct reply *rp)
{
	struct cgi g;
	size_t plen = sizeof(CONFIG_CGI_PATH) - 1;
	char *path = r->req_decoded, *script, *inf = NULL;
	const unsigned char *peer = NULL;
	int rc;

	/* route.c said it is below CGI_PATH */
	if (path[plen] == '\0' || path[plen + 1] == '\0')
		return response_error(c, r, rp, 403);	/* the directory */
	script = path + plen + 1;
	if ((rc = cgi_locate(script, &inf)) != 0)
		return response_error(c, r, rp, -rc);
	/* a program to start and wait for: never on the turn */
	if (server_yield() != 0)
		return response_error(c, r, rp, 503);
	if (CONFIG_CGI_MAX_BODY >= 0) {
		if (r->req_clen > CONFIG_CGI_MAX_BODY)
			return response_error(c, r, rp, 413);
		c->c_body->b_max = CONFIG_CGI_MAX_BODY;
	}
	if (CONFIG_CGI_MAX > 0 && !cgi_place(peer = cgi_peer(c)))
		return response_error(c, r, rp, 503);

	rp->rp_status = 500;	/* logged, should the client go first */
	memset(&g, 0, offsetof(struct cgi, g_ebuf));
	g.g_wprevp = NULL;
	g.g_cut = 0;
	g.g_peer = peer;
	g.g_body_n = 0;
	g.g_conn = c;
	g.g_req = r;
	g.g_script = script;	/* in req_decoded, which nothing else writes */
	g.g_in = g.g_out = g.g_err = -1;
	g.g_watch = POLLRDHUP;
	if ((rc = cgi_start(&g, script, inf)) != 0) {
		rc = response_error(c, r, rp, -rc);
		goto out;
	}
	cgi_track(&g, 1);
	g.g_start = g.g_body_at = now_ms();
	g.g_deadline = g.g_body_at + CONFIG_CGI_TIMEOUT * 1000LL;
	/* its output waits for a slow client no longer than it may run:
	 * else a client taking a byte a second kept it, and its CGI_MAX
	 * place, for ever */
	c->c_wdue = g.g_deadline;
	if (!body_pending(c->c_body)) {
		g.g_body_done = 1;
		close(g.g_in);
		g.g_in = -1;
	}
	rc = cgi_run(&g, rp);
	c->c_wdue = 0;
	cgi_finish(&g);
	cgi_track(&g, 0);
	if (rc == 1)
		rc = cgi_redirect(&g, rp);
	else if (g.g_fail == -1)
		rc = -1;	/* cut off after its head went out */
 out:
	/* the place goes back, unless the reaper gives it */
	if (CONFIG_CGI_MAX > 0)
		cgi_release(peer, !g.g_orphan, g.g_cut);
	return rc;
}
