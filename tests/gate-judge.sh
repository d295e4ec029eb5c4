#!/bin/bash
# The gate's judge (tests/guest/lib/gate.sh) on the host, fed figures
# changed on purpose: every check fails on the figure it guards, and on
# that figure missing; the figures of a good braked and a good vanilla run
# pass. KTAP.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A braked run of 6 s, 3 writers, brake 1000 ms, as hplat and hpload
# print it (trimmed to the keys the judge reads).
good_hplat='{"event": "summary", "ts": "2026-12-03T12:00:00.000Z", "attach_mode": "fentry", "brake_event": true, "interval_s": 7.000, "ops_per_s": 0.857, "ceiling_ops_per_s": 0.960, "max_in_flight": 1, "mean_in_flight": 0.890, "lock_restarts": 1200, "lock_wait_ms": 9000.000, "lock_waits": 4, "dropped_events": 0, "missed_starts": 0, "start_drops": 0, "filtered": 0, "kprobe_misses": null, "bpf_misses": 0, "online": {"count": 3, "errors": 0, "errors_by_errno": {}, "min_us": 1021000.0, "mean_us": 1030000.0, "p50_us": 1028000.0, "p90_us": 1040000.0, "p99_us": 1040000.0, "max_us": 1040000.0, "brake_count": 3, "brake_min_us": 1000300.0, "brake_mean_us": 1000500.0, "brake_p50_us": 1000400.0, "brake_max_us": 1000900.0, "own_min_us": 20000.0, "own_mean_us": 29000.0, "own_p50_us": 28000.0, "own_max_us": 40000.0, "log2_hist_ms": [{"min": 512, "max": 1023, "count": 3}]}, "offline": {"count": 3, "errors": 0, "errors_by_errno": {}, "min_us": 1045000.0, "mean_us": 1055000.0, "p50_us": 1050000.0, "p90_us": 1070000.0, "p99_us": 1070000.0, "max_us": 1070000.0, "brake_count": 3, "brake_min_us": 1000200.0, "brake_mean_us": 1000400.0, "brake_p50_us": 1000300.0, "brake_max_us": 1001100.0, "own_min_us": 45000.0, "own_mean_us": 54000.0, "own_p50_us": 50000.0, "own_max_us": 69000.0, "log2_hist_ms": [{"min": 512, "max": 1023, "count": 3}]}}'
good_hpload='{"threads": 3, "cpus": 3, "pattern": "seq", "pin": false, "duration_s": 6.100, "online": {"ops": 1, "ops_per_s": 0.164, "min_us": 1, "p50_us": 1, "p99_us": 1, "max_us": 1, "errors_by_errno": {}}, "offline": {"ops": 3, "ops_per_s": 0.492, "min_us": 1, "p50_us": 1, "p99_us": 1, "max_us": 1, "errors_by_errno": {}}, "ops_per_s": 0.656, "restored_cpus": 2, "restore_failed_cpus": 0}'
# The same run's figures as a vanilla kernel gives them: no cpuhp_brake
# event, 20 ms ops, p99 40 ms, 40 ops/s.
van_sed='s/"brake_event": true/"brake_event": false/; s/"min_us": 10[0-9]*\.0/"min_us": 20000.0/g; s/"p99_us": 10[0-9]*\.0/"p99_us": 40000.0/g; s/"ops_per_s": 0.857/"ops_per_s": 40.0/'
# the guest's judge (gate_judge) and make check's must-fail patterns
# (GATE_FAILS_UNBRAKED, _SHORT)
. "$root/tests/guest/lib/gate.sh"

# judge NAME EXPECT HI_OFF HI_ON HPLAT_SED HPLOAD_SED: the judge's seven
# lines for the good figures changed by the two sed scripts
judge() {
	local name=$1
	printf '%s\n' "$good_hplat" | sed "$5" > "$tmp/$name.hplat"
	printf '%s\n' "$good_hpload" | sed "$6" > "$tmp/$name.hpload"
	# the windows are the callers' (here a kernel whose unbraked p99 is
	# 60 and 58 ms: + 20 ms over the brake)
	(
		# the guest's ok/not_ok, on the host (gate.sh is sourced above)
		. "$root/tests/guest/lib/ktap.sh"
		gate_judge "$2" "$tmp/$name.hplat" "$tmp/$name.hpload" "$3" "$4"
	) > "$tmp/$name.out" 2>&1
}

# expect NAME EXPECT HPLAT_SED HPLOAD_SED FAILING: exactly the checks
# FAILING ("1 3", or "" for none) fail
n_case=0
expect() {
	local name=case$n_case desc=$1 want=$5 got
	n_case=$((n_case + 1))
	judge "$name" "$2" $(($2 + 80)) $(($2 + 78)) "$3" "$4"
	got=$(sed -n 's/^not ok \([0-9]*\) .*/\1/p' "$tmp/$name.out" | tr '\n' ' ')
	got=${got% }
	if [ "$got" = "$want" ] && [ "$(grep -cE '^(not )?ok [0-9]' "$tmp/$name.out")" = 7 ]; then
		if [ -n "$want" ]; then
			result ok "$desc: checks $want fail"
		else
			result ok "$desc: every check passes"
		fi
	else
		result fail "$desc: failing checks '$got', expected '$want'"
		sed 's/^/# /' "$tmp/$name.out"
	fi
}

echo "KTAP version 1"
echo "1..65"
expect "good braked run" 1000 "" "" ""
expect "vanilla told to expect nothing" 0 "$van_sed" "" ""
expect "an op under the brake" 1000 's/"min_us": 1045000.0/"min_us": 999000.0/' "" "1"
# check 1 takes the smaller of the two minimums: online's too
expect "an online op under the brake" 1000 's/"min_us": 1021000.0/"min_us": 999000.0/' "" "1"
expect "an empty online min" 1000 's/"min_us": 1021000.0/"min_us": /' "" "1"
expect "no offline op, an online one under the brake" 1000 's/"offline": {"count": 3/"offline": {"count": 0/; s/"min_us": 1021000.0/"min_us": 999000.0/' "" "1 6"
expect "an offline p99 over brake + p99 + 20 ms" 1000 's/"p99_us": 1070000.0/"p99_us": 1081000.0/' "" "2"
expect "an online p99 over its bound" 1000 's/"p99_us": 1040000.0/"p99_us": 1079000.0/' "" "2"
expect "an offline brake 21 ms long" 1000 's/"brake_max_us": 1001100.0/"brake_max_us": 1021000.0/' "" "3"
expect "an online brake 21 ms long" 1000 's/"brake_max_us": 1000900.0/"brake_max_us": 1021000.0/' "" "3"
expect "an online brake 1 ms short" 1000 's/"brake_min_us": 1000300.0/"brake_min_us": 999000.0/' "" "3"
# check 3's mean leaves the longest brake out: (mean * n - max) / (n - 1)
expect "online brakes but the longest 2.1 ms over on average" 1000 's/"brake_min_us": 1000300.0, "brake_mean_us": 1000500.0, "brake_p50_us": 1000400.0, "brake_max_us": 1000900.0/"brake_min_us": 1002100.0, "brake_mean_us": 1002300.0, "brake_p50_us": 1002100.0, "brake_max_us": 1002700.0/' "" "3"
expect "offline brakes but the longest 2.1 ms over on average" 1000 's/"brake_min_us": 1000200.0, "brake_mean_us": 1000400.0, "brake_p50_us": 1000300.0, "brake_max_us": 1001100.0/"brake_min_us": 1002100.0, "brake_mean_us": 1002300.0, "brake_p50_us": 1002100.0, "brake_max_us": 1002700.0/' "" "3"
expect "one brake 19 ms late, the other two 0.2 and 0.4 ms: passes" 1000 's/"brake_max_us": 1001100.0/"brake_max_us": 1019000.0/; s/"brake_mean_us": 1000400.0/"brake_mean_us": 1006533.3/' "" ""
expect "two brakes of three 10 ms late" 1000 's/"brake_min_us": 1000300.0, "brake_mean_us": 1000500.0, "brake_p50_us": 1000400.0, "brake_max_us": 1000900.0/"brake_min_us": 1000300.0, "brake_mean_us": 1006766.7, "brake_p50_us": 1010000.0, "brake_max_us": 1010000.0/' "" "3"
# with 2 brakes, nothing is left out: one 3 ms late, one 0.5 ms, mean 1.75 passes; one 5 ms late fails
expect "two brakes, one 3 ms late: the mean of both, 1.75 ms" 1000 's/"brake_count": 3, "brake_min_us": 1000300.0, "brake_mean_us": 1000500.0, "brake_p50_us": 1000400.0, "brake_max_us": 1000900.0/"brake_count": 2, "brake_min_us": 1000500.0, "brake_mean_us": 1001750.0, "brake_p50_us": 1000500.0, "brake_max_us": 1003000.0/' "" ""
expect "two brakes, one 5 ms late: the mean of both, 2.75 ms" 1000 's/"brake_count": 3, "brake_min_us": 1000300.0, "brake_mean_us": 1000500.0, "brake_p50_us": 1000400.0, "brake_max_us": 1000900.0/"brake_count": 2, "brake_min_us": 1000500.0, "brake_mean_us": 1002750.0, "brake_p50_us": 1000500.0, "brake_max_us": 1005000.0/' "" "3"
expect "a brake 1 ms short" 1000 's/"brake_min_us": 1000200.0/"brake_min_us": 999000.0/' "" "3"
expect "a braked kernel without the cpuhp_brake event" 1000 's/"brake_event": true/"brake_event": false/' "" "3"
expect "brakes recorded where none is expected" 0 \
	's/"min_us": 10[0-9]*\.0/"min_us": 20000.0/g; s/"p99_us": 10[0-9]*\.0/"p99_us": 40000.0/g' "" "3"
expect "two ops in flight" 1000 's/"max_in_flight": 1,/"max_in_flight": 2,/' "" "4"
expect "ops/s over 1000 / brake" 1000 's/"ops_per_s": 0.857/"ops_per_s": 1.001/' "" "5"
expect "ops/s at 1000 / brake" 1000 's/"ops_per_s": 0.857/"ops_per_s": 1.000/' "" ""
expect "one op hpload did that hplat missed" 1000 "" 's/"offline": {"ops": 3/"offline": {"ops": 4/' "6"
expect "no max_in_flight" 1000 's/"max_in_flight": 1, //' "" "4"
expect "no ops/s" 1000 's/"ops_per_s": 0.857, //' "" "5"
# op_figs reads an op's figures whole: one missing, none is read
expect "no p99" 1000 's/"p99_us": 1070000.0, //' "" "1 2 6 7"
expect "no brake figures" 1000 's/"brake_max_us": 1001100.0, //' "" "3"
expect "no hpload summary" 1000 "" 's/.*//' "6 7"
expect "no hplat summary at all" 1000 's/.*//' "" "1 2 3 4 5 6 7"
expect "an online that failed after its brake" 1000 's/"online": {"count": 3, "errors": 0, "errors_by_errno": {}/"online": {"count": 3, "errors": 1, "errors_by_errno": {"EIO": 1}/' "" "6 7"
expect "hpload saw an offline fail" 1000 "" 's/"offline": {"ops": 3, \(.*\)"errors_by_errno": {}}/"offline": {"ops": 3, \1"errors_by_errno": {"EBUSY": 1}}/' "7"
expect "a CPU hpload could not bring back" 1000 "" 's/"restore_failed_cpus": 0/"restore_failed_cpus": 1/' "7"
expect "no restore figure from hpload" 1000 "" 's/, "restore_failed_cpus": 0//' "7"
# what is no number is missing: an empty value, a lone dot
expect "an empty offline min" 1000 's/"min_us": 1045000.0/"min_us": /' "" "1"
expect "an empty offline p99" 1000 's/"p99_us": 1070000.0/"p99_us": /' "" "2"
expect "an offline p99 of '.'" 1000 's/"p99_us": 1070000.0/"p99_us": ./' "" "2"
expect "ops/s of '.'" 1000 's/"ops_per_s": 0.857/"ops_per_s": ./' "" "5"
# a key in the errno map is none of the op's figures
expect "a failed online whose errno map holds an \"errors\": 0" 1000 's/"online": {"count": 3, "errors": 0, "errors_by_errno": {}/"online": {"count": 3, "errors": 1, "errors_by_errno": {"EIO": 1, "errors": 0}/' "" "6 7"
# without histograms, the offline object ends where the online one starts
expect "no histograms, offline first, an offline brake 31 ms long" 1000 's/, "log2_hist_ms": \[[^]]*\]//g; s/\("online": {.*}\), \("offline": {.*}\)}$/\2, \1}/; s/"brake_max_us": 1001100.0/"brake_max_us": 1031100.0/' "" "3"
# a path with a backslash is the path it says (awk -v would read "\t"
# as a tab)
bs="$tmp/p\\tq"
mkdir "$bs"
printf '%s\n' "$good_hplat" > "$bs/h.json"
printf '%s\n' "$good_hpload" > "$bs/l.json"
got=$(. "$root/tests/guest/lib/ktap.sh"
	gate_judge 1000 "$bs/h.json" "$bs/l.json" 1080 1078 | grep -c '^ok [0-9]')
if [ "$got" = 7 ]; then
	result ok "the good figures under a path with a backslash: seven ok"
else
	result fail "the good figures under a path with a backslash: $got ok of 7"
fi

# vm/gate GATE_FROM=: a recorded gate run judged again on the host. The
# run: the good figures above as the guest prints them, judged at 1000 ms
# with the bounds of a kernel whose unbraked p99 are 83 and 81 ms.
rec=$tmp/gate-rec.out
{
	echo "KTAP version 1"
	echo "1..7"
	echo "# gate: 6.1.0-test, 4 CPUs, expect brake 1000 ms, hpload -t 3 -d 10, p99 bounds 1103/1101 ms"
	echo "# hplat: $good_hplat"
	echo "# hpload: $good_hpload"
	for i in 1 2 3 4 5 6 7; do echo "ok $i check $i"; done
	echo "# vm: guest exited 0 after 20.1 s"
} | sed 's/$/\r/' > "$rec"   # CR LF, as the guest's serial line ends them
printf '%s\n' "[    0.000000] Linux version 6.1.0-test (test@host) #1 SMP" \
	"[    1.000000] a quiet boot" > "$tmp/gate-rec.console"
# variant NAME CMD...: $tmp/NAME.out, the recording through CMD, with the
# recording's console beside it
variant() {
	local name=$1
	shift
	"$@" < "$rec" > "$tmp/$name.out"
	cp "$tmp/gate-rec.console" "$tmp/$name.console"
}
# again EXPECT FAILING [FILE]: vm/gate on the recording exits 0 with
# eight ok lines (FAILING ""), or 1 with exactly FAILING failed
again() {
	local want=$2 got rc
	GATE_FROM=${3:-$rec} EXPECT_BRAKE_MS=$1 "$root/vm/gate" > "$tmp/again.out" 2>&1
	rc=$?
	got=$(sed -n 's/^not ok \([0-9]*\) .*/\1/p' "$tmp/again.out" | tr '\n' ' ')
	got=${got% }
	if [ "$got" = "$want" ] && [ "$rc" = "$([ -z "$want" ] && echo 0 || echo 1)" ] &&
	   [ "$(grep -cE '^(not )?ok [0-9]' "$tmp/again.out")" = 8 ]; then
		result ok "GATE_FROM, expect $1 ms: exit $rc${want:+, checks $want fail}"
	else
		result fail "GATE_FROM, expect $1 ms: exit $rc, failing '$got', expected '$want'"
		sed 's/^/# /' "$tmp/again.out"
	fi
}
again 1000 ""
# at 1100: ops under it, and brakes 100 ms short; the p99 windows move
# with the brake (1203/1201 ms) and pass
again 1100 "1 3"
# at 250: p99 windows of 353/351 ms, brakes 750 ms long
again 250 "2 3"
# at 0: ops a brake over the unbraked windows, and brakes where none is
# expected
again 0 "2 3"
# a console with a WARNING fails check 8 alone
cp "$rec" "$tmp/warn.out"
{ cat "$tmp/gate-rec.console"
  echo "[    2.000000] WARNING: CPU: 1 PID: 1 at kernel/cpu.c:1 test"; } > "$tmp/warn.console"
again 1000 "8" "$tmp/warn.out"
# and so does one without the kernel's banner (not captured: no splat
# could show either)
cp "$rec" "$tmp/nobanner.out"
echo "[    1.000000] a quiet boot" > "$tmp/nobanner.console"
again 1000 "8" "$tmp/nobanner.out"
# bad recordings: one line on stderr, exit 1, no KTAP
bad_rec() {
	local desc=$1 file=$2 msg=$3
	GATE_FROM=$file EXPECT_BRAKE_MS=1000 "$root/vm/gate" > "$tmp/bad.out" 2> "$tmp/bad.err"
	rc=$?
	if [ "$rc" = 1 ] && [ ! -s "$tmp/bad.out" ] && [ "$(wc -l < "$tmp/bad.err")" = 1 ] &&
	   grep -q "$msg" "$tmp/bad.err"; then
		result ok "GATE_FROM $desc: exit 1, '$(cat "$tmp/bad.err")'"
	else
		result fail "GATE_FROM $desc: exit $rc, stdout $(wc -c < "$tmp/bad.out") bytes, stderr '$(head -c 200 "$tmp/bad.err")'"
	fi
}
variant nojson grep -v '^# hplat:'
bad_rec "without hplat's JSON" "$tmp/nojson.out" "no hplat and hpload JSON"
variant nobounds grep -v '^# gate:'
bad_rec "without its bounds line" "$tmp/nobounds.out" "no '# gate:' line"
variant disagree sed 's/^ok 5 /not ok 5 /'
bad_rec "whose guest judged check 5 otherwise" "$tmp/disagree.out" "does not agree with the guest's"
# a check the guest skipped is not one the host passed
variant skipped sed 's/^ok 1 check 1/ok 1 check 1 # SKIP no brake expected/'
bad_rec "whose guest skipped check 1" "$tmp/skipped.out" "does not agree with the guest's"
variant died grep -v '^# vm: guest exited'
bad_rec "whose guest did not exit" "$tmp/died.out" "not a gate run that ended"
variant short grep -v '^ok 7'
bad_rec "with six results" "$tmp/short.out" "not a gate run that ended"
cp "$rec" "$tmp/nocons.out"
bad_rec "without a console" "$tmp/nocons.out" "no console beside"
bad_rec "that does not exist" "$tmp/none.out" "no gate output at"
# tests/gate-must-fail.sh: passes on the good recording told 250 ms; fails
# on recordings whose own run did not pass, though vm/gate would judge
# them again (its host judge agrees with the guest's): one whose check 5
# failed (1.5 ops/s at 1000 ms; told 250 ms, p99 and the brakes fail as
# they do for the good one), one whose guest exited 1; and two that
# each break one rule of its passed() alone: ok 1..7 once each but a
# "not ok" beside them (vm/gate would judge it again), ok 5 said twice
# (vm/gate refuses that one too: eight results)
if "$root/tests/gate-must-fail.sh" "$rec" 250 "$GATE_FAILS_SHORT" > "$tmp/mf.out" 2>&1; then
	result ok "gate-must-fail.sh: the good recording told 250 ms fails p99 and the brakes"
else
	result fail "gate-must-fail.sh on the good recording told 250 ms: $(grep '^not ok' "$tmp/mf.out" | head -n 2 | tr '\n' ' ')"
fi
variant failed5 sed 's/"ops_per_s": 0.857/"ops_per_s": 1.5/; s/^ok 5 /not ok 5 /'
variant exit1 sed 's/^# vm: guest exited 0 /# vm: guest exited 1 /'
variant notok sed 's/^\(ok 7 .*\)\r$/\1\r\nnot ok 8 an eighth result\r/'
variant twice5 sed 's/^\(ok 5 .*\)\r$/\1\r\n\1\r/'
bad_rec "with ok 5 said twice" "$tmp/twice5.out" "not a gate run that ended"
again 250 "2 3" "$tmp/failed5.out"
# a vanilla run's recording, as the guest prints it at 0 ms (checks 1, 3
# and 5 skipped): the host agrees, SKIPs and all, and the vanilla
# must-fail patterns of make check find their failures at 1000 ms
vrec=$tmp/gate-van.out
{
	echo "KTAP version 1"
	echo "1..7"
	echo "# gate: 6.1.0-test, 4 CPUs, expect brake 0 ms, hpload -t 3 -d 10, p99 bounds 103/101 ms"
	echo "# hplat: $(printf '%s\n' "$good_hplat" | sed "$van_sed")"
	echo "# hpload: $good_hpload"
	echo "ok 1 every latency >= brake # SKIP no brake expected"
	echo "ok 2 p99 offline 40.0 ms <= 103 ms, online 40.0 ms <= 101 ms"
	echo "ok 3 brake precision # SKIP no brake expected, and no cpuhp_brake event"
	echo "ok 4 max_in_flight is 1"
	echo "ok 5 ops/s 40.0 <= 1000 / brake # SKIP no brake expected"
	echo "ok 6 hpload's successful ops equal hplat's (offline online)"
	echo "ok 7 no failed op"
	echo "# vm: guest exited 0 after 18.0 s"
} | sed 's/$/\r/' > "$vrec"
cp "$tmp/gate-rec.console" "$tmp/gate-van.console"
again 0 "" "$vrec"
if "$root/tests/gate-must-fail.sh" "$vrec" 1000 "$GATE_FAILS_UNBRAKED" > "$tmp/mf.out" 2>&1; then
	result ok "gate-must-fail.sh: the vanilla recording told 1000 ms fails checks 1, 3 and 5 by their failure lines"
else
	result fail "gate-must-fail.sh on the vanilla recording told 1000 ms: $(grep '^not ok' "$tmp/mf.out" | head -n 2 | tr '\n' ' ')"
fi
# an empty pattern would match any failure line
if "$root/tests/gate-must-fail.sh" "$rec" 250 'p99 offline|' > "$tmp/mf.out" 2>&1; then
	result fail "gate-must-fail.sh passed with an empty CHECK pattern"
elif grep -q '^not ok [0-9]* an empty CHECK pattern' "$tmp/mf.out"; then
	result ok "gate-must-fail.sh refuses an empty CHECK pattern"
else
	result fail "gate-must-fail.sh failed with an empty CHECK pattern, but not for it: $(grep '^not ok' "$tmp/mf.out" | head -n 1)"
fi
for f in failed5 exit1 notok twice5; do
	if "$root/tests/gate-must-fail.sh" "$tmp/$f.out" 250 "$GATE_FAILS_SHORT" > "$tmp/mf.out" 2>&1; then
		result fail "gate-must-fail.sh passed on the recording $f, whose own run did not pass"
	elif grep -q "^not ok 1 the recorded gate run $f did not pass its seven checks" "$tmp/mf.out"; then
		result ok "gate-must-fail.sh refuses the recording $f: $(grep '^not ok' "$tmp/mf.out" | head -n 1 | cut -c1-90)"
	else
		result fail "gate-must-fail.sh failed on $f, but not for its run: $(grep '^not ok' "$tmp/mf.out" | head -n 1 | cut -c1-90)"
	fi
done
[ "$ktap_failed" = 0 ]
