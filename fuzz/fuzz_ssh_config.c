/* ssh_config (validators/ssh_config.c): load, then look up a few names
 * so Host patterns are matched too. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "validators/ssh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const hosts[] = { "gpu-r01-u03", "10.0.0.1", "*", "", "a?b!c" };
	const char *path = fuzz_file(data, size, ".conf");
	struct val_ssh_config *cfg = NULL;
	struct br_err err = { 0 };
	size_t i;

	if (val_ssh_config_load(path, &cfg, &err) != 0)
		return 0;
	for (i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
		struct val_ssh_host h;

		val_ssh_config_lookup(cfg, hosts[i], &h);
		val_ssh_host_release(&h);
	}
	val_ssh_config_free(cfg);
	return 0;
}
