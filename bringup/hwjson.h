/*
 * hwjson — a struct br_hw (what a BMC reported) as one JSON document, for
 * --json output of the tools that read BMCs. Every field of br_hw is
 * present; absent strings and unknown numbers are null.
 */
#ifndef BRINGUP_HWJSON_H
#define BRINGUP_HWJSON_H

#include "common.h"

/* New reference; the caller json_decref()s it. hw is borrowed. */
json_t *br_hw_to_json(const struct br_hw *hw);

#endif
