/*
 * fuzz_range.c - range_parse(), the Range header of a GET (static in
 * src/file.c, so the file is included).
 *
 * Input: 8 bytes that give the file's size, then the header's value (a
 * NUL-terminated, exactly sized heap copy).  The low three bits of the
 * first byte pick the kind of size, so that the edges come up often:
 * 0, 1, small (< 4096), around 2^32, the largest off_t, a little less
 * than that, or any non-negative 61-bit value.
 *
 * Invariants: the result is -1, 0 or 1; with 1, 0 <= off < size,
 * 1 <= len and off + len <= size; and it agrees with a model of RFC 9110
 * 14.1.2 written here (one range only; the syntax mrhttpd does not follow
 * is ignored, 0; an unsatisfiable range is -1).
 */
#include "../../src/file.c"
#include "../../src/util.c"

#include "fuzz.h"

/* --- the model --------------------------------------------------------------- */
#define OFF_MAX	((off_t)0x7fffffffffffffffLL)

/* Digits, at least one; NULL when none.  A number too big for an off_t
 * reads as OFF_MAX (2^63 - 1), as in range_pos(). */
static const char *
model_num(const char *s, off_t *v)
{
	off_t n = 0;

	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++)
		n = n > (OFF_MAX - (*s - '0')) / 10 ? OFF_MAX :
		    n * 10 + (*s - '0');
	*v = n;
	return s;
}

static int
model_range(const char *v, off_t size, off_t *off, off_t *len)
{
	off_t first, last;
	const char *s;

	if (strncasecmp(v, "bytes=", 6) != 0 || strchr(v, ',') != NULL)
		return 0;
	v += 6;
	if (v[0] == '-') {
		/* suffix-range: the last "last" bytes */
		if ((s = model_num(v + 1, &last)) == NULL || *s != '\0')
			return 0;
		if (last == 0)
			return -1;
		if (size == 0)
			return 0;	/* satisfiable, but nothing to send */
		*len = last < size ? last : size;
		*off = size - *len;
		return 1;
	}
	if ((s = model_num(v, &first)) == NULL || *s != '-')
		return 0;
	s++;
	if (*s == '\0') {
		last = OFF_MAX;
	} else {
		if ((s = model_num(s, &last)) == NULL || *s != '\0')
			return 0;
		if (last < first)
			return 0;	/* invalid: the header is ignored */
	}
	if (first >= size)
		return -1;
	if (last > size - 1)
		last = size - 1;
	*off = first;
	*len = last - first + 1;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c;
	const uint8_t *p;
	uint64_t u;
	off_t fsize, off = -7, len = -7, moff = -7, mlen = -7;
	char *v;
	size_t n;
	int rc, mrc;

	cur_init(&c, data, size);
	u = cur_le(&c, 8);
	switch (u & 7) {
	case 0:
		fsize = 0;
		break;
	case 1:
		fsize = 1;
		break;
	case 2:
		fsize = (off_t)((u >> 3) % 4096);
		break;
	case 3:
		fsize = (off_t)(0xffffff00ULL + ((u >> 3) & 0x1ff));
		break;
	case 4:
		fsize = OFF_MAX;
		break;
	case 5:
		fsize = OFF_MAX - (off_t)((u >> 3) & 0xffff);
		break;
	default:
		fsize = (off_t)(u >> 3);
		break;
	}
	n = cur_bytes(&c, size, &p);
	v = fuzz_dup(p, n, 1);

	rc = range_parse(v, fsize, &off, &len);
	CHECK(rc == -1 || rc == 0 || rc == 1);
	if (rc == 1) {
		CHECK(off >= 0 && off < fsize);
		CHECK(len >= 1);
		CHECK(len <= fsize - off);	/* off + len <= size, no overflow */
	}
	mrc = model_range(v, fsize, &moff, &mlen);
	CHECK(rc == mrc);
	if (rc == 1)
		CHECK(off == moff && len == mlen);
	free(v);
	return 0;
}
