/*
 * fuzz_h2.c - the HTTP/2 server (h2.c on nghttp2) on arbitrary client
 * bytes.
 *
 * libs: -lnghttp2
 *
 * The input is what a client sends on one connection, fed to a session in
 * two reads split where the first byte says, with the driver's steps in
 * between: run the complete requests, send.  Every request is answered by
 * a stub handler that checks what h2.c made of it (the request line, the
 * target, the fields) and replies with a small body; the bytes sent go
 * nowhere.  No threads: a stream that would need one gets its 503.  At
 * the end the connection is closed as the sweep closes an idle one
 * (GOAWAY, everything freed: LeakSanitizer sees what was not).
 */
#include "../../src/h2.c"
#include "../../src/request.c"
#include "../../src/util.c"

#include "fuzz.h"

static size_t wrote;

static ssize_t
fake_read(struct conn *c, void *p, size_t n)
{
	(void)c; (void)p; (void)n;
	errno = EAGAIN;
	return -1;
}

static int
fake_writev(struct conn *c, struct iovec *iov, int n, int flags)
{
	(void)c; (void)flags;
	while (n-- > 0)
		wrote += iov[n].iov_len;
	return 0;
}

static int
fake_wait(struct conn *c, short ev, int ms)
{
	(void)c; (void)ev; (void)ms;
	return 0;
}

static void
fake_close(struct conn *c, int drain)
{
	(void)c; (void)drain;
}

static const struct transport fake = {
	.t_read = fake_read, .t_writev = fake_writev, .t_wait = fake_wait,
	.t_close = fake_close,
};

/* What h2.c hands a handler must hold together. */
static void
check_request(const struct request *r)
{
	size_t n = strlen(r->req_line);
	int i;

	CHECK(r->req_h2 == 1 && r->req_minor == 1);
	CHECK(n >= 10 && memcmp(r->req_line + n - 9, " HTTP/2.0", 9) == 0);
	CHECK(r->req_method_len < n && r->req_line[r->req_method_len] == ' ');
	CHECK(r->req_target == r->req_line + r->req_method_len + 1);
	CHECK(r->req_target_len + r->req_method_len + 10 == n);
	CHECK(r->req_path_len <= r->req_target_len);
	CHECK(r->req_query == NULL ||
	    r->req_query == r->req_target + r->req_path_len + 1);
	CHECK(r->req_nhdrs >= 0 && r->req_nhdrs <= MAX_HEADERS);
	for (i = 0; i < r->req_nhdrs; i++)
		CHECK(strlen(r->req_hdrs[i].h_name) == r->req_hdrs[i].h_name_len &&
		    r->req_hdrs[i].h_value != NULL);
	CHECK(r->req_clen >= REQ_CLEN_STREAM);
}

int
response_send(struct conn *c, struct request *r, struct reply *rp,
    struct response *rs)
{
	return c->c_proto->p_respond(c, r, rp, rs);
}

int
response_error(struct conn *c, struct request *r, struct reply *rp, int st)
{
	char f[64];
	struct response rs;

	response_init(&rs, st, f, sizeof(f));
	response_field(&rs, "Content-Type", "text/plain");
	rs.rs_src = SRC_MEM;
	rs.rs_mem = "error\n";
	rs.rs_len = 6;
	return response_send(c, r, rp, &rs);
}

enum route
route_request(struct request *r)
{
	check_request(r);
	return ROUTE_FILE;
}

int
route_serve_as(struct conn *c, struct request *r, struct reply *rp,
    enum route rt)
{
	(void)rt;
	return response_error(c, r, rp, r->req_method == M_HEAD ? 204 : 200);
}

int
route_serve(struct conn *c, struct request *r, struct reply *rp)
{
	return route_serve_as(c, r, rp, route_request(r));
}

int server_thread(void *(*fn)(void *), void *arg) { (void)fn; (void)arg; return -1; }
const unsigned char *server_peer(const struct conn *c)
    { static const unsigned char key[PEER_KEY]; (void)c; return key; }
int peer_thread(const unsigned char *k, int d) { (void)k; (void)d; return 0; }
void log_msg(const char *l, const char *fmt, ...) { (void)l; (void)fmt; }
void log_access(const struct conn *c, const struct access *a) { (void)c; (void)a; }
void log_accepted(const struct conn *c, const struct request *r) { (void)c; (void)r; }

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	static char buf[HEAD_MAX + 1];
	struct conn c = { .c_fd = -1, .c_tr = &fake, .c_proto = &h2_protocol,
	    .c_fresh = 1, .c_buf = buf };
	char out[H2_OUT];
	struct h2 *h;
	size_t pos, part;

	if (!ready)
		CHECK(h2_init() == 0);
	ready = 1;
	if (size == 0 || (h = h2_start(&c)) == NULL)
		return 0;
	wrote = 0;
	h->h_out = out;
	pos = (size_t)(((unsigned long long)data[0] * (size + 1)) >> 8);
	for (part = 0; part < 2; part++) {
		size_t from = part == 0 ? 0 : pos, to = part == 0 ? pos : size;

		if (to > from)
			h2_feed(h, (const char *)data + from, to - from);
		h2_run(h);
		CHECK(nghttp2_session_send(h->h_ses) == 0 || h->h_fail);
		(void)h2_flush(h, 0);
		CHECK(h->h_threads == 0);
	}
	h->h_out = NULL;
	h2_close(&c);
	CHECK(c.c_h2 == NULL);
	CHECK(wrote > 0);	/* our SETTINGS at least */
	return 0;
}
