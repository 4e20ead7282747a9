/*
 * protocol.h - what a connection speaks over its transport: HTTP/1.1
 * (http1.c) and HTTP/2 (h2.c, HTTP2=1).
 *
 * A protocol turns bytes into requests and responses into bytes.  In
 * between, every request goes the same way whatever the protocol:
 * route_serve() (route.c) decides what it does and calls its handler,
 * and the handler describes its response as data (response.h), which
 * the protocol frames.
 */
#ifndef MRHTTPD_PROTOCOL_H
#define MRHTTPD_PROTOCOL_H

struct conn;
struct request;
struct reply;
struct response;

/* Requests a client gets served in a row on the turn, pipelined or on
 * streams, before the turn goes to the others. */
enum { REQ_BUDGET = 32 };

struct protocol {
	/*
	 * Serves the connection's requests while it has input.  Returns 1
	 * when the connection waits for more (server.c parks it), 0 when
	 * it was closed.
	 */
	int	(*p_serve)(struct conn *);
	/* Sends a handler's response.  0, or -1: the connection must close. */
	int	(*p_respond)(struct conn *, struct request *, struct reply *,
		    struct response *);
	/* An interim 1xx response (100 Continue, 102 Processing), with
	 * transport IO_ flags.  0 or -1. */
	int	(*p_interim)(struct conn *, struct request *, int, int);
};
extern const struct protocol http1_protocol;

#endif
