/* bringup retire HOST... [--reason TEXT]: take nodes out of the flow (lifecycle.h). */
#include "lifecycle.h"

int main(int argc, char **argv)
{
	return br_lifecycle_main(BR_LIFECYCLE_RETIRE, argc, argv);
}
