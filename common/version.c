/* The version stamped in at build time (Makefile: git describe). */
#include "common.h"
#include "version.h"

const char *br_version(void)
{
	return BR_VERSION;
}
