/* What `ssh -G` prints, as validators/ssh_config.c reads it. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "validators/ssh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct val_ssh_host h;
	struct br_err err = { 0 };

	if (val_ssh_g_parse((const char *)data, size, &h, &err) == 0)
		val_ssh_host_release(&h);
	return 0;
}
