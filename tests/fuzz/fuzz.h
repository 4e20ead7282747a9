/*
 * fuzz.h - what every libFuzzer harness in tests/fuzz/ shares: the entry
 * point's prototype, CHECK() for invariants, a cursor over the input and
 * the stubs for functions a harness links against but must never reach.
 *
 * A harness #includes the src/ file it tests (so static functions are in
 * reach) and then this file.  A broken invariant prints what broke and
 * where, then __builtin_trap(): libFuzzer reports a deadly signal and
 * keeps the input as a crash artifact.
 */
#ifndef MRHTTPD_FUZZ_H
#define MRHTTPD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int	 LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void __attribute__((noreturn, unused))
fuzz_fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "%s:%d: invariant violated: %s\n", file, line, what);
	fflush(stderr);
	__builtin_trap();
}

#define CHECK(cond) \
	do { if (!(cond)) fuzz_fail(#cond, __FILE__, __LINE__); } while (0)

/* A stub the harness never calls: reaching it is a harness bug. */
#define UNREACHED() fuzz_fail(__func__, "stub called", 0)

/* Reads the input front to back; past its end, every read gives zeros. */
struct cursor {
	const uint8_t	*c_p;
	size_t		 c_left;
};

static inline void __attribute__((unused))
cur_init(struct cursor *c, const uint8_t *p, size_t n)
{
	c->c_p = p;
	c->c_left = n;
}

static inline unsigned __attribute__((unused))
cur_byte(struct cursor *c)
{
	if (c->c_left == 0)
		return 0;
	c->c_left--;
	return *c->c_p++;
}

/* n bytes (at most 8), little-endian */
static inline uint64_t __attribute__((unused))
cur_le(struct cursor *c, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)cur_byte(c) << (8 * i);
	return v;
}

/* Up to n bytes: *p points at them, the count is returned. */
static inline size_t __attribute__((unused))
cur_bytes(struct cursor *c, size_t n, const uint8_t **p)
{
	if (n > c->c_left)
		n = c->c_left;
	*p = c->c_p;
	c->c_p += n;
	c->c_left -= n;
	return n;
}

/* An exactly sized heap copy of p[0..n), plus a NUL when nul is set, so
 * that ASan sees any read past the end.  Never NULL. */
static inline char * __attribute__((unused))
fuzz_dup(const void *p, size_t n, int nul)
{
	char *s = malloc(n + (nul ? 1 : 0) + (n == 0 && !nul));

	if (s == NULL)
		abort();
	if (n > 0)
		memcpy(s, p, n);
	if (nul)
		s[n] = '\0';
	return s;
}

#endif
