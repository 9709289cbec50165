#!/bin/sh
# bringup run on a rack of supermicro BMCs shaped like the sys-821ge profile's machine,
# judged by that profile (tests/e2e/family.sh says what is asserted).
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/e2e/family.sh"
cd "$T"
family_pipeline supermicro sys-821ge
