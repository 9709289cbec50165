#!/bin/sh
# bringup run on a rack of lenovo BMCs shaped like the sr675v3 profile's machine,
# judged by that profile (tests/e2e/family.sh says what is asserted).
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/e2e/family.sh"
cd "$T"
family_pipeline lenovo sr675v3
