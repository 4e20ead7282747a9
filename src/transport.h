/*
 * transport.h - a connection and the byte stream under it.
 *
 * A transport moves a connection's bytes: plain TCP today (plain.c), TLS
 * next.  Everything above it (the protocols, the handlers) reads and
 * writes a client only through the conn_ functions below, which call the
 * connection's table of operations.  server.c owns the socket's life
 * (accept, the epoll set, the slot); the transport owns what goes over it.
 *
 * Writes wait for room, and reads for input, only after handing the turn
 * on (server_yield), so that a slow client stalls no one else.
 */
#ifndef MRHTTPD_TRANSPORT_H
#define MRHTTPD_TRANSPORT_H

#include <sys/types.h>
#include <sys/uio.h>
#include <poll.h>

struct conn;
struct body;
struct tls;
struct h2;
struct protocol;

/* Some transport of this build has no sendfile: the plain one without
 * SENDFILE, and TLS. */
#define TRANSPORT_COPIES	(!ENABLE_SENDFILE || ENABLE_TLS)

enum {
	IO_MORE = 1,		/* more follows at once: hold the packet */
	IO_NOWAIT = 2,		/* best effort: never wait for room */
	SEND_BUDGET = 1 << 20,	/* file bytes in a row on the turn */
};

struct transport {
	/* Bytes read, 0 at the end of the stream, -1 with errno (EAGAIN:
	 * nothing there yet). */
	ssize_t	(*t_read)(struct conn *, void *, size_t);
	/* Writes all of iov (IO_ flags).  0, or -1: gone or stuck. */
	int	(*t_writev)(struct conn *, struct iovec *, int, int);
	/* Sends len bytes of a file from off.  NULL when the transport
	 * cannot (TLS): conn_sendfile() then reads and writes. */
	int	(*t_sendfile)(struct conn *, int, off_t, off_t);
	/* Input the transport already holds, which poll cannot see (TLS
	 * records decrypted ahead).  NULL: never any. */
	int	(*t_pending)(struct conn *);
	/* Waits up to ms for input (events POLLIN) or room (POLLOUT).
	 * 1 ready, 0 time-out, -1 error or may not wait (no thread could
	 * take the turn). */
	int	(*t_wait)(struct conn *, short, int);
	/* Ends the connection; with drain, unread input is read off for a
	 * moment first, so the reply is not lost to a reset. */
	void	(*t_close)(struct conn *, int);
	/* 1: t_writev hands the bytes to the kernel as they are, never
	 * reading them itself, so a file may be written from its mapping:
	 * should the file be cut short meanwhile, the write fails, where a
	 * read of ours would be killed by SIGBUS (TLS encrypts: 0) */
	int	  t_kernel_copy;
};
extern const struct transport plain_transport;
extern const struct transport tls_transport;	/* TLS=1: tls.c */

struct conn {
	int		 c_fd;		/* the transport's and server.c's only */
	int		 c_close;	/* reply with Connection: close, then close */
	int		 c_fresh;	/* the first request: no cached stat */
	int		 c_more;	/* the socket may hold unread input (atomic) */
	const struct transport *c_tr;
	const struct protocol *c_proto;
	struct tls	*c_tls;		/* TLS state (tls.c), from the first byte */
	unsigned short	 c_port;	/* peer port */
	char		 c_addr[46];	/* peer address, printable */
	size_t		 c_pos;		/* end of what the request has used of c_buf */
	size_t		 c_len;		/* bytes in c_buf, at most HEAD_MAX */
	long long	 c_due;		/* a head or TLS handshake under way: its
					 * end, monotonic ms; else 0 */
	struct body	*c_body;	/* the current request's body */
	/*
	 * HEAD_MAX bytes on the serving thread's stack, for what the client
	 * sent: the head, pipelined bytes, the start of a body.  A
	 * connection is parked with nothing left in it, or with the part
	 * of a head that has come, which server.c keeps meanwhile.
	 */
	char		*c_buf;
	struct h2	*c_h2;		/* HTTP/2 session (h2.c), once spoken */
	int		 c_hup;		/* HTTP/2 stream: see conn_watch(); else -1 */
	long long	 c_wdue;	/* a program's reply: no write waits for
					 * the client past its CGI_TIMEOUT,
					 * monotonic ms; else 0 */
};

/* How long a write may wait for the client: ms, or less, up to c_wdue.
 * Milliseconds; none left: 0 or less. */
static inline long long
conn_wait_ms(const struct conn *c, long long ms)
{
	long long left;

	if (ENABLE_CGI && c->c_wdue != 0 && (left = c->c_wdue - now_ms()) < ms)
		ms = left;
	return ms;
}

/* ... REQUEST_TIMEOUT, for a socket (plain.c, tls.c) */
static inline long long
conn_write_ms(const struct conn *c)
{
	return conn_wait_ms(c, CONFIG_REQUEST_TIMEOUT * 1000LL);
}

static inline ssize_t
conn_read(struct conn *c, void *buf, size_t n)
{
	return c->c_tr->t_read(c, buf, n);
}

static inline int
conn_writev(struct conn *c, struct iovec *iov, int cnt, int flags)
{
	return c->c_tr->t_writev(c, iov, cnt, flags);
}

static inline int
conn_write(struct conn *c, const void *p, size_t n)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = n };

	return c->c_tr->t_writev(c, &iov, 1, 0);
}

static inline int
conn_pending(struct conn *c)
{
	return c->c_tr->t_pending != NULL && c->c_tr->t_pending(c);
}

/* Waits up to ms for input; see t_wait. */
static inline int
conn_wait_readable(struct conn *c, int ms)
{
	return conn_pending(c) ? 1 : c->c_tr->t_wait(c, POLLIN, ms);
}

static inline void
conn_close(struct conn *c, int drain)
{
	c->c_tr->t_close(c, drain);
}

/* A file read and written a piece at a time (transport.c). */
int	 conn_copyfile(struct conn *, int, off_t, off_t);

/*
 * Sends len bytes of fd from off: by the transport's sendfile, or read and
 * written a piece at a time.  Returns 0, or -1 when the client is gone,
 * stuck, or the file shrank under us (the connection must then be closed:
 * the length already announced can no longer be honoured).
 */
static inline int
conn_sendfile(struct conn *c, int fd, off_t off, off_t len)
{
	/* a build whose every transport has sendfile has no copy loop */
	if (!TRANSPORT_COPIES || c->c_tr->t_sendfile != NULL)
		return c->c_tr->t_sendfile(c, fd, off, len);
	return conn_copyfile(c, fd, off, len);
}

/*
 * The socket, to poll for the client's hang-up beside other descriptors
 * (CGI's pipes) and to ask its local address.  Never read or written
 * through: that is the transport's.
 */
static inline int
conn_socket(const struct conn *c)
{
	return c->c_fd;
}

/*
 * What to poll for the client's hang-up (POLLHUP, POLLERR; POLLRDHUP
 * where it is a socket): the socket, or for an HTTP/2 stream a pipe that
 * h2.c closes when the stream ends (a reset ends one client's request,
 * not the connection).
 */
static inline int
conn_watch(const struct conn *c)
{
	return ENABLE_HTTP2 && c->c_hup != -1 ? c->c_hup : c->c_fd;
}

#endif
