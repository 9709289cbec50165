/* The fabric as validate judges it (validators/fabric.c): a wiring list
 * and an ibnetdiscover capture, judged together, and each designed host's
 * check from the judgement. Input: the wiring CSV, a line "%%", the
 * capture. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "validators/cabling.h"

static char wiring_path[80];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = NULL;
	struct val_wiring w;
	struct val_ibnet net;
	struct val_fabric_result r;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	FILE *f;

	for (size_t i = 0; i + 3 <= size && !sep; i++)
		if (!memcmp(data + i, "%%\n", 3) && (i == 0 || data[i - 1] == '\n'))
			sep = data + i;
	if (!sep)
		return 0;
	if (!wiring_path[0])
		snprintf(wiring_path, sizeof(wiring_path), "/tmp/brfuzz-wiring-%ld.csv", (long)getpid());
	f = fopen(wiring_path, "wb");
	if (!f)
		abort();
	if (sep > data && fwrite(data, 1, (size_t)(sep - data), f) != (size_t)(sep - data))
		abort();
	fclose(f);
	if (val_wiring_load(wiring_path, &w, &problems, &err) == 0) {
		const uint8_t *cap = sep + 3;

		br_strlist_release(&problems);
		if (val_ibnet_load(fuzz_file(cap, size - (size_t)(cap - data), ".txt"), &net, &problems,
				   &err) == 0) {
			val_fabric_judge(&w, &net, "4xNDR", &r);
			for (size_t i = 0; i < w.n; i++) {
				enum val_result res;
				char *detail = NULL, *component = NULL;

				if (val_fabric_node_check(&w, &r, w.links[i].dev_a, &res, &detail,
							  &component) == 0) {
					free(detail);
					free(component);
				}
			}
			val_fabric_result_release(&r);
			val_ibnet_release(&net);
		}
		val_wiring_release(&w);
	}
	br_strlist_release(&problems);
	unlink(wiring_path);
	return 0;
}
