#!/bin/bash
# make check's report case: vm/report on 6.1 vanilla and braked with short
# runs, then tests/report-check.sh on what it wrote. KTAP (the check's).
# The braked side boots with cpuhp_brake_ms=250: the report is the same
# report of a braked kernel, and its measuring guest needs 50 s less (20
# pairs for the CDFs, 4 overhead ops and stress-ng's 8 at a quarter of
# the default brake).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/vm/lib.sh"
out=$HPBRAKE_BUILD/report-check
OUT=$out REPORT_SECONDS=3 B_ARGS=cpuhp_brake_ms=250 "$root/vm/report" >&2 || exit 1
# the report's A is the vanilla kernel, unbraked, and its B braked at 250
exec "$root/tests/report-check.sh" "$out" 0 250
