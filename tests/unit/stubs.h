/*
 * stubs.h - for a unit test that #includes a file of src/: what that file
 * calls in the server's other files, which the test does not link.
 * Include it first, before the src/ file.
 *
 * Each name is a weak reference (#pragma weak).  Left undefined, it links
 * as address 0: the test builds without the rest of the server and
 * without knowing any of their types.  A call would jump to 0 and kill
 * the test with SIGSEGV, which tests/t/00-unit.t reports; the functions
 * under test never make one.  Where the included file defines a name
 * itself, that definition just becomes weak; where a header makes it
 * static, the pragma does nothing.
 *
 * One list for every test, kept wide on purpose while src/ is being
 * refactored: a name that nothing declares any more costs nothing (clang
 * warns "weak identifier never declared" under no -W option of its own,
 * so that is silenced here), and a new callee is one more line.
 */
#ifndef STUBS_H
#define STUBS_H

#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Weverything"
#endif

/* server.c, main.c */
#pragma weak settings
#pragma weak server_turn
#pragma weak server_yield_turn
#pragma weak server_shed_idle
#pragma weak server_wait
#pragma weak server_waiting
#pragma weak server_thread
#pragma weak server_peer
/* peer.c (MAX_CONNECTIONS_PER_IP) */
#pragma weak peer_cgi
/* the transport (transport.c; the rest are inlines over c_tr) */
#pragma weak conn_copyfile
/* body.c */
#pragma weak body_read
#pragma weak body_pending
/* file.c, cgi.c, dirlist.c, mime.c */
#pragma weak file_serve
#pragma weak cgi_below
#pragma weak dirlist_serve
#pragma weak mime_lookup
/* response.c, route.c */
#pragma weak response_error
#pragma weak response_error_field
#pragma weak response_send
#pragma weak route_request
/* request.c */
#pragma weak request_find
/* log.c (LOG_LEVEL > 0) */
#pragma weak log_msg

#ifdef __clang__
#pragma clang diagnostic pop
#endif

#endif
