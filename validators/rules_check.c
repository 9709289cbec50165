/* The check record every rule returns. */
#include <stdlib.h>

#include "rules.h"

const char *val_result_name(enum val_result r)
{
	switch (r) {
	case VAL_PASS:
		return "pass";
	case VAL_FAIL:
		return "fail";
	case VAL_UNKNOWN:
		return "unknown";
	}
	return "unknown";
}

void val_check_add_take(struct val_check **checks, size_t *n, char *name_take, enum val_result result,
			char *detail_take)
{
	*checks = br_xrealloc(*checks, (*n + 1) * sizeof(**checks));
	(*checks)[*n] = (struct val_check){ name_take, result, detail_take, NULL };
	(*n)++;
}

void val_checks_free(struct val_check *checks, size_t n)
{
	for (size_t i = 0; checks && i < n; i++) {
		free(checks[i].name);
		free(checks[i].detail);
		free(checks[i].component);
	}
	free(checks);
}
