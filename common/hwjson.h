/*
 * hwjson — a struct br_hw (what a BMC reported) as one JSON document: the
 * inventory stores a node's facts in this form (hw_facts), and the tools
 * that read BMCs print it for --json. Every field of br_hw is
 * present; absent strings and unknown numbers are null. Strings with
 * non-ASCII bytes do not round-trip: they come back with '?' for each.
 */
#ifndef BRINGUP_HWJSON_H
#define BRINGUP_HWJSON_H

#include "common.h"

/* New reference; the caller json_decref()s it. hw is borrowed. */
json_t *br_hw_to_json(const struct br_hw *hw);
/* The reverse, for what br_hw_to_json wrote. Fills *ret_hw (the caller
 * br_hw_release()s it) only on success; BR_E_INVAL names the field that is
 * wrong. doc is borrowed. */
int br_hw_from_json(json_t *doc, struct br_hw *ret_hw, struct br_err *err);

#endif
