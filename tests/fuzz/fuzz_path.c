/*
 * fuzz_path.c - url_decode() then path_normalize(), as route.c's decode_path() does
 * with a request's path.  A property test:
 *
 *   url_decode    agrees with a plain decoder written here; the result
 *                 has no NUL and fits its buffer exactly (a heap buffer
 *                 of the decoded length + 1, and one byte less must fail)
 *   normalise     agrees with a model that resolves the segments on a
 *                 stack; a success starts with '/', has no "//", no "."
 *                 or ".." segment, never climbs above the root (the
 *                 model fails then), is no longer than its input, and
 *                 normalising it again changes nothing
 */
#include "../../src/util.c"

#include "fuzz.h"

/* A decoder of our own: %XX (either case) to a byte; NUL, a short or bad
 * escape, or more than dstsz - 1 bytes is a failure (-1). */
static ssize_t
model_decode(const uint8_t *s, size_t n, char *dst, size_t dstsz)
{
	static const char digits[] = "0123456789abcdef";
	size_t i = 0, o = 0;
	const char *h, *l;
	int c;

	while (i < n) {
		c = s[i++];
		if (c == '%') {
			if (n - i < 2)
				return -1;
			h = s[i] ? strchr(digits, s[i] | (s[i] >= 'A' &&
			    s[i] <= 'Z' ? 0x20 : 0)) : NULL;
			l = s[i + 1] ? strchr(digits, s[i + 1] | (s[i + 1] >=
			    'A' && s[i + 1] <= 'Z' ? 0x20 : 0)) : NULL;
			if (h == NULL || l == NULL)
				return -1;
			c = (int)(h - digits) * 16 + (int)(l - digits);
			i += 2;
		}
		if (c == 0 || o >= dstsz - 1)
			return -1;
		dst[o++] = (char)c;
	}
	dst[o] = '\0';
	return (ssize_t)o;
}

/*
 * The normalised form of an absolute path by segments: empty and "."
 * ones vanish, ".." drops the one before (failure at the root).  A path
 * whose last segment is empty, "." or ".." names a directory and keeps a
 * trailing slash.  Writes out (as long as p), returns its length or -1,
 * or -2 past PATH_DEPTH_MAX slashes.
 */
static ssize_t
model_normalize(const char *p, char *out)
{
	size_t n = strlen(p), i = 0, seg, o = 1;
	size_t *starts = malloc(sizeof(size_t) * (n / 2 + 2));
	size_t depth = 0;
	int dir = 0;

	if (starts == NULL)
		abort();
	if (p[0] != '/') {
		free(starts);
		return -1;
	}
	out[0] = '/';
	while (i < n) {
		i++;				/* the '/' */
		for (seg = i; i < n && p[i] != '/'; i++)
			;
		dir = 0;
		if (i == seg || (i - seg == 1 && p[seg] == '.')) {
			dir = 1;
		} else if (i - seg == 2 && p[seg] == '.' && p[seg + 1] == '.') {
			if (depth == 0) {
				free(starts);
				return -1;
			}
			o = starts[--depth];
			dir = 1;
		} else {
			starts[depth++] = o;
			memcpy(out + o, p + seg, i - seg);
			o += i - seg;
			out[o++] = '/';
		}
	}
	free(starts);
	/* every kept segment got a slash after it: keep the last one only
	 * for a directory (and "/" is always "/") */
	if (o > 1 && !dir)
		o--;
	out[o] = '\0';
	for (i = 0, seg = 0; i < o; i++)	/* seg: the slashes */
		seg += out[i] == '/';
	return seg > PATH_DEPTH_MAX ? -2 : (ssize_t)o;
}

static void
check_normal(const char *p, ssize_t n)
{
	const char *s;

	CHECK(n >= 1 && (size_t)n == strlen(p));
	CHECK(p[0] == '/');
	CHECK(strstr(p, "//") == NULL);
	for (s = p; (s = strchr(s, '/')) != NULL; s++) {
		CHECK(!(s[1] == '.' && (s[2] == '/' || s[2] == '\0')));
		CHECK(!(s[1] == '.' && s[2] == '.' &&
		    (s[3] == '/' || s[3] == '\0')));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *dst, *exact, *model, *again;
	ssize_t n, m, k, mm;

	/* decode as route.c's decode_path() does, into PATH_MAX_LEN bytes */
	dst = malloc(PATH_MAX_LEN);
	model = malloc(PATH_MAX_LEN);
	if (dst == NULL || model == NULL)
		abort();
	n = url_decode((const char *)data, size, dst, PATH_MAX_LEN);
	k = model_decode(data, size, model, PATH_MAX_LEN);
	CHECK(n == k);
	CHECK(n >= -1 && n < PATH_MAX_LEN && (n < 0 || (size_t)n <= size));
	if (n < 0)
		goto out;
	CHECK(memcmp(dst, model, (size_t)n + 1) == 0);
	CHECK(strlen(dst) == (size_t)n);
	if (memchr(data, '%', size) == NULL)
		CHECK((size_t)n == size && memcmp(dst, data, size) == 0);

	/* into a buffer of exactly that size, and one byte too small */
	exact = malloc((size_t)n + 1);
	if (exact == NULL)
		abort();
	CHECK(url_decode((const char *)data, size, exact, (size_t)n + 1) == n);
	CHECK(memcmp(exact, dst, (size_t)n + 1) == 0);
	CHECK(url_decode((const char *)data, size, exact, (size_t)n) == -1);
	free(exact);

	/* normalise an exactly sized copy */
	exact = fuzz_dup(dst, (size_t)n, 1);
	m = path_normalize(exact);
	mm = model_normalize(dst, model);
	CHECK(m == mm);
	if (m >= 0) {
		CHECK(strcmp(exact, model) == 0);
		CHECK(m <= n);
		check_normal(exact, m);
		/* idempotent */
		again = fuzz_dup(exact, (size_t)m, 1);
		CHECK(path_normalize(again) == m);
		CHECK(strcmp(again, exact) == 0);
		free(again);
	} else {
		CHECK(m == -1 || m == -2);
	}
	free(exact);
 out:
	free(dst);
	free(model);
	return 0;
}
