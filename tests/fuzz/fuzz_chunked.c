/*
 * fuzz_chunked.c - body_dechunk(), the chunked framing of a request body.
 *
 * Input: a header of 8 bytes, then the raw body bytes.
 *   byte 0     low two bits: the limit b_max: 0 none (-1), 1 byte 1 (0-255),
 *              2 bytes 1-4 (32 bits), 3 huge (LLONG_MAX - byte 1)
 *   bytes 5-7  piece sizes, used in turn: the body arrives in reads of
 *              1-255 bytes, 0 meaning all that is left
 * The body is fed in those pieces, each an exactly sized heap copy, to a
 * struct body set up as body_start() sets it for a chunked request, as
 * body_read() does; then whole, to a fresh one.
 *
 * Invariants: a result is a count or -400/-413; data out never exceeds
 * the bytes consumed (per call and in all); used <= got, and less only
 * once the body is done; b_total is the data delivered and stays within
 * b_max; once CH_DONE, nothing more is consumed; and the pieces give the
 * same data, end and error as the whole.
 */
#include "../../src/body.c"
#include "../../src/util.c"

#include "fuzz.h"

struct run {
	ssize_t		 err;		/* 0, or the error */
	size_t		 used;		/* raw bytes consumed */
	size_t		 out;		/* data bytes delivered, in data[] */
	int		 state;
	long long	 total, left;
};

static void
start(struct body *b, long long max)
{
	/* as body_start() for a chunked request */
	memset(b, 0, sizeof(*b));
	b->b_chunked = 1;
	b->b_left = 0;
	b->b_max = max;
	b->b_state = CH_SIZE;
}

static void
check_body(const struct body *b, const struct run *run)
{
	CHECK(b->b_state >= CH_SIZE && b->b_state <= CH_DONE);
	CHECK(b->b_left >= 0);
	CHECK(b->b_total >= 0 && (size_t)b->b_total == run->out);
	CHECK(b->b_max < 0 || b->b_total <= b->b_max);
	CHECK(run->out <= run->used);
}

/* Feeds raw[0..n) in pieces (sizes from sz[], 0: the rest); data to out. */
static void
feed(long long max, const uint8_t *raw, size_t n, const uint8_t *sz,
    char *out, struct run *run)
{
	struct body b;
	size_t piece, used, k = 0;
	ssize_t rc;
	char *p;

	memset(run, 0, sizeof(*run));
	start(&b, max);
	while (run->used < n && b.b_state != CH_DONE) {
		piece = sz != NULL && sz[k % 3] != 0 ? sz[k % 3] : n;
		k++;
		if (piece > n - run->used)
			piece = n - run->used;
		p = fuzz_dup(raw + run->used, piece, 0);
		used = (size_t)-1;
		rc = body_dechunk(&b, p, piece, &used);
		if (rc < 0) {
			CHECK(rc == -400 || rc == -413);
			free(p);
			run->err = rc;
			break;
		}
		CHECK(used <= piece);
		CHECK(used == piece || b.b_state == CH_DONE);
		CHECK((size_t)rc <= used);	/* data is part of what was read */
		memcpy(out + run->out, p, (size_t)rc);
		run->out += (size_t)rc;
		run->used += used;
		free(p);
		check_body(&b, run);
	}
	if (run->err == 0 && b.b_state == CH_DONE) {
		/* the rest is the next request's: a further call takes none */
		piece = n - run->used;
		p = fuzz_dup(raw + run->used, piece, 0);
		used = (size_t)-1;
		rc = body_dechunk(&b, p, piece, &used);
		CHECK(rc == 0 && used == 0);
		CHECK(b.b_state == CH_DONE);
		free(p);
		check_body(&b, run);
	}
	run->state = b.b_state;
	run->total = b.b_total;
	run->left = b.b_left;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c;
	struct run pieces, whole;
	const uint8_t *raw;
	uint8_t sz[3];
	long long max;
	unsigned mode;
	uint64_t v;
	char *out1, *out2;
	size_t n;

	cur_init(&c, data, size);
	mode = cur_byte(&c);
	v = cur_le(&c, 4);
	sz[0] = (uint8_t)cur_byte(&c);
	sz[1] = (uint8_t)cur_byte(&c);
	sz[2] = (uint8_t)cur_byte(&c);
	switch (mode & 3) {
	case 0:
		max = -1;
		break;
	case 1:
		max = (long long)(v & 0xff);
		break;
	case 2:
		max = (long long)v;
		break;
	default:
		max = 0x7fffffffffffffffLL - (long long)(v & 0xff);
		break;
	}
	n = cur_bytes(&c, size, &raw);

	out1 = malloc(n + 1);
	out2 = malloc(n + 1);
	if (out1 == NULL || out2 == NULL)
		abort();
	feed(max, raw, n, sz, out1, &pieces);
	feed(max, raw, n, NULL, out2, &whole);

	/* how the bytes arrive changes nothing */
	CHECK(pieces.err == whole.err);
	if (whole.err == 0) {
		CHECK(pieces.used == whole.used);
		CHECK(pieces.out == whole.out);
		CHECK(memcmp(out1, out2, whole.out) == 0);
		CHECK(pieces.state == whole.state);
		CHECK(pieces.total == whole.total);
		CHECK(pieces.left == whole.left);
	}
	free(out1);
	free(out2);
	return 0;
}
