#!/bin/sh
# bringup run on a rack of dell BMCs (iDRAC9) shaped like the xe9680
# profile's machine, judged by that profile (tests/e2e/family.sh says what
# is asserted).
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/e2e/family.sh"
cd "$T"
family_pipeline dell xe9680
