#!/bin/bash
# The gate is not a test that cannot fail: judge a gate run recorded in
# this make check (vm/gate's GATE_OUT) against a brake the kernel does not
# have (a vanilla run told to expect the brake, a braked one told to
# expect a shorter one), through vm/gate GATE_FROM=, and check that the
# gate fails, and that each named check is among the ones that failed.
# The figures are the guest's own, measured minutes before; no guest is
# booted again for them. KTAP.
#
# usage: tests/gate-must-fail.sh GATE_OUT EXPECT_BRAKE_MS 'CHECK|CHECK...'
#   CHECK: how that check's failure line starts (a basic regular
#   expression), e.g. "every latency >= brake: min": the failure itself,
#   which a missing figure's line ("a minimum is missing") does not match;
#   no "|" in it (it separates them), blanks at either end are dropped
set -u
. "$(dirname "$0")/lib/ktap.sh"
usage="usage: tests/gate-must-fail.sh GATE_OUT EXPECT_MS CHECKS"
from=${1:?$usage}
expect=${2:?$usage}
checks=${3:?$usage}
# the recorded run passed at its own brake: its guest exited 0 and said
# "ok" once to each of the seven checks and "not ok" to none (a vanilla
# run skips checks 1, 3 and 5: the CHECKS patterns name the failures
# themselves, "min ... <", not a missing figure). A must-fail case on
# figures that were missing or failed already would prove nothing.
passed() {
	local i rec
	[ -f "$from" ] || return 1
	rec=$(tr -d '\r' < "$from")
	grep -q '^# vm: guest exited 0 ' <<< "$rec" || return 1
	! grep -qE '^not ok [0-9]' <<< "$rec" || return 1
	for i in 1 2 3 4 5 6 7; do
		[ "$(grep -cE "^ok $i( |\$)" <<< "$rec")" = 1 ] || return 1
	done
}
if ! passed; then
	echo "KTAP version 1"
	echo "1..1"
	result fail "the recorded gate run $(basename "$from" .out) did not pass its seven checks: nothing to judge again"
	exit 1
fi
out=$(mktemp)
trap 'rm -f "$out" "$out.res"' EXIT
GATE_FROM=$from EXPECT_BRAKE_MS=$expect "$(dirname "$0")/../vm/gate" > "$out" 2>&1
rc=$?
sed 's/^/# /' "$out"
echo "KTAP version 1"
echo "1..$(($(echo "$checks" | tr '|' '\n' | wc -l) + 1))"
run=$(basename "$from" .out)
if [ "$rc" = 1 ] && grep -qE '^(not )?ok 8 ' "$out"; then
	result ok "gate exits 1 on $run's figures expecting $expect ms"
else
	result fail "gate exited $rc on $run's figures expecting $expect ms, expected 1 and its eight checks"
fi
echo "$checks" | tr '|' '\n' | while read -r c; do
	if [ -z "$c" ]; then
		# "^not ok [0-9]* " alone matches any failure
		result fail "an empty CHECK pattern (CHECKS '$checks')"
	elif grep -q "^not ok [0-9]* $c" "$out"; then
		result ok "the check '$c' failed: $(grep "^not ok [0-9]* $c" "$out" | head -n 1 | cut -c1-100)"
	else
		result fail "the check '$c' did not fail"
	fi
done > "$out.res"
cat "$out.res"
! grep -q '^not ok' "$out.res" && [ "$ktap_failed" = 0 ]
