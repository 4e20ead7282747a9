/*
 * todo.h - TODO rows for the table-driven unit tests, on top of tap.h.
 *
 * A row whose expectation comes from a standard (or from the function's
 * own comment) but which the code does not meet yet stays in its table,
 * with the reason in its todo field; its checks go through the *_todo
 * forms below:
 *
 *	is_int_todo(row->todo, got, want, "%s: result", row->name);
 *
 * With todo NULL they are plain checks, as is_int() and is_mem() of
 * tap.h.  With a reason, the check is a TAP TODO: "not ok N - description
 * # TODO reason" while the code still disagrees, which does not fail the
 * suite, and "ok ... # TODO" once it agrees, which prove reports as a
 * bonus to act on.  A "#" line under it says which, with the row.
 */
#ifndef TODO_H
#define TODO_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

static int todo_rows_failing;	/* TODO checks that still disagree */
static int todo_rows_passing;	/* TODO checks the code meets now */

/* Formats a check's description into buf. */
static TAP_UNUSED void
todo_name(char *buf, size_t sz, const char *fmt, va_list ap)
{
	if (vsnprintf(buf, sz, fmt, ap) < 0)
		buf[0] = '\0';
}

/* The result line of a TODO check, and a note on its outcome. */
static TAP_UNUSED void
todo_result(const char *file, int line, int pass, const char *todo,
    const char *name)
{
	tap_ok(file, line, pass, "%s # TODO %s", name, todo);
	if (!pass)
		tap_failed--;	/* known: the binary still exits 0 */
	if (pass) {
		todo_rows_passing++;
		printf("#   TODO passes now (%s line %d", file, line);
	} else {
		todo_rows_failing++;
		printf("#   TODO still fails (%s line %d", file, line);
	}
	if (tap_row_line != 0)
		printf(", table row at line %d", tap_row_line);
	printf(")%s\n", pass ? ": drop the TODO mark" : "");
}

static TAP_UNUSED TAP_PRINTF(6, 7) int
todo_is_int(const char *file, int line, const char *todo, long long got,
    long long want, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	todo_name(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (todo == NULL)
		return tap_is_int(file, line, got, want, "%s", name);
	todo_result(file, line, got == want, todo, name);
	if (got != want)
		printf("#          got: %lld\n#     expected: %lld\n", got,
		    want);
	return 1;
}

/* As is_mem(): got[0..gotlen) against the string want; NULL equals NULL. */
static TAP_UNUSED TAP_PRINTF(7, 8) int
todo_is_mem(const char *file, int line, const char *todo, const char *got,
    size_t gotlen, const char *want, const char *fmt, ...)
{
	char name[512];
	va_list ap;
	int pass;

	va_start(ap, fmt);
	todo_name(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (todo == NULL)
		return tap_is_mem(file, line, got, gotlen, want, "%s", name);
	if (got == NULL || want == NULL)
		pass = got == want;
	else
		pass = gotlen == strlen(want) && memcmp(got, want, gotlen) == 0;
	todo_result(file, line, pass, todo, name);
	if (!pass)
		tap_mem_diag(got, gotlen, want, want == NULL ? 0 : strlen(want));
	return 1;
}

/* As is_mem(), with the expected bytes given by length (they may hold NULs). */
static TAP_UNUSED TAP_PRINTF(8, 9) int
todo_is_mem_n(const char *file, int line, const char *todo, const char *got,
    size_t gotlen, const char *want, size_t wantlen, const char *fmt, ...)
{
	char name[512];
	va_list ap;
	int pass;

	va_start(ap, fmt);
	todo_name(name, sizeof(name), fmt, ap);
	va_end(ap);
	pass = gotlen == wantlen && (wantlen == 0 || memcmp(got, want,
	    wantlen) == 0);
	if (todo == NULL)
		tap_ok(file, line, pass, "%s", name);
	else
		todo_result(file, line, pass, todo, name);
	if (!pass)
		tap_mem_diag(got, gotlen, want, wantlen);
	return todo != NULL || pass;
}

#define is_int_todo(todo, got, want, ...) todo_is_int(__FILE__, __LINE__, \
	(todo), (long long)(got), (long long)(want), __VA_ARGS__)
#define is_mem_todo(todo, got, gotlen, want, ...) todo_is_mem(__FILE__, \
	__LINE__, (todo), (got), (gotlen), (want), __VA_ARGS__)
/* is_bytes_todo(todo, got, gotlen, want, wantlen, fmt, ...): as
 * is_mem_todo(), the expected bytes given with their length (NULs) */
#define is_bytes_todo(todo, got, gotlen, want, wantlen, ...) \
	todo_is_mem_n(__FILE__, __LINE__, (todo), (got), (gotlen), (want), \
	(wantlen), __VA_ARGS__)

/* A summary note at the end; call before done_testing(). */
static TAP_UNUSED void
todo_summary(void)
{
	if (todo_rows_failing + todo_rows_passing > 0)
		note("TODO checks: %d still fail, %d pass now",
		    todo_rows_failing, todo_rows_passing);
}

#endif
