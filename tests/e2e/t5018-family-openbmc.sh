#!/bin/sh
# bringup run on a rack of openbmc BMCs shaped like the gh200 profile's machine,
# judged by that profile (tests/e2e/family.sh says what is asserted).
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/e2e/family.sh"
cd "$T"
family_pipeline openbmc gh200
