/* The database's work counted (inventory.h's inv_db_counts, backend.h's
 * invb_count): one set of counters for a process and the workers it
 * forks, in an anonymous shared mapping made before the first fork, so a
 * stage's figure includes what its workers' connections did without any
 * report from them (a worker killed half way has still counted what it
 * ran). Atomic adds: workers count at once on one cache line, which costs
 * nothing beside the statement each count stands for. */
/* MAP_ANONYMOUS is not POSIX (2008); glibc gives it under _DEFAULT_SOURCE. */
#define _DEFAULT_SOURCE
#include <stdatomic.h>
#include <sys/mman.h>

#include "backend.h"
#include "inventory.h"

struct counters {
	atomic_int_least64_t n[INVB_N_COUNTERS];
};

/* Until invb_counts_init (or where mmap is refused), this process's own. */
static struct counters private_counters;
static struct counters *counters = &private_counters;

void invb_counts_init(void)
{
	void *p;

	if (counters != &private_counters)
		return;
	p = mmap(NULL, sizeof(struct counters), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (int i = 0; i < INVB_N_COUNTERS; i++)
		atomic_init(&((struct counters *)p)->n[i], atomic_load(&private_counters.n[i]));
	counters = p;
}

void invb_count(enum invb_counter which, int64_t n)
{
	atomic_fetch_add_explicit(&counters->n[which], n, memory_order_relaxed);
}

void inv_db_counts(struct inv_db_counts *ret)
{
	const struct counters *c = counters;

	ret->statements = atomic_load(&c->n[INVB_STATEMENTS]);
	ret->round_trips = atomic_load(&c->n[INVB_ROUND_TRIPS]);
	ret->commits = atomic_load(&c->n[INVB_COMMITS]);
	ret->rows_changed = atomic_load(&c->n[INVB_ROWS_CHANGED]);
	ret->rows_read = atomic_load(&c->n[INVB_ROWS_READ]);
	ret->bytes_bound = atomic_load(&c->n[INVB_BYTES_BOUND]);
}
