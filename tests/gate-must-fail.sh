#!/bin/bash
# The gate is not a test that cannot fail: run it on a kernel that does
# not have the expected brake (a vanilla one, or a braked one told to
# expect a shorter brake) and check that it fails, and that each named
# check is among the ones that failed. KTAP.
#
# usage: tests/gate-must-fail.sh BZIMAGE EXPECT_BRAKE_MS 'CHECK|CHECK...'
#   CHECK: the start of a check's description, e.g. "every latency"
set -u
. "$(dirname "$0")/lib/ktap.sh"
kernel=${1:?usage: tests/gate-must-fail.sh BZIMAGE EXPECT_MS CHECKS}
expect=${2:?usage: tests/gate-must-fail.sh BZIMAGE EXPECT_MS CHECKS}
checks=${3:?usage: tests/gate-must-fail.sh BZIMAGE EXPECT_MS CHECKS}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
KERNEL=$kernel EXPECT_BRAKE_MS=$expect GATE_SECONDS=5 \
	"$(dirname "$0")/../vm/gate" > "$out" 2>&1
rc=$?
sed 's/^/# /' "$out"
echo "KTAP version 1"
echo "1..$(($(echo "$checks" | tr '|' '\n' | wc -l) + 1))"
if [ "$rc" = 1 ]; then
	result ok "gate exits 1 on $(basename "$(dirname "$kernel")") expecting $expect ms"
else
	result fail "gate exited $rc on $(basename "$(dirname "$kernel")") expecting $expect ms, expected 1"
fi
echo "$checks" | tr '|' '\n' | while read -r c; do
	if grep -q "^not ok [0-9]* $c" "$out"; then
		result ok "the check '$c' failed: $(grep "^not ok [0-9]* $c" "$out" | head -n 1 | cut -c1-100)"
	else
		result fail "the check '$c' did not fail"
	fi
done > "$out.res"
cat "$out.res"
! grep -q '^not ok' "$out.res" && [ "$ktap_failed" = 0 ]
