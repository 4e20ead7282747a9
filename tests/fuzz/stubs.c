/*
 * stubs.c - what the server's other files define, for the harnesses that
 * include one file of src/ and must link without the rest.  Linked into
 * every harness; each stub is weak, so the file a harness includes wins
 * for whatever it defines itself.  A harness never calls these: reaching
 * one is a harness bug, and traps.
 */
#include "../../src/mrhttpd.h"
#include "../../src/log.h"
#include "../../src/response.h"
#include "../../src/route.h"

#include "fuzz.h"

#define WEAK	__attribute__((weak))

WEAK struct settings settings;
WEAK __thread int server_turn;
WEAK int server_stop;

WEAK int server_yield_turn(void) { UNREACHED(); }
WEAK int server_shed_idle(void) { UNREACHED(); }
WEAK int server_wait(struct conn *c, short ev, int ms)
    { (void)c; (void)ev; (void)ms; UNREACHED(); }
WEAK int server_waiting(struct conn *c, int on)
    { (void)c; (void)on; UNREACHED(); }
int h2_stream_wait(struct conn *, int);	/* h2.h's, with HTTP2=1 */
WEAK int h2_stream_wait(struct conn *c, int on)
    { (void)c; (void)on; UNREACHED(); }
void h2_stream_poke(struct conn *);	/* the same */
WEAK void h2_stream_poke(struct conn *c) { (void)c; UNREACHED(); }
void h2_stream_cut(struct conn *);	/* the same */
WEAK void h2_stream_cut(struct conn *c) { (void)c; UNREACHED(); }
const unsigned char *h2_stream_peer(struct conn *);	/* the same */
WEAK const unsigned char *h2_stream_peer(struct conn *c)
    { (void)c; UNREACHED(); }
WEAK const unsigned char *server_peer(const struct conn *c)
    { (void)c; UNREACHED(); }
int peer_cgi(const unsigned char *, int);	/* peer.h's, with the limit */
WEAK int peer_cgi(const unsigned char *k, int d)
    { (void)k; (void)d; UNREACHED(); }
WEAK int server_thread(void *(*fn)(void *), void *arg)
    { (void)fn; (void)arg; UNREACHED(); }
WEAK const char *mime_lookup(const char *s, size_t n)
    { (void)s; (void)n; UNREACHED(); }
WEAK int conn_copyfile(struct conn *c, int fd, off_t off, off_t n)
    { (void)c; (void)fd; (void)off; (void)n; UNREACHED(); }
WEAK ssize_t body_read(struct conn *c, struct body *b, char *p, size_t n)
    { (void)c; (void)b; (void)p; (void)n; UNREACHED(); }
WEAK int body_pending(const struct body *b) { (void)b; UNREACHED(); }
WEAK int body_start(struct conn *c, struct request *r, struct body *b,
    long long m) { (void)c; (void)r; (void)b; (void)m; UNREACHED(); }
WEAK void file_cache_flush(void) { UNREACHED(); }
WEAK int file_serve(struct conn *c, struct request *r, struct reply *rp)
    { (void)c; (void)r; (void)rp; UNREACHED(); }
WEAK int cgi_below(const char *p, ssize_t n) { (void)p; (void)n; UNREACHED(); }
WEAK int dirlist_serve(struct conn *c, struct request *r, struct reply *rp,
    int fd) { (void)c; (void)r; (void)rp; (void)fd; UNREACHED(); }
WEAK int response_error(struct conn *c, struct request *r, struct reply *rp,
    int s) { (void)c; (void)r; (void)rp; (void)s; UNREACHED(); }
WEAK int response_error_field(struct conn *c, struct request *r,
    struct reply *rp, int s, const char *n, const char *v)
    { (void)c; (void)r; (void)rp; (void)s; (void)n; (void)v; UNREACHED(); }
WEAK int response_send(struct conn *c, struct request *r, struct reply *rp,
    struct response *rs)
    { (void)c; (void)r; (void)rp; (void)rs; UNREACHED(); }
WEAK enum route route_request(struct request *r) { (void)r; UNREACHED(); }
WEAK const char *request_find(const struct request *r, const char *name,
    size_t n) { (void)r; (void)name; (void)n; UNREACHED(); }
WEAK void log_msg(const char *level, const char *fmt, ...)
    { (void)level; (void)fmt; UNREACHED(); }
