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
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cgi.h"
#include "log.h"

enum {
	CGI_HEAD_MAX = 4096,	/* the program's header block */
	ENV_SIZE = 3 * HEAD_MAX + 8192,	/* URI, query, PATH_INFO repeat the head */
	ENV_MAX = MAX_HEADERS + 32,
	IO_SIZE = 4096,
};

static int cgi_running;		/* programs running now, for CGI_MAX */

struct cgi {
	struct conn	*g_conn;
	struct request	*g_req;
	struct reply	*g_rp;
	const char	*g_script;	/* for the log */
	pid_t		 g_pid;
	int		 g_in, g_out, g_err;	/* our ends of its stdio */
	int		 g_nph;
	int		 g_head_done;	/* the program's header block is in */
	int		 g_sent;	/* our response head is out */
	int		 g_chunked;	/* we frame the body in chunks */
	long long	 g_clen;	/* the program's Content-Length, or -1 */
	long long	 g_left;	/* of g_clen still to forward */
	int		 g_status;	/* status to answer with, when not sent */
	char		*g_redirect;	/* local Location: serve that instead */
	size_t		 g_hlen;
	char		 g_head[CGI_HEAD_MAX];
	size_t		 g_elen;
	char		 g_ebuf[512];	/* a partial stderr line */
};

/* --- environment ------------------------------------------------------------- */

struct env {
	char	*e_p, *e_end;
	char	*e_v[ENV_MAX + 1];
	int	 e_n;
	int	 e_full;
};

/* Adds NAME=value (value of n bytes); marks the environment full if not. */
static void
env_add(struct env *e, const char *name, const char *val, size_t n)
{
	size_t k = strlen(name);

	if (e->e_n >= ENV_MAX || (size_t)(e->e_end - e->e_p) < k + n + 2) {
		e->e_full = 1;
		return;
	}
	e->e_v[e->e_n++] = e->e_p;
	e->e_p = put(e->e_p, name, k);
	*e->e_p++ = '=';
	e->e_p = put(e->e_p, val, n);
	*e->e_p++ = '\0';
}

/* Adds NAME=a followed by b. */
static void
env_cat(struct env *e, const char *name, const char *a, const char *b)
{
	size_t k = strlen(a);

	env_add(e, name, a, k);
	if (e->e_full)
		return;
	k = strlen(b);
	if ((size_t)(e->e_end - e->e_p) < k + 1) {
		e->e_full = 1;
		return;
	}
	e->e_p = put(e->e_p - 1, b, k);	/* over the NUL */
	*e->e_p++ = '\0';
}

static void
env_str(struct env *e, const char *name, const char *val)
{
	env_add(e, name, val, strlen(val));
}

static void
env_num(struct env *e, const char *name, unsigned long long v)
{
	char buf[24];

	env_add(e, name, buf, (size_t)(fmt_uint(buf, v) - buf));
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
			size_t vn;

			if (o->h_name_len != h->h_name_len ||
			    strncasecmp(o->h_name, h->h_name, h->h_name_len) != 0)
				continue;
			vn = strlen(o->h_value);
			if ((size_t)(e->e_end - e->e_p) < vn + 3) {
				e->e_full = 1;
				break;
			}
			/* the variable just written is the last: extend it */
			e->e_p = put(e->e_p - 1, ", ", 2);
			e->e_p = put(e->e_p, o->h_value, vn);
			*e->e_p++ = '\0';
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
	char addr[48], user[256], *colon;
	const char *host;
	ssize_t n;
	int port = settings.set_port;

	env_str(e, "PATH", "/usr/local/bin:/usr/bin:/bin");
	env_str(e, "GATEWAY_INTERFACE", "CGI/1.1");
	env_str(e, "SERVER_SOFTWARE", "mrhttpd/" MRHTTPD_VERSION);
	env_str(e, "SERVER_PROTOCOL", r->req_minor == 1 ? "HTTP/1.1" : "HTTP/1.0");
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
	for (int j = 0; j < r->req_nhdrs; j++)
		if (r->req_hdrs[j].h_name_len == 12 &&
		    strncasecmp(r->req_hdrs[j].h_name, "Content-Type", 12) == 0) {
			env_str(e, "CONTENT_TYPE", r->req_hdrs[j].h_value);
			break;
		}

	/* the two ends of the connection */
	env_str(e, "REMOTE_ADDR", c->c_addr);
	env_num(e, "REMOTE_PORT", c->c_port);
	strcpy(addr, "-");
	if (getsockname(c->c_fd, (struct sockaddr *)&ss, &len) == 0) {
		addr_fmt(&ss, addr, sizeof(addr));
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
	env_str(e, "SERVER_ADDR", addr);
	env_num(e, "SERVER_PORT", (unsigned)port);
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

	/* who, when the request had to authenticate */
	if (ENABLE_AUTH && r->req_authorization != NULL &&
	    strncasecmp(r->req_authorization, "Basic ", 6) == 0) {
		env_str(e, "AUTH_TYPE", "Basic");
		n = base64_decode(r->req_authorization + 6, user, sizeof(user));
		if (n > 0 && (colon = strchr(user, ':')) != NULL) {
			*colon = '\0';
			env_str(e, "REMOTE_USER", user);
		}
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
 * Ends the program: SIGTERM to its process group, SIGKILL a second later
 * if it is still there; always reaped.
 */
static void
cgi_kill(struct cgi *g)
{
	long long until;
	int st;

	cgi_signal(g->g_pid, SIGTERM);
	for (until = now_ms() + 1000; now_ms() < until;) {
		if (waitpid(g->g_pid, &st, WNOHANG) == g->g_pid) {
			kill(-g->g_pid, SIGKILL);	/* its children too */
			return;
		}
		const struct timespec t = { .tv_nsec = 10 * 1000000 };

		nanosleep(&t, NULL);
	}
	cgi_signal(g->g_pid, SIGKILL);
	while (waitpid(g->g_pid, &st, 0) == -1 && errno == EINTR)
		;
}

/* Waits for the program to exit until deadline, then kills it. */
static void
cgi_reap(struct cgi *g, long long deadline)
{
	const struct timespec t = { .tv_nsec = 5 * 1000000 };
	int st;

	while (now_ms() < deadline) {
		if (waitpid(g->g_pid, &st, WNOHANG) == g->g_pid) {
			if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
				log_warn("cgi %s: exit status %d", g->g_script,
				    WEXITSTATUS(st));
			else if (WIFSIGNALED(st))
				log_warn("cgi %s: killed by signal %d",
				    g->g_script, WTERMSIG(st));
			return;
		}
		nanosleep(&t, NULL);
	}
	log_warn("cgi %s: still running after %d s, killed", g->g_script,
	    CONFIG_CGI_TIMEOUT);
	cgi_kill(g);
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
	sigset_t none, def;
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
	posix_spawnattr_init(&at);
	/* its own process group, so a time-out ends what it started too;
	 * our blocked signals and ignored SIGPIPE are not its business */
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
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
	return 0;
}

/* --- its output -------------------------------------------------------------- */

/* Writes body bytes to the client, in a chunk when chunking.  0 or -1. */
static int
cgi_body(struct cgi *g, const char *p, size_t n)
{
	char hex[20];
	struct iovec iov[3];
	int k = 0;

	if (n == 0 || g->g_req->req_method == M_HEAD)
		return 0;
	if (g->g_clen >= 0) {
		if ((long long)n > g->g_left)
			n = (size_t)g->g_left;	/* more than it announced */
		g->g_left -= (long long)n;
		if (n == 0)
			return 0;
	}
	if (g->g_chunked) {
		static const char digits[] = "0123456789abcdef";
		char *h = hex + sizeof(hex);
		size_t v = n;

		*--h = '\n';
		*--h = '\r';
		do
			*--h = digits[v & 15];
		while ((v >>= 4) != 0);
		iov[k].iov_base = h;
		iov[k++].iov_len = (size_t)(hex + sizeof(hex) - h);
	}
	iov[k].iov_base = (void *)p;
	iov[k++].iov_len = n;
	if (g->g_chunked) {
		iov[k].iov_base = (void *)"\r\n";
		iov[k++].iov_len = 2;
	}
	g->g_rp->rp_bytes += (long long)n;
	return conn_writev(g->g_conn, iov, k);
}

/*
 * Parses the program's header block (RFC 3875 6.3), g_head[0..end), and
 * sends our head.  Returns 0, 1 for an internal redirect (g_redirect), or
 * -1 when the client is gone; an invalid block sets g_status 502.
 */
static int
cgi_headers(struct cgi *g, size_t end)
{
	char out[CGI_HEAD_MAX + 512 + sizeof(CONFIG_PRAGMA)], *p, *line, *next;
	char *colon, *v, *e, *location = NULL;
	struct request *r = g->g_req;
	int status = 0, fields = 0, has_type = 0;
	long long clen = -1;

	g->g_head[end] = '\0';
	p = out + 320 + sizeof(CONFIG_PRAGMA);	/* room for our status line */
	for (line = g->g_head; *line != '\0' && *line != '\n' &&
	    !(line[0] == '\r' && line[1] == '\n'); line = next) {
		if ((next = strchr(line, '\n')) == NULL)
			break;
		*next++ = '\0';
		if (next - line >= 2 && next[-2] == '\r')
			next[-2] = '\0';
		for (colon = line; *colon != ':' && *colon != '\0'; colon++)
			if (!((*colon >= 'A' && *colon <= 'Z') ||
			    (*colon >= 'a' && *colon <= 'z') ||
			    (*colon >= '0' && *colon <= '9') || *colon == '-' ||
			    *colon == '_'))
				goto invalid;
		if (*colon != ':' || colon == line)
			goto invalid;
		*colon = '\0';
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		for (e = v; *e != '\0'; e++)
			if ((unsigned char)*e < ' ' && *e != '\t')
				goto invalid;
		fields++;
		if (strcasecmp(line, "Status") == 0) {
			if (v[0] < '1' || v[0] > '5' || v[1] < '0' ||
			    v[1] > '9' || v[2] < '0' || v[2] > '9' ||
			    (v[3] != '\0' && v[3] != ' '))
				goto invalid;
			status = (v[0] - '0') * 100 + (v[1] - '0') * 10 +
			    (v[2] - '0');
			continue;
		}
		if (strcasecmp(line, "Location") == 0) {
			location = v;
			continue;
		}
		if (strcasecmp(line, "Content-Length") == 0) {
			clen = 0;
			for (e = v; *e >= '0' && *e <= '9' &&
			    clen < 0x0fffffffffffffffLL; e++)
				clen = clen * 10 + (*e - '0');
			if (e == v || *e != '\0')
				goto invalid;
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
		p = put(p, line, strlen(line));
		p = PUTS(p, ": ");
		p = put(p, v, strlen(v));
		p = PUTS(p, "\r\n");
	}
	if (fields == 0 || (!has_type && location == NULL && status == 0))
		goto invalid;

	if (location != NULL && location[0] == '/' && status == 0) {
		g->g_redirect = location;	/* RFC 3875 6.2.2 */
		return 1;
	}
	if (location != NULL) {
		p = PUTS(p, "Location: ");
		p = put(p, location, strlen(location));
		p = PUTS(p, "\r\n");
		if (status == 0)
			status = 302;
	}
	if (status == 0)
		status = 200;

	/* framing: its length, else chunks for 1.1, else close */
	g->g_clen = clen;
	g->g_left = clen;
	if (status == 204 || status == 304 || (status >= 100 && status < 200) ||
	    r->req_method == M_HEAD) {
		if (clen >= 0 && r->req_method == M_HEAD) {
			p = PUTS(p, "Content-Length: ");
			p = fmt_uint(p, (unsigned long long)clen);
			p = PUTS(p, "\r\n");
		}
		g->g_clen = 0;
		g->g_left = 0;
	} else if (clen >= 0) {
		p = PUTS(p, "Content-Length: ");
		p = fmt_uint(p, (unsigned long long)clen);
		p = PUTS(p, "\r\n");
	} else if (r->req_minor == 1) {
		p = PUTS(p, "Transfer-Encoding: chunked\r\n");
		g->g_chunked = 1;
	} else
		g->g_conn->c_close = 1;
	p = PUTS(p, "\r\n");

	/* our status line and headers go in front of the program's */
	{
		char first[320 + sizeof(CONFIG_PRAGMA)], *f;
		char *start = out + 320 + sizeof(CONFIG_PRAGMA);
		size_t flen;

		f = response_head(first, status, r->req_minor, g->g_conn);
		flen = (size_t)(f - first);
		memcpy(start - flen, first, flen);
		g->g_rp->rp_status = status;
		g->g_sent = 1;
		return conn_write(g->g_conn, start - flen,
		    (size_t)(p - (start - flen)));
	}

 invalid:
	log_warn("cgi %s: invalid header block", g->g_script);
	g->g_status = 502;
	return 0;
}

/*
 * Takes n bytes of the program's stdout.  Returns 0, 1 for an internal
 * redirect, or -1 when the client is gone or the output is unusable.
 */
static int
cgi_output(struct cgi *g, const char *p, size_t n)
{
	size_t i, end, rest;
	int rc;

	if (g->g_nph) {
		if (!g->g_sent) {
			g->g_sent = 1;
			g->g_rp->rp_status = 200;
			g->g_conn->c_close = 1;	/* it frames its own reply */
			if (n >= 12 && memcmp(p, "HTTP/1.", 7) == 0)
				g->g_rp->rp_status = (p[9] - '0') * 100 +
				    (p[10] - '0') * 10 + (p[11] - '0');
		}
		g->g_rp->rp_bytes += (long long)n;
		return conn_write(g->g_conn, p, n);
	}
	if (g->g_head_done)
		return g->g_status != 0 ? 0 : cgi_body(g, p, n);

	/* gather the header block; it ends at an empty line (LF or CRLF) */
	if (n > sizeof(g->g_head) - 1 - g->g_hlen) {
		rest = sizeof(g->g_head) - 1 - g->g_hlen;
		memcpy(g->g_head + g->g_hlen, p, rest);
		g->g_hlen += rest;
	} else {
		memcpy(g->g_head + g->g_hlen, p, n);
		g->g_hlen += n;
		rest = n;
	}
	for (i = 0, end = 0; i < g->g_hlen; i++)
		if (g->g_head[i] == '\n' && (i == 0 || (i + 1 < g->g_hlen &&
		    (g->g_head[i + 1] == '\n' || (g->g_head[i + 1] == '\r' &&
		    i + 2 < g->g_hlen && g->g_head[i + 2] == '\n'))))) {
			end = i == 0 ? 1 : i + 1 + (g->g_head[i + 1] == '\r' ?
			    2 : 1);
			break;
		}
	if (end == 0) {
		if (g->g_hlen >= sizeof(g->g_head) - 1) {
			log_warn("cgi %s: header block too long", g->g_script);
			g->g_status = 502;
			g->g_head_done = 1;
		}
		return 0;
	}
	g->g_head_done = 1;
	/* what came after the block is body; keep it before parsing */
	{
		char body[CGI_HEAD_MAX];
		size_t blen = g->g_hlen - end;

		memcpy(body, g->g_head + end, blen);
		if ((rc = cgi_headers(g, end)) != 0 || g->g_status != 0)
			return rc;
		if (cgi_body(g, body, blen) == -1)
			return -1;
	}
	/* bytes of this read beyond what fitted in g_head */
	return n > rest ? cgi_body(g, p + rest, n - rest) : 0;
}

/* Passes complete lines of the program's stderr to the log. */
static void
cgi_stderr(struct cgi *g, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\n' || g->g_elen == sizeof(g->g_ebuf) - 1) {
			log_warn("cgi %s: %.*s", g->g_script, (int)g->g_elen,
			    g->g_ebuf);
			g->g_elen = 0;
			if (p[i] == '\n')
				continue;
		}
		g->g_ebuf[g->g_elen++] = p[i];
	}
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
		if (*script == '\0' || fstatat(settings.set_cgi_fd, script,
		    &st, 0) == -1)
			return errno == EACCES ? -403 : -404;
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
cgi_serve(struct conn *c, struct request *r, struct reply *rp)
{
	char envbuf[ENV_SIZE], dir[sizeof(CONFIG_CGI_DIR) + PATH_MAX_LEN];
	char info[PATH_MAX_LEN], in[IO_SIZE], io[IO_SIZE], *path, *script, *inf;
	char sname[256];
	struct pollfd pfd[4];
	struct env env = { .e_p = envbuf, .e_end = envbuf + sizeof(envbuf) };
	struct cgi g;
	struct body *b = c->c_body;
	size_t plen = sizeof(CONFIG_CGI_PATH) - 1, inlen = 0, inoff = 0;
	long long deadline;
	ssize_t len, n;
	int rc, np, body_done, ev, status;

	/* most requests are plainly not for CGI: when the raw path has no
	 * escapes and no dot or empty segments, normalising cannot change
	 * it, and comparing the raw prefix is exact */
	{
		const char *t = r->req_target, *pre = CONFIG_PATH_PREFIX
		    CONFIG_CGI_PATH;
		size_t i, tn = r->req_path_len, k = strlen(pre);

		for (i = 0; i + 1 < tn; i++)
			if (t[i] == '%' || (t[i] == '/' && (t[i + 1] == '.' ||
			    t[i + 1] == '/')))
				break;
		if (i + 1 >= tn && (tn < k || memcmp(t, pre, k) != 0))
			return CGI_NOT_MINE;
	}
	if (file_path(c, r, &path, &len, 0) != 0 ||
	    (size_t)len < plen || memcmp(path, CONFIG_CGI_PATH, plen) != 0 ||
	    (path[plen] != '/' && path[plen] != '\0'))
		return CGI_NOT_MINE;
	if (path[plen] == '\0' || path[plen + 1] == '\0')
		return response_error(c, r, rp, 403);	/* the directory */
	script = path + plen + 1;
	if ((rc = cgi_locate(script, &inf)) != 0)
		return response_error(c, r, rp, -rc);
	server_yield();		/* a program to start and wait for */
	/* PATH_INFO keeps its leading '/' */
	info[0] = '\0';
	if (inf != NULL) {
		info[0] = '/';
		strcpy(info + 1, inf);
	}
	if (CONFIG_CGI_MAX_BODY >= 0) {
		if (r->req_clen > CONFIG_CGI_MAX_BODY)
			return response_error(c, r, rp, 413);
		b->b_max = CONFIG_CGI_MAX_BODY;
	}
	if (CONFIG_CGI_MAX > 0 &&
	    __atomic_add_fetch(&cgi_running, 1, __ATOMIC_ACQ_REL) > CONFIG_CGI_MAX) {
		__atomic_sub_fetch(&cgi_running, 1, __ATOMIC_ACQ_REL);
		return response_error_hdr(c, r, rp, 503, "Retry-After: 1\r\n");
	}

	memset(&g, 0, offsetof(struct cgi, g_head));
	g.g_conn = c;
	g.g_req = r;
	g.g_rp = rp;
	/* the log needs the name after the body is read, which may reuse
	 * the buffer the path was decoded into */
	snprintf(sname, sizeof(sname), "%s", script);
	g.g_script = sname;
	g.g_clen = -1;
	{
		const char *base = strrchr(script, '/');

		base = base != NULL ? base + 1 : script;
		g.g_nph = strncmp(base, "nph-", 4) == 0;
		/* the program runs in its own directory */
		snprintf(dir, sizeof(dir), "%s/%.*s", CONFIG_CGI_DIR,
		    (int)(base - script), script);
	}
	rp->rp_status = 500;
	rp->rp_bytes = 0;
	if (env_build(&env, c, r, script, info) == -1) {
		log_warn("cgi %s: environment too large", script);
		rc = response_error(c, r, rp, 500);
		goto out;
	}
	if (cgi_spawn(&g, script, env.e_v, dir) == -1) {
		log_warn("cgi %s: cannot start: %s", script, strerror(errno));
		rc = response_error(c, r, rp, errno == EACCES ? 403 : 500);
		goto out;
	}

	deadline = now_ms() + CONFIG_CGI_TIMEOUT * 1000LL;
	body_done = !body_pending(b);
	if (body_done) {
		close(g.g_in);
		g.g_in = -1;
	}
	rc = 0;
	status = 0;
	/* until its stdout ends: a program that closes it and lingers must
	 * not hold the reply back (its later stderr is not read) */
	while (g.g_out != -1) {
		/* the next piece of the request body, when the last is out */
		if (!body_done && inlen == 0) {
			b->b_deadline = deadline;	/* no wait past CGI_TIMEOUT */
			if ((n = body_read(c, b, in, sizeof(in))) > 0) {
				inlen = (size_t)n;
				inoff = 0;
			} else if (n < -1) {
				/* 400, 413: the program must not take a cut
				 * body for a whole one */
				cgi_kill(&g);
				g.g_pid = 0;
				c->c_close = 1;
				status = g.g_sent ? -1 : (int)-n;
				break;
			} else {
				if (n < 0)
					c->c_close = 1;
				body_done = 1;
				close(g.g_in);
				g.g_in = -1;
			}
		}
		np = 0;
		if (g.g_in != -1 && inlen > 0)
			pfd[np++] = (struct pollfd){ .fd = g.g_in, .events = POLLOUT };
		if (g.g_out != -1)
			pfd[np++] = (struct pollfd){ .fd = g.g_out, .events = POLLIN };
		if (g.g_err != -1)
			pfd[np++] = (struct pollfd){ .fd = g.g_err, .events = POLLIN };
		/* a client that hangs up ends the program */
		pfd[np++] = (struct pollfd){ .fd = c->c_fd, .events = POLLRDHUP };
		n = deadline - now_ms();
		if (n <= 0 || (ev = poll(pfd, (nfds_t)np, (int)n)) == 0) {
			log_warn("cgi %s: timed out after %d s", script,
			    CONFIG_CGI_TIMEOUT);
			cgi_kill(&g);
			g.g_pid = 0;
			status = g.g_sent ? -1 : 504;
			break;
		}
		if (ev == -1) {
			if (errno == EINTR)
				continue;
			status = 500;
			break;
		}
		for (int i = 0; i < np; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (pfd[i].fd == c->c_fd) {
				if (pfd[i].revents & (POLLRDHUP | POLLHUP |
				    POLLERR)) {
					status = -1;	/* gone */
					goto done;
				}
			} else if (pfd[i].fd == g.g_in) {
				n = write(g.g_in, in + inoff, inlen);
				if (n > 0) {
					inoff += (size_t)n;
					inlen -= (size_t)n;
				} else if (n == -1 && errno != EAGAIN &&
				    errno != EINTR) {
					/* it does not want the rest */
					close(g.g_in);
					g.g_in = -1;
					inlen = 0;
					body_done = 1;
				}
			} else {
				int *fdp = pfd[i].fd == g.g_out ? &g.g_out :
				    &g.g_err;

				n = read(*fdp, io, sizeof(io));
				if (n == -1 && (errno == EINTR || errno == EAGAIN))
					continue;
				if (n <= 0) {
					close(*fdp);
					*fdp = -1;
					continue;
				}
				if (fdp == &g.g_err) {
					cgi_stderr(&g, io, (size_t)n);
					continue;
				}
				if ((rc = cgi_output(&g, io, (size_t)n)) != 0) {
					status = rc == 1 ? 0 : -1;
					goto done;
				}
			}
		}
	}
 done:
	if (g.g_elen > 0)
		cgi_stderr(&g, "\n", 1);
	if (g.g_in != -1)
		close(g.g_in);
	if (g.g_out != -1)
		close(g.g_out);
	if (g.g_err != -1)
		close(g.g_err);
	if (g.g_pid > 0 && (status == -1 || g.g_redirect != NULL)) {
		cgi_kill(&g);
		g.g_pid = 0;
	}
	/* the reply is finished before waiting for the program to exit */
	if (status != -1 && g.g_redirect == NULL && g.g_sent && g.g_chunked &&
	    conn_write(c, "0\r\n\r\n", 5) == -1)
		status = -1;
	if (g.g_pid > 0)
		cgi_reap(&g, deadline);

	if (status == -1) {		/* the client is gone or cut off */
		rc = -1;
	} else if (g.g_redirect != NULL) {
		/* serve the local Location as a GET (or HEAD) of our own; a
		 * program's path goes back to the client (302), so that a
		 * program's source is never served as a file */
		char *q = strchr(g.g_redirect, '?');
		size_t k = sizeof(CONFIG_CGI_PATH) - 1;

		if (strncmp(g.g_redirect, CONFIG_PATH_PREFIX CONFIG_CGI_PATH,
		    sizeof(CONFIG_PATH_PREFIX) - 1 + k) == 0) {
			char head[640 + sizeof(CONFIG_PRAGMA)], *p;

			p = response_head(head, 302, r->req_minor, c);
			p = PUTS(p, "Location: ");
			p = put(p, g.g_redirect, strlen(g.g_redirect));
			p = PUTS(p, "\r\nContent-Length: 0\r\n\r\n");
			rp->rp_status = 302;
			rc = strlen(g.g_redirect) > 512 ? response_error(c, r, rp,
			    502) : conn_write(c, head, (size_t)(p - head));
			goto out;
		}
		if (r->req_method != M_HEAD)
			r->req_method = M_GET;
		r->req_target = g.g_redirect;
		r->req_target_len = strlen(g.g_redirect);
		r->req_path_len = q != NULL ? (size_t)(q - g.g_redirect) :
		    r->req_target_len;
		r->req_query = q != NULL ? q + 1 : NULL;
		r->req_query_len = q != NULL ? strlen(q + 1) : 0;
		r->req_range = r->req_if_range = NULL;
		rc = file_serve(c, r, rp);
	} else if (g.g_sent) {
		if (g.g_clen > 0 && g.g_left > 0)
			rc = -1;	/* it sent less than it announced */
		else
			rc = 0;
	} else {
		if (status == 0)
			status = g.g_status != 0 ? g.g_status : 500;
		if (status == 500)
			log_warn("cgi %s: no header block before it ended",
			    script);
		rc = response_error(c, r, rp, status);
	}
 out:
	if (CONFIG_CGI_MAX > 0)
		__atomic_sub_fetch(&cgi_running, 1, __ATOMIC_ACQ_REL);
	return rc;
}
