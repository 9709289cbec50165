/* bringup retire HOST... [--reason TEXT]: take nodes out of the flow (lifecycle.h). */
#include "stages/stages.h"

int main(int argc, char **argv)
{
	return stg_lifecycle_main(STG_LIFECYCLE_RETIRE, argc, argv);
}
