/*
 * main.c - start-up, in order: options, signals, limits, log, socket,
 * detach, pid file, jail, user, serve.  Anything that can fail does so
 * here, with one line on stderr and a non-zero exit, before the launcher
 * of a detached server returns.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mrhttpd.h"
#include "cgi.h"
#include "log.h"
#include "auth.h"
#include "tls.h"
#include "h2.h"
#include "upload.h"

struct settings settings = {
	.set_port = ENABLE_PLAIN ? CONFIG_SERVER_PORT : CONFIG_TLS_PORT,
	.set_tls_port = CONFIG_TLS_PORT,
	.set_addr = CONFIG_SERVER_ADDR,
	.set_public = CONFIG_PUBLIC_DIR,
	.set_public_fd = -1,
};

/* Writes one line to stderr, in one write(2). */
static void
say(const char *line)
{
	(void)!write(STDERR_FILENO, line, strlen(line));
}

/*
 * Prints "mrhttpd: " and the NULL-terminated strings as one line and
 * exits 1.  No printf: the start-up path is all that would need it.
 */
static void __attribute__((noreturn, sentinel))
die(const char *first, ...)
{
	char line[640];
	const char *s;
	va_list ap;
	size_t n;

	n = concat(line, sizeof(line) - 1, "mrhttpd: ", first, NULL);
	va_start(ap, first);
	while ((s = va_arg(ap, const char *)) != NULL)
		n += concat(line + n, sizeof(line) - 1 - n, s, NULL);
	va_end(ap);
	line[n++] = '\n';
	(void)!write(STDERR_FILENO, line, n);
	exit(1);
}

/* descriptors are scarce within this many of the limit: the file cache
 * keeps none there (FC_ENTRIES per thread, one while a thread blocks) */
enum { FD_SCARCE = 256 };

static void __attribute__((noreturn))
usage(void)
{
	say(ENABLE_TLS ? "usage: mrhttpd [-fV] [-a address] [-p port] "
	    "[-r public_dir] [-s https_port]\n" :
	    "usage: mrhttpd [-fV] [-a address] [-p port] [-r public_dir]\n");
	exit(2);
}

/*
 * -V's "name: yes" and "name: no" lines are one literal, which the
 * preprocessor writes: every ENABLE_ is a plain 0 or 1.
 */
#define YES_NO_0	": no\n"
#define YES_NO_1	": yes\n"
#define YES_NO_(on)	YES_NO_##on
#define YES_NO(on)	YES_NO_(on)
#define FEATURE_LINE(name, on)	name YES_NO(on)

/* not inlined: its buffer would stay in main's frame, on the stack of
 * the thread that then waits for signals */
static void __attribute__((noinline))
version(void)
{
	char out[1024];
	struct buf b;

	buf_init(&b, out, sizeof(out));
	buf_lit(&b, "mrhttpd " MRHTTPD_VERSION "\n"
	    FEATURE_LIST(FEATURE_LINE));
	if (ENABLE_TLS) {	/* a TLS=0 build stays as it was */
		buf_lit(&b, "tls: yes\ntls-library: ");
		buf_str(&b, tls_library());
		buf_char(&b, '\n');
	}
	if (ENABLE_HTTP2) {	/* so does an HTTP2=0 one */
		buf_lit(&b, "http2: yes\nhttp2-library: nghttp2 ");
		buf_str(&b, h2_library());
		buf_char(&b, '\n');
	}
	(void)!write(STDOUT_FILENO, out, buf_len(&b));
}

/*
 * The next option letter of argv from *i on, POSIX style: "-f", "-fV",
 * "-p 80" and "-p80"; "--" or a word not starting with '-' ends them.
 * *arg is the value of a letter that takes one.  Returns the letter, or
 * -1 at the end (argv[*i] is then the first word after the options, or
 * NULL); a letter we do not know, or a missing value, is a usage error.
 */
static int
next_opt(char **argv, int *i, char **arg)
{
	static const char *p;	/* within a cluster of letters */
	const char *takes = ENABLE_TLS ? "aprs" : "apr";
	int ch;

	if (p == NULL || *p == '\0') {
		p = argv[*i];
		if (p == NULL || p[0] != '-' || p[1] == '\0')
			return -1;
		++*i;
		if (strcmp(p, "--") == 0)
			return -1;
		p++;
	}
	ch = (unsigned char)*p++;
	if (strchr(takes, ch) != NULL) {
		if (*p == '\0' && (p = argv[(*i)++]) == NULL)
			usage();
		*arg = (char *)p;
		p = NULL;
	} else if (ch != 'f' && ch != 'V')
		usage();
	return ch;
}

static int
parse_port(const char *s)
{
	long v = 0;
	const char *d;

	for (d = s; *d >= '0' && *d <= '9' && v <= 65535; d++)
		v = v * 10 + (*d - '0');
	if (d == s || *d != '\0' || v < 1 || v > 65535)
		die("-p ", s, ": not a port number (1-65535)", NULL);
	return (int)v;
}

/*
 * Forks into the background.  The parent exits only when the child says it
 * serves (0) or dies first (1).  Returns the child's end of the pipe.
 */
static int
detach(void)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		die("pipe: ", strerror(errno), NULL);
	if ((pid = fork()) == -1)
		die("fork: ", strerror(errno), NULL);
	if (pid > 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	setsid();
	if (chdir("/") == -1)	/* keep no file system busy */
		die("chdir /: ", strerror(errno), NULL);
	return p[1];
}

/* kernel headers before Linux 5.9 (old firmware SDKs) name no
 * close_range: syscall(-1) fails with ENOSYS, and the loop closes */
#ifndef SYS_close_range
#define SYS_close_range (-1)
#endif

/*
 * Closes every descriptor but 0-2 that the server was started with (an
 * init script's lock, say), once, before anything of ours is opened:
 * close_range(2), Linux 5.9, whatever their numbers ("ulimit -n 128"
 * after a lock was taken on fd 200 lowers the hard limit below it, and a
 * CGI program got it).  Before 5.9, up to the hard limit (65,536 closes
 * at most).
 */
static void
close_inherited(void)
{
	struct rlimit rl;
	int fd, max = 65536;

	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
	if (prlimit(0, RLIMIT_NOFILE, NULL, &rl) == 0 && rl.rlim_max < 65536)
		max = (int)rl.rlim_max;
	for (fd = 3; fd < max; fd++)
		close(fd);
}

/*
 * The user name and scheme in AUTH_HEADER, for REMOTE_USER and AUTH_TYPE
 * of a request that passed it: "Basic dXNlcjpwYXNz" is user "user".
 */
static void
auth_header_user(void)
{
	static char user[256], scheme[32];
	const char *a = settings.set_auth, *sp = strchr(a, ' ');
	char *colon;
	struct buf b;

	settings.set_auth_user = "";
	settings.set_auth_type = NULL;
	if (sp == NULL)
		return;
	buf_init(&b, scheme, sizeof(scheme) - 1);
	buf_add(&b, a, (size_t)(sp - a));
	settings.set_auth_type = b.b_over ? NULL : buf_cstr(&b);
	if (strncasecmp(a, "Basic ", 6) == 0 &&
	    base64_decode(a + 6, user, sizeof(user)) > 0 &&
	    (colon = strchr(user, ':')) != NULL) {
		*colon = '\0';
		settings.set_auth_user = user;
	}
}

/*
 * AUTH_METHODS from the environment, as upstream read it, else the
 * compiled-in mask (also when empty): 0-15, or -1 (upstream's "all").
 * Anything else stops the start, where upstream took it as 0, no
 * credentials asked for.
 */
static int
auth_methods_env(void)
{
	const char *env = getenv("AUTH_METHODS");

	if (env == NULL || *env == '\0')
		return CONFIG_AUTH_METHODS;
	if (strcmp(env, "-1") == 0)
		return 15;
	if (env[0] >= '0' && env[0] <= '9' && (env[1] == '\0' ||
	    (env[0] == '1' && env[1] >= '0' && env[1] <= '5' && env[2] == '\0')))
		return atoi(env);
	die("AUTH_METHODS in the environment: '", env, "' is not 0-15 or -1",
	    NULL);
	return 0;
}

/* Started as pw already, with nothing of anyone else's: its uid and
 * gid, real and effective, and no group but its own.  Capabilities and a
 * saved uid of root are caught by the check that root cannot be had
 * back, as after a change. */
static int
is_user(const struct passwd *pw)
{
	gid_t g[2];
	int n;

	if (pw->pw_uid == 0 || getuid() != pw->pw_uid ||
	    geteuid() != pw->pw_uid || getgid() != pw->pw_gid ||
	    getegid() != pw->pw_gid)
		return 0;
	n = getgroups(2, g);
	return n == 0 || (n == 1 && g[0] == pw->pw_gid);
}

/* Writes our pid to PID_FILE (a host path: it is for init scripts). */
static void
write_pid_file(void)
{
	char num[24];
	struct buf b;
	int fd;

	fd = open(CONFIG_PID_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0644);
	if (fd == -1)
		die("cannot write pid file " CONFIG_PID_FILE ": ",
		    strerror(errno), NULL);
	buf_init(&b, num, sizeof(num));
	buf_uint(&b, (unsigned long long)getpid());
	buf_char(&b, '\n');
	if (write(fd, num, buf_len(&b)) != (ssize_t)buf_len(&b))
		die("cannot write pid file " CONFIG_PID_FILE ": ",
		    strerror(errno), NULL);
	close(fd);
}

/* The options: compiled-in values, a few overridable for testing. */
static void
options(int argc, char *argv[])
{
	char *arg = NULL;
	int ch, i;

	for (i = argc > 0; (ch = next_opt(argv, &i, &arg)) != -1; ) {
		switch (ch) {
		case 'a':
			settings.set_addr = arg;
			break;
		case 'f':
			settings.set_foreground = 1;
			break;
		case 'p':
			settings.set_port = parse_port(arg);
			if (!ENABLE_PLAIN)
				settings.set_tls_port = settings.set_port;
			break;
		case 'r':
			if (arg[0] != '/')
				die("-r ", arg, ": must be an absolute path", NULL);
			settings.set_public = arg;
			break;
		case 'V':
			version();
			exit(0);
		default:
			/* -s: the HTTPS port; in an HTTPS-only build, -p too */
			if (!ENABLE_TLS || ch != 's')
				usage();
			settings.set_tls_port = parse_port(arg);
			if (!ENABLE_PLAIN)
				settings.set_port = settings.set_tls_port;
		}
	}
	if (i < argc)
		usage();
	settings.set_public_len = strlen(settings.set_public);
	while (settings.set_public_len > 1 &&
	    settings.set_public[settings.set_public_len - 1] == '/')
		settings.set_public_len--;
}

/*
 * Signals, blocked in every thread: a vanished client's SIGPIPE stays
 * pending (the write fails with EPIPE), as does the SIGXFSZ of a write
 * past RLIMIT_FSIZE (it fails with EFBIG: an upload's 413, not the
 * server's end); the rest are read from the signalfd of server_run.  A
 * program gets an empty mask and default actions (spawn_attr_init).
 */
static void
signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGXFSZ);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* a launcher's SIG_IGN for SIGCHLD would have the kernel reap the
	 * programs unseen: CGI could not tell when one ends, nor get
	 * EXT_FILE_CMD's answer, and a pid no longer ours would be killed */
	if (ENABLE_CGI || ENABLE_EXT_FILE_CMD)
		signal(SIGCHLD, SIG_DFL);
}

/*
 * Descriptors: every connection needs one.  prlimit, as one thread runs
 * yet: musl's setrlimit brings the code that applies a limit thread by
 * thread on kernels without prlimit (0.7 KB), and its getrlimit a
 * fallback for them too.  On a kernel before 2.6.36 (no prlimit) the soft
 * limit stays, and is taken for unlimited below; running out of
 * descriptors is handled (server.c).  Then /dev/null, opened before the
 * jail, which has none: it keeps 0-2 taken (so no socket ends up as
 * stdout), and a detached server points its standard descriptors there
 * once it serves.
 */
static void
descriptors(void)
{
	struct rlimit rl;
	int lim, nullfd;

	if (prlimit(0, RLIMIT_NOFILE, NULL, &rl) == 0 &&
	    rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)prlimit(0, RLIMIT_NOFILE, &rl, NULL);
	}
	/* the file cache keeps a descriptor unless they are scarce: in the
	 * upper half of the limit and within FD_SCARCE of it.  Half alone
	 * turned the cache off for every request once most of a large limit
	 * went to idle clients (19,000 of 20,000: four system calls more) */
	lim = prlimit(0, RLIMIT_NOFILE, NULL, &rl) == 0 &&
	    rl.rlim_cur < 0x7fffffff ? (int)rl.rlim_cur : 0x7fffffff;
	settings.set_fd_cache_max = lim - FD_SCARCE > lim / 2 ?
	    lim - FD_SCARCE : lim / 2;
	if ((nullfd = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
		die("/dev/null: ", strerror(errno), NULL);
	while (fcntl(0, F_GETFD) == -1 || fcntl(1, F_GETFD) == -1 ||
	    fcntl(2, F_GETFD) == -1)
		if (dup(nullfd) == -1)
			break;
	settings.set_devnull = nullfd;
}

/*
 * What is read as root and before the jail: at its path inside the jail,
 * the credentials (the secret may come from the environment, so that it
 * need not be compiled into the binary) and the log; the user (the jail
 * may have no /etc/passwd); and at its host path the TLS key (after the
 * user change it is only in memory).  Returns the user, or NULL without
 * SYSTEM_USER.
 */
static struct passwd *
as_root(void)
{
	struct passwd *pw = NULL;
	char err[256];

	if (ENABLE_AUTH) {
		const char *env = getenv("AUTH_HEADER");

		settings.set_auth = env != NULL && *env != '\0' ? env :
		    CONFIG_AUTH_HEADER;
		if (*settings.set_auth == '\0' && !ENABLE_AUTH_FILE)
			die("AUTH_HEADER is set neither in mrhttpd.conf nor in "
			    "the environment", NULL);
		settings.set_auth_len = strlen(settings.set_auth);
		auth_header_user();
		settings.set_auth_methods = auth_methods_env();
	} else {
		/* upstream took them from the environment in any build: here
		 * a build without auth would serve everything to anyone.  An
		 * empty one, or AUTH_METHODS=0, asks for nothing */
		const char *h = getenv("AUTH_HEADER"), *m = getenv("AUTH_METHODS");

		if (m != NULL && *m != '\0' ? strcmp(m, "0") != 0 :
		    h != NULL && *h != '\0')
			die("AUTH_HEADER or AUTH_METHODS is set in the "
			    "environment, but this build has no auth: set "
			    "AUTH_METHODS in mrhttpd.conf", NULL);
	}
	if (ENABLE_AUTH_FILE && auth_load(CONFIG_SERVER_ROOT) == -1)
		die("AUTH_FILE " CONFIG_SERVER_ROOT CONFIG_AUTH_FILE ": ",
		    strerror(errno), NULL);
	if (ENABLE_SETUID && (pw = getpwnam(CONFIG_SYSTEM_USER)) == NULL)
		die("unknown user " CONFIG_SYSTEM_USER, NULL);
	if (!ENABLE_SETUID && geteuid() == 0)
		say("mrhttpd: warning: running as root: see SYSTEM_USER\n");
	if (log_open(CONFIG_SERVER_ROOT, ENABLE_SETUID ? pw->pw_uid :
	    (uid_t)-1) == -1)
		die("cannot open log file " CONFIG_SERVER_ROOT CONFIG_LOG_FILE
		    ": ", errno == ENXIO ? "a FIFO with no reader" :
		    strerror(errno), NULL);
	if (ENABLE_TLS && tls_init(err, sizeof(err)) == -1)
		die(err, NULL);
	if (ENABLE_HTTP2 && h2_init() == -1)
		die("cannot set up nghttp2: out of memory", NULL);
	/* sockets: bound before dropping root, so ports below 1024 work */
	if (server_listen(0, settings.set_addr, ENABLE_PLAIN ?
	    settings.set_port : 0, err, sizeof(err)) == -1 ||
	    (ENABLE_TLS && server_listen(1, settings.set_addr,
	    settings.set_tls_port, err, sizeof(err)) == -1))
		die(err, NULL);
	return pw;
}

/*
 * A directory that did not open, by key and path; in the jail, where a
 * host path (/jail/htdocs for /htdocs) is a path that is not there.
 */
static void __attribute__((noreturn))
die_dir(const char *key, const char *path)
{
	const char *why = strerror(errno);

	if (ENABLE_CHROOT)
		die(key, path, ": ", why, " (a path inside SERVER_ROOT "
		    CONFIG_SERVER_ROOT ")", NULL);
	die(key, path, ": ", why, NULL);
}

/*
 * The jail, the directories served from inside it (opened once, every
 * file is opened relative to them), then the user.
 */
static void
confine(const struct passwd *pw)
{
	if (ENABLE_CHROOT) {
		if (chroot(CONFIG_SERVER_ROOT) == -1)
			die("chroot " CONFIG_SERVER_ROOT ": ", strerror(errno), NULL);
		if (chdir("/") == -1)
			die("chdir /: ", strerror(errno), NULL);
	}
	settings.set_public_fd = open(settings.set_public,
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (settings.set_public_fd == -1)
		die_dir("PUBLIC_DIR ", settings.set_public);
	if (ENABLE_CGI && (settings.set_cgi_fd = open(CONFIG_CGI_DIR,
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		die_dir("CGI_DIR ", CONFIG_CGI_DIR);
	if (ENABLE_SETUID) {
		if (!is_user(pw) && (setgroups(1, &pw->pw_gid) == -1 ||
		    setgid(pw->pw_gid) == -1 || setuid(pw->pw_uid) == -1))
			die("cannot become user " CONFIG_SYSTEM_USER ": ",
			    strerror(errno), NULL);
		if (pw->pw_uid != 0 && (setuid(0) != -1 || seteuid(0) != -1))
			die("dropping root to " CONFIG_SYSTEM_USER " did not stick",
			    NULL);
	}
}

int
main(int argc, char *argv[])
{
	struct passwd *pw;
	int ready = -1;

	options(argc, argv);
	/* no descriptor of our launcher's may reach a CGI program or
	 * outlive a detached server */
	close_inherited();
	signals();
	descriptors();
	pw = as_root();
	/* detach, unless told to stay; the parent waits for "ready" */
	if (ENABLE_DETACH && !settings.set_foreground)
		ready = detach();
	if (ENABLE_PID_FILE)
		write_pid_file();
	confine(pw);
	/* as the user uploads run as, in the jail they see */
	upload_sweep();

	log_info("mrhttpd %s listening on port %d", MRHTTPD_VERSION,
	    settings.set_port);
	if (ENABLE_TLS && ENABLE_PLAIN)
		log_info("HTTPS on port %d", settings.set_tls_port);
	server_run(ready);
	cgi_end_all();		/* programs still running do not outlive us */
	log_info("stopped");
	return 0;
}
