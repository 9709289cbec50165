/* bringup unretire HOST...: bring retired nodes back to 'new' (lifecycle.h). */
#include "stages/stages.h"

int main(int argc, char **argv)
{
	return stg_lifecycle_main(STG_LIFECYCLE_UNRETIRE, argc, argv);
}
