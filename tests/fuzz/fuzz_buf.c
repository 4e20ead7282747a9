/*
 * fuzz_buf.c - struct buf, the bounded buffer every head and log line is
 * built in (the inline functions of src/mrhttpd.h, buf_uint, buf_hex,
 * buf_pad and buf_url of src/util.c).
 *
 * The input is a little program.  It starts with an init (2 bytes: the
 * size), then each byte picks an operation and the bytes after it are
 * its operands:
 *
 *   0 init  2 bytes: size 0-2047     5 hex   as uint, then 1 byte: upper
 *   1 add   1 byte n, n bytes        6 pad   4 bytes value, 1 byte width
 *   2 lit   1 byte: which literal    7 url   1 byte slash, 1 byte n, n bytes
 *   3 char  1 byte                   8 cstr
 *   4 uint  1 byte k, k bytes (LE)   9 str   1 byte n, n bytes (to a NUL)
 *
 * The buffer is a heap block of exactly the size, plus the one byte
 * buf_cstr needs after b_end.  A model written here keeps what the block
 * must hold: each append is formatted independently (snprintf, or the
 * rules of RFC 3986 for buf_url) and goes in whole when it fits, else
 * sets b_over and leaves no trace; buf_url appends byte by byte (each
 * "%XX" whole).  After every operation: b_start and b_end stay put,
 * b_start <= b_p <= b_end, buf_len is the model's length, b_over is set
 * exactly when some append did not fit, and every byte of the block,
 * the one after b_end included, is what the model says.
 *
 * It also checks that once b_over is set nothing more is added, so that
 * the contents stay a prefix of everything appended.
 */
#include "../../src/util.c"

#include <inttypes.h>

#include "fuzz.h"

enum { BUF_SIZE_MAX = 2048, FILL = 0x5a };

struct model {
	char		*mem;		/* the block: size + 1 bytes */
	size_t		 size;
	char		*shadow;	/* what the block must hold */
	size_t		 len;
	int		 over;
	struct buf	 b;
};

static void
m_init(struct model *m, size_t size)
{
	free(m->mem);
	free(m->shadow);
	m->size = size;
	m->mem = malloc(size + 1);
	m->shadow = malloc(size + 1);
	if (m->mem == NULL || m->shadow == NULL)
		abort();
	memset(m->mem, FILL, size + 1);
	memset(m->shadow, FILL, size + 1);
	m->len = 0;
	m->over = 0;
	buf_init(&m->b, m->mem, size);
}

/* One append as the model sees it: all of p[0..n) or nothing. */
static void
m_add(struct model *m, const void *p, size_t n)
{
	if (m->over)
		return;
	if (n > m->size - m->len) {
		m->over = 1;
		return;
	}
	memcpy(m->shadow + m->len, p, n);
	m->len += n;
}

static void
m_check(const struct model *m)
{
	const struct buf *b = &m->b;

	CHECK(b->b_start == m->mem && b->b_end == m->mem + m->size);
	CHECK(b->b_p >= b->b_start && b->b_p <= b->b_end);
	CHECK(buf_len(b) == m->len);
	CHECK(buf_room(b) == m->size - m->len);
	CHECK(!b->b_over == !m->over);
	CHECK(memcmp(m->mem, m->shadow, m->size + 1) == 0);
}

static int
unreserved(unsigned char c, int slash)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	    c == '~' || (slash && c == '/');
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m = { 0 };
	struct cursor c;
	const uint8_t *p;
	char tmp[64], *s;
	unsigned long long v;
	size_t n, i;
	unsigned op, w;
	int width, k;

	cur_init(&c, data, size);
	m_init(&m, (size_t)cur_le(&c, 2) % BUF_SIZE_MAX);
	m_check(&m);
	while (c.c_left > 0) {
		op = cur_byte(&c) % 10;
		switch (op) {
		case 0:		/* init */
			m_init(&m, (size_t)cur_le(&c, 2) % BUF_SIZE_MAX);
			break;
		case 1:		/* add */
			n = cur_bytes(&c, cur_byte(&c), &p);
			s = fuzz_dup(p, n, 0);	/* ASan sees over-reads */
			buf_add(&m.b, s, n);
			m_add(&m, p, n);
			free(s);
			break;
		case 2:		/* lit */
			switch (cur_byte(&c) % 4) {
			case 0:
				buf_lit(&m.b, "");
				m_add(&m, "", 0);
				break;
			case 1:
				buf_lit(&m.b, "\r\n");
				m_add(&m, "\r\n", 2);
				break;
			case 2:
				buf_lit(&m.b, "HTTP/1.1 ");
				m_add(&m, "HTTP/1.1 ", 9);
				break;
			default:
				buf_lit(&m.b, "\r\nContent-Length: ");
				m_add(&m, "\r\nContent-Length: ", 18);
				break;
			}
			break;
		case 3:		/* char */
			tmp[0] = (char)cur_byte(&c);
			buf_char(&m.b, tmp[0]);
			m_add(&m, tmp, 1);
			break;
		case 4:		/* uint */
		case 5:		/* hex */
			v = cur_le(&c, (int)(cur_byte(&c) % 9));
			if (op == 4) {
				buf_uint(&m.b, v);
				k = snprintf(tmp, sizeof(tmp), "%llu", v);
			} else {
				w = cur_byte(&c) & 1;
				buf_hex(&m.b, v, (int)w);
				k = snprintf(tmp, sizeof(tmp),
				    w ? "%llX" : "%llx", v);
			}
			m_add(&m, tmp, (size_t)k);
			break;
		case 6:		/* pad: width 1-10, others mean 10 */
			v = cur_le(&c, 4);
			width = (int)(signed char)cur_byte(&c);
			buf_pad(&m.b, (unsigned)v, width);
			if (width < 1 || width > 10)
				width = 10;
			k = snprintf(tmp, sizeof(tmp), "%0*u", width,
			    (unsigned)v);
			if (k > width)		/* does not fit: all nines */
				memset(tmp, '9', (size_t)(k = width));
			m_add(&m, tmp, (size_t)k);
			break;
		case 7:		/* url */
			w = cur_byte(&c) & 1;
			n = cur_bytes(&c, cur_byte(&c), &p);
			s = fuzz_dup(p, n, 0);
			buf_url(&m.b, s, n, (int)w);
			free(s);
			for (i = 0; i < n; i++) {
				if (unreserved(p[i], (int)w)) {
					m_add(&m, p + i, 1);
				} else {
					snprintf(tmp, sizeof(tmp), "%%%02X",
					    p[i]);
					m_add(&m, tmp, 3);
				}
			}
			break;
		case 8:		/* cstr: the NUL goes at b_p, within size + 1 */
			s = buf_cstr(&m.b);
			CHECK(s == m.mem);
			m.shadow[m.len] = '\0';
			break;
		default:	/* str: up to a NUL */
			n = cur_bytes(&c, cur_byte(&c), &p);
			s = fuzz_dup(p, n, 1);
			buf_str(&m.b, s);
			m_add(&m, s, strlen(s));
			free(s);
			break;
		}
		m_check(&m);
	}
	free(m.mem);
	free(m.shadow);
	return 0;
}
