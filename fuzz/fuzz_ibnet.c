/* ibnetdiscover output (validators/fabric.c). */
#include "fuzz/fuzz.h"

#include "common.h"
#include "validators/cabling.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, ".txt");
	struct val_ibnet net;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	if (val_ibnet_load(path, &net, &problems, &err) == 0)
		val_ibnet_release(&net);
	br_strlist_release(&problems);
	return 0;
}
