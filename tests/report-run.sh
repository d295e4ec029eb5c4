#!/bin/bash
# make check's report case: vm/report on 6.1 vanilla and braked with short
# runs, then tests/report-check.sh on what it wrote. KTAP (the check's).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/vm/lib.sh"
out=$HPBRAKE_BUILD/report-check
OUT=$out REPORT_SECONDS=3 "$root/vm/report" >&2 || exit 1
exec "$root/tests/report-check.sh" "$out"
