/* bringup unretire HOST...: bring retired nodes back to 'new' (lifecycle.h). */
#include "lifecycle.h"

int main(int argc, char **argv)
{
	return br_lifecycle_main(BR_LIFECYCLE_UNRETIRE, argc, argv);
}
