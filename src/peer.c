/*
 * peer.c - how many connections each client address has open, so that one
 * address cannot take every slot (MAX_CONNECTIONS_PER_IP).
 *
 * A fixed open-addressing table with twice as many entries as there can
 * be connections, so it is never more than half full: no allocation, and
 * a lookup is a probe or two.  The hash is keyed with a random seed at
 * start-up, so that nobody can choose addresses that collide.  A lock is
 * taken per connection (accept and close), never per request.
 */
#include <sys/mman.h>
#include <sys/random.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <string.h>

#include "peer.h"

enum { PEER_TABLE = 2 * CONFIG_MAX_CONNECTIONS + 1 };
enum {
	PEER_THREADS,	/* its HTTP/2 streams on threads */
	PEER_CGI,	/* its CGI_MAX places (cgi.c) */
};

struct peer {
	unsigned char	 p_key[PEER_KEY];
	int		 p_n;		/* 0: the entry is free */
	int		 p_count[2];	/* of PEER_THREADS and PEER_CGI */
};

static struct peer *peers;	/* PEER_TABLE of them, mapped by peer_init */
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t seed;
static int seeded;

/* Maps the table, zero and untouched until clients come: out of .bss,
 * as the slots are (server.c).  Returns 0 or -1. */
int
peer_init(void)
{
	peers = mmap(NULL, PEER_TABLE * sizeof(*peers), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return peers == MAP_FAILED ? -1 : 0;
}

static void
peer_key(const struct sockaddr_storage *ss, unsigned char *key)
{
	memset(key, 0, PEER_KEY);
	if (ss->ss_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)ss)->sin6_addr,
		    PEER_KEY);
	} else if (ss->ss_family == AF_INET) {
		key[10] = key[11] = 0xff;	/* as ::ffff:a.b.c.d */
		memcpy(key + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	}
}

static size_t
peer_hash(const unsigned char *key)
{
	uint32_t h = seed ^ 2166136261u;
	int i;

	for (i = 0; i < PEER_KEY; i++)
		h = (h ^ key[i]) * 16777619u;
	h ^= h >> 15;
	return h % PEER_TABLE;
}

/* The entry of key, or the free one where it would go. */
static struct peer *
peer_find(const unsigned char *key)
{
	size_t i = peer_hash(key);

	while (peers[i].p_n != 0 && memcmp(peers[i].p_key, key, PEER_KEY) != 0)
		i = (i + 1) % PEER_TABLE;
	return &peers[i];
}

int
peer_add(const struct sockaddr_storage *ss, unsigned char *key)
{
	struct peer *p;
	int rc = 0;

	peer_key(ss, key);
	pthread_mutex_lock(&peer_lock);
	if (!seeded) {
		if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
			seed = (uint32_t)(uintptr_t)&seed;
		seeded = 1;
	}
	p = peer_find(key);
	if (p->p_n >= CONFIG_MAX_CONNECTIONS_PER_IP)
		rc = -1;
	else if (p->p_n++ == 0) {
		memcpy(p->p_key, key, PEER_KEY);
		p->p_count[PEER_THREADS] = p->p_count[PEER_CGI] = 0;
	}
	pthread_mutex_unlock(&peer_lock);
	return rc;
}

/* Adds delta to key's count of what, but not past max (0: no bound).
 * Returns the count then, or -1 (nothing counted) at max.  Only an
 * address with a connection open has an entry: what is counted ends
 * before its connections do. */
static int
peer_count(const unsigned char *key, int what, int delta, int max)
{
	struct peer *p;
	int *n, r = 0;

	pthread_mutex_lock(&peer_lock);
	p = peer_find(key);
	if (p->p_n > 0) {	/* else none of its connections is open */
		n = &p->p_count[what];
		if (delta > 0 && max > 0 && *n >= max)
			r = -1;
		else if (*n + delta >= 0)
			r = *n += delta;
	}
	pthread_mutex_unlock(&peer_lock);
	return r;
}

/*
 * An HTTP/2 stream of key's starts (+1) or ends (-1) on a thread of its
 * own.  An address gets as many such threads as it may have connections:
 * HTTP/1 holds one thread per busy connection, HTTP/2 up to H2_THREADS,
 * and without this share one address's streams could take every thread
 * the server allows.  Returns 0, or -1 (nothing counted) when key has its
 * share running.
 */
int
peer_thread(const unsigned char *key, int delta)
{
	return peer_count(key, PEER_THREADS, delta,
	    CONFIG_MAX_CONNECTIONS_PER_IP) == -1 ? -1 : 0;
}

/* The places of the requests running a program (cgi.c): counted while
 * each runs on a thread of a connection still open; an orphan's stop
 * counting with its request. */
int
peer_cgi(const unsigned char *key, int delta)
{
	return peer_count(key, PEER_CGI, delta, 0);
}

/*
 * Drops one connection of key.  An entry that becomes free is filled
 * again from the run behind it (backward shift), so no lookup ever stops
 * early at a hole and no tombstones pile up.
 */
void
peer_del(const unsigned char *key)
{
	struct peer *p;
	size_t i, j, h;

	pthread_mutex_lock(&peer_lock);
	p = peer_find(key);
	if (p->p_n > 0 && --p->p_n == 0) {
		i = (size_t)(p - peers);
		for (j = (i + 1) % PEER_TABLE; peers[j].p_n != 0;
		    j = (j + 1) % PEER_TABLE) {
			h = peer_hash(peers[j].p_key);
			/* j may move to i when its home is not in (i, j] */
			if ((j > i && (h <= i || h > j)) ||
			    (j < i && h <= i && h > j)) {
				peers[i] = peers[j];
				peers[j].p_n = 0;
				i = j;
			}
		}
	}
	pthread_mutex_unlock(&peer_lock);
}
