/*
 * The answer cache: a node's rendered GET answers by URI as sent, so a
 * client that reads a resource again costs the simulator a copy, not a
 * render and a json_dumps. Every answer held belongs to one generation of
 * the node's state; the first look after the generation moved empties it.
 *
 * URIs and bodies live end to end in one growable buffer per node rather
 * than in an allocation each: glibc's malloc consolidates its fast bins on
 * every large request, which made an allocation per kept answer cost ten
 * times its copy (callgrind, 32 nodes, one discover pass).
 */
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

#define SLOTS (2 * SIM_CACHE_ENTRIES_MAX) /* open addressing, never more than half full */
_Static_assert(SIM_CACHE_ENTRIES_MAX < UINT16_MAX, "slots hold an answer's index + 1 in 16 bits");

struct answer {
	uint64_t hash; /* of the URI */
	size_t at;     /* in text: the URI, then the body */
	size_t uri_len, body_len;
	char etag[SIM_ETAG_LEN];
};

struct sim_answer_cache {
	uint64_t generation; /* of the node state its answers show */
	struct br_buf text;  /* capped at SIM_CACHE_BYTES_MAX */
	size_t n;
	struct answer answers[SIM_CACHE_ENTRIES_MAX];
	uint16_t slots[SLOTS]; /* index into answers + 1; 0: free */
};

void sim_answer_cache_free(struct sim_answer_cache *cache)
{
	if (!cache)
		return;
	br_buf_release(&cache->text);
	free(cache);
}

/* The node's cache, made if need be, holding only answers of its current
 * state. Emptying keeps the buffer's memory for the next generation. */
static struct sim_answer_cache *current(struct sim_node *n)
{
	struct sim_answer_cache *cache = n->st.answers;

	if (!cache) {
		cache = n->st.answers = br_xcalloc(1, sizeof(*cache));
		br_buf_init(&cache->text, SIM_CACHE_BYTES_MAX);
	} else if (cache->generation != n->st.generation) {
		br_buf_reset(&cache->text);
		cache->n = 0;
		memset(cache->slots, 0, sizeof(cache->slots));
	}
	cache->generation = n->st.generation;
	return cache;
}

/* The slot holding uri, else the free slot where it would go. */
static uint16_t *slot_of(struct sim_answer_cache *cache, const char *uri, size_t len, uint64_t hash)
{
	for (size_t i = hash % SLOTS;; i = (i + 1) % SLOTS) {
		const struct answer *a = cache->slots[i] ? &cache->answers[cache->slots[i] - 1] : NULL;

		if (!a ||
		    (a->hash == hash && a->uri_len == len && !memcmp(cache->text.data + a->at, uri, len)))
			return &cache->slots[i];
	}
}

int sim_cache_answer(struct sim_ctx *c)
{
	const char *uri = c->req->uri;
	size_t len = strlen(uri);
	struct sim_answer_cache *cache;
	const struct answer *a;
	uint16_t slot;
	char *body;

	if (!c->node->st.answers)
		return 0;
	cache = current(c->node);
	slot = *slot_of(cache, uri, len, sim_hash(uri, len));
	if (!slot)
		return 0;
	a = &cache->answers[slot - 1];
	body = br_xmalloc(a->body_len + 1);
	memcpy(body, cache->text.data + a->at + a->uri_len, a->body_len);
	body[a->body_len] = '\0';
	sim_reply_text(c->resp, 200, body, a->body_len, a->etag);
	return 1;
}

void sim_cache_keep(struct sim_ctx *c)
{
	const struct sim_response *r = c->resp;
	const char *uri = c->req->uri;
	struct sim_answer_cache *cache;
	size_t len, at;
	uint64_t hash;
	struct answer *a;
	uint16_t *slot;

	if (c->uncacheable || r->status != 200 || r->note || r->action != SIM_ACT_RESPOND ||
	    r->synthetic_len || !r->body)
		return;
	len = strlen(uri);
	hash = sim_hash(uri, len);
	cache = current(c->node);
	slot = slot_of(cache, uri, len, hash);
	if (cache->n == SIM_CACHE_ENTRIES_MAX || *slot)
		return;
	at = cache->text.len;
	if (br_buf_add(&cache->text, uri, len) || br_buf_add(&cache->text, r->body, r->body_len)) {
		/* Full: keep nothing of it. */
		cache->text.len = at;
		if (cache->text.data)
			cache->text.data[at] = '\0';
		return;
	}
	a = &cache->answers[cache->n++];
	a->hash = hash;
	a->at = at;
	a->uri_len = len;
	a->body_len = r->body_len;
	memcpy(a->etag, c->etag, sizeof(a->etag));
	*slot = (uint16_t)cache->n;
}
