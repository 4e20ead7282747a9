/*
 * tap.h - a tiny Test Anything Protocol helper for the C unit tests.
 *
 *	#include "tap.h"
 *	int
 *	main(void)
 *	{
 *		is_int(1 + 1, 2, "sum");
 *		is_str(s, "/a", "normalised %s", in);
 *		return done_testing();
 *	}
 *
 * Every check prints "ok N - description" or "not ok N - description" on
 * stdout; a failure adds "#" diagnostics naming the check's line and, inside
 * a table loop, the line of the table row (tap_row(row->line)).
 * done_testing() prints the plan (unless plan() did) and returns the exit
 * status: 0 only when every check passed and the plan, if any, was met.
 */
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAP_UNUSED __attribute__((unused))
#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))

static int tap_planned = -1;	/* -1: no plan() yet */
static int tap_run;
static int tap_failed;
static int tap_row_line;	/* line of the table row being checked, or 0 */

/* plan(N): announce N checks up front. */
static TAP_UNUSED void
plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/* tap_row(LINE): name the table row that following failures belong to. */
static TAP_UNUSED void
tap_row(int line)
{
	tap_row_line = line;
}

/* note(fmt, ...): a "#" comment line, shown by prove -v. */
static TAP_UNUSED TAP_PRINTF(1, 2) void
note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Prints the result line; returns pass, so callers can add diagnostics. */
static TAP_UNUSED int
tap_result(int pass, const char *file, int line, const char *fmt,
    va_list ap)
{
	tap_run++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	printf("\n");
	if (!pass) {
		printf("#   Failed test at %s line %d", file, line);
		if (tap_row_line != 0)
			printf(" (table row at line %d)", tap_row_line);
		printf("\n");
	}
	return pass;
}

/* Prints s[0..n) as a C string literal, escaping what is not printable. */
static TAP_UNUSED void
tap_print_mem(const char *s, size_t n)
{
	size_t i;
	unsigned char c;

	if (s == NULL) {
		printf("NULL");
		return;
	}
	putchar('"');
	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\r')
			printf("\\r");
		else if (c == '\n')
			printf("\\n");
		else if (c == '\t')
			printf("\\t");
		else if (c < ' ' || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static TAP_UNUSED TAP_PRINTF(4, 5) int
tap_ok(const char *file, int line, int pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_result(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

static TAP_UNUSED TAP_PRINTF(5, 6) int
tap_is_int(const char *file, int line, long long got, long long want,
    const char *fmt, ...)
{
	va_list ap;
	int pass = got == want;

	va_start(ap, fmt);
	tap_result(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#          got: %lld\n#     expected: %lld\n", got, want);
	return pass;
}

/* Compares the span got[0..gotlen) with want; NULL equals only NULL. */
/* n bytes of heap (1 when n is 0), exactly: ASan sees any read past
 * them.  Exits 99 when there are none. */
static TAP_UNUSED void *
tap_alloc(size_t n)
{
	void *p;

	if ((p = malloc(n == 0 ? 1 : n)) == NULL) {
		perror("malloc");
		exit(99);
	}
	return p;
}

/* The "got" and "expected" lines under a failed comparison of bytes. */
static TAP_UNUSED void
tap_mem_diag(const char *got, size_t gotlen, const char *want, size_t wantlen)
{
	printf("#          got: ");
	tap_print_mem(got, gotlen);
	printf("\n#     expected: ");
	tap_print_mem(want, wantlen);
	printf("\n");
}

static TAP_UNUSED int
tap_vis_mem(const char *file, int line, const char *got, size_t gotlen,
    const char *want, const char *fmt, va_list ap)
{
	int pass;

	if (got == NULL || want == NULL)
		pass = got == want;
	else
		pass = gotlen == strlen(want) && memcmp(got, want, gotlen) == 0;
	tap_result(pass, file, line, fmt, ap);
	if (!pass)
		tap_mem_diag(got, gotlen, want, want == NULL ? 0 : strlen(want));
	return pass;
}

static TAP_UNUSED TAP_PRINTF(6, 7) int
tap_is_mem(const char *file, int line, const char *got, size_t gotlen,
    const char *want, const char *fmt, ...)
{
	va_list ap;
	int pass;

	va_start(ap, fmt);
	pass = tap_vis_mem(file, line, got, gotlen, want, fmt, ap);
	va_end(ap);
	return pass;
}

static TAP_UNUSED TAP_PRINTF(5, 6) int
tap_is_str(const char *file, int line, const char *got, const char *want,
    const char *fmt, ...)
{
	va_list ap;
	int pass;

	va_start(ap, fmt);
	pass = tap_vis_mem(file, line, got, got == NULL ? 0 : strlen(got),
	    want, fmt, ap);
	va_end(ap);
	return pass;
}

/*
 * ok(cond, fmt, ...), is_int(got, want, fmt, ...), is_str(got, want, fmt, ...)
 * and is_mem(got, gotlen, want, fmt, ...) put the caller's line in the
 * diagnostics; each evaluates its arguments once and returns pass.
 */
#define ok(cond, ...)	tap_ok(__FILE__, __LINE__, (cond) ? 1 : 0, __VA_ARGS__)
#define is_int(got, want, ...) tap_is_int(__FILE__, __LINE__, \
	(long long)(got), (long long)(want), __VA_ARGS__)
#define is_str(got, want, ...) \
	tap_is_str(__FILE__, __LINE__, (got), (want), __VA_ARGS__)
#define is_mem(got, gotlen, want, ...) \
	tap_is_mem(__FILE__, __LINE__, (got), (gotlen), (want), __VA_ARGS__)

/*
 * done_testing(): prints the plan if plan() was not called; returns the
 * exit status for main: 0 when all passed, else the number of failures
 * (at most 254), or 255 when the plan was not met.
 */
static TAP_UNUSED int
done_testing(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_run);
	else if (tap_planned != tap_run) {
		printf("# Looks like you planned %d tests but ran %d.\n",
		    tap_planned, tap_run);
		fflush(stdout);
		return 255;
	}
	if (tap_failed != 0)
		printf("# Looks like you failed %d test%s of %d.\n",
		    tap_failed, tap_failed == 1 ? "" : "s", tap_run);
	fflush(stdout);
	return tap_failed > 254 ? 254 : tap_failed;
}

#endif
