#!/bin/bash
# The gate is not a test that cannot fail: on a kernel without the brake,
# told to expect one, it must fail, on the latency and throughput checks.
# KTAP output.
#
# usage: tests/gate-must-fail.sh BZIMAGE EXPECT_BRAKE_MS
set -u
. "$(dirname "$0")/lib/ktap.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
KERNEL=$1 EXPECT_BRAKE_MS=$2 GATE_SECONDS=5 "$(dirname "$0")/../vm/gate" > "$out" 2>&1
rc=$?
sed 's/^/# /' "$out"
echo "KTAP version 1"
echo "1..3"
if [ "$rc" = 1 ]; then
	result ok "gate exits 1 on a kernel without the brake (expect $2 ms)"
else
	result fail "gate exited $rc on a kernel without the brake, expected 1"
fi
if grep -q '^not ok [0-9]* every latency >= brake: min' "$out"; then
	result ok "the latency check failed with the measured minimum"
else
	result fail "the latency check did not fail"
fi
if grep -q '^not ok [0-9]* kernel-side ops/s .* over the cap' "$out"; then
	result ok "the throughput check failed with the measured ops/s"
else
	result fail "the throughput check did not fail"
fi
[ "$ktap_failed" = 0 ]
