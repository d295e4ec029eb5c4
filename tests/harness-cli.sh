#!/bin/bash
# The host-side scripts refuse bad input with a clear error and change
# nothing: vm/run's options, vm/build-kernel's variant, tests/fuzz/run's
# time, tests/run's plan of cases (--lanes), its judging of one case's
# output (--report) and of a lane's guests (--rt-check), and a whole run
# of two host cases (selftest). KTAP output.
set -u
. "$(dirname "$0")/lib/ktap.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# expect DESC WANT_RC WANT_MESSAGE CMD...
expect() {
	local desc=$1 want=$2 msg=$3 rc
	shift 3
	"$@" > /dev/null 2> "$tmp"
	rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$msg" "$tmp"; then
		result ok "$desc: exit $rc, $(grep -m 1 -- "$msg" "$tmp")"
	else
		result fail "$desc: exit $rc (want $want), $(head -n 1 "$tmp")"
	fi
}

echo "KTAP version 1"
echo "1..47"
expect "vm/run -t 0" 1 "wants a positive number of seconds" "$root/vm/run" -t 0 brake
expect "vm/run -t abc" 1 "wants a positive number of seconds" "$root/vm/run" -t abc brake
expect "vm/run -c 0" 1 "wants a positive number of CPUs" "$root/vm/run" -c 0 brake
expect "vm/run unknown scenario" 1 "no scenario tests/guest/nosuch.sh" "$root/vm/run" nosuch
expect "vm/run unknown option" 64 "usage" "$root/vm/run" -z brake
expect "vm/run no kernel" 1 "no kernel at" "$root/vm/run" -k /nonexistent brake
expect "vm/run -x no archive" 1 "-x: no archive at /nonexistent" "$root/vm/run" -x /nonexistent brake
printf 'not gzip' > "$tmp.cpio"
expect "vm/run -x an uncompressed archive" 1 "-x: $tmp.cpio is not a gzip'd cpio archive" "$root/vm/run" -x "$tmp.cpio" brake
rm -f "$tmp.cpio"
expect "vm/run bad ACCEL" 1 "ACCEL must be auto, kvm or tcg" env ACCEL=xen "$root/vm/run" brake
expect "vm/run bad VM_RT" 1 "VM_RT must be 0, 1 or boot, not 'yes'" env VM_RT=yes "$root/vm/run" brake
expect "vm/build-kernel unknown variant" 1 "unknown variant 'fast'" "$root/vm/build-kernel" 6.1 fast
expect "vm/build-kernel unknown tree" 1 "not found" "$root/vm/build-kernel" 9.9
expect "tests/fuzz/run 0 s" 1 "SECONDS must be a positive number" "$root/tests/fuzz/run" 0 cpulist
# tests/run's plan: a case it would not run, or a must-fail case that
# would not read its own gate's output, stops the runner before it starts
# lanes PLAN [VAR=VALUE...]: tests/run --lanes on PLAN (printf %b), two
# lanes a phase and real-time priority unless VAR=VALUE says otherwise
lanes() {
	local plan=$1
	shift
	printf '%b' "$plan" | env LANES_A=2 LANES_B=2 VM_RT=1 "$@" "$root/tests/run" --lanes
}
# order_is DESC WANT PLAN [VAR=VALUE...]: the lanes' "phase|lane|name"s
order_is() {
	local desc=$1 want=$2 got
	shift 2
	got=$(lanes "$@" | cut -d'|' -f1-3 | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		result ok "tests/run --lanes$desc"
	else
		result fail "tests/run --lanes$desc: got '$got'"
	fi
}
expect "tests/run, a case of phase C" 1 'phase "C", not A, H or B' \
	lanes 'A|10|g|gate|braked||1000\nC|10|h|host|||true\n'
expect "tests/run, a gate-fail case after another gate" 1 "gate-fail of g1 not in the group of that gate" \
	lanes 'A|10|g1|gate|braked||1000\nA|10|g2|gate|braked||250\nA|+1|f|gate-fail|||g1 250 p99 offline\n'
expect "tests/run, a gate-fail case on a lane of its own" 1 "gate-fail of g1 not in the group of that gate" \
	lanes 'A|10|g1|gate|braked||1000\nA|1|f|gate-fail|||g1 250 p99 offline\n'
expect "tests/run, a gate-fail case after a suite" 1 "gate-fail of s not in the group of that gate" \
	lanes 'A|10|s|suite|braked||braked\nA|+1|f|gate-fail|||s 250 p99 offline\n'
expect "tests/run, a case of an unknown kind" 1 'unknown kind "gaet"' \
	lanes 'A|10|g|gaet|braked||1000\n'
# phase A first, its groups longest first on the lane with less to do,
# the host cases (H) longest first on one lane after A's, then B
plan='B|9|b|host|||true\nA|5|a1|suite|braked||x\nH|2|h1|host|||true\nA|7|a2|suite|braked||x\nH|4|h2|host|||true\nA|6|a3|suite|braked||x\n'
order_is ": phase A's groups longest first on the emptier lane, the host lane after them, then B" \
	"A|1|a2 A|2|a3 A|2|a1 A|3|h2 A|3|h1 B|1|b " "$plan"
order_is ", LANES_A=1: the host lane is phase A's second" \
	"A|1|a2 A|1|a3 A|1|a1 A|2|h2 A|2|h1 B|1|b " "$plan" LANES_A=1
# without real-time priority the host cases go to phase B
order_is ", VM_RT=0: the host cases in phase B" \
	"A|1|a2 A|2|a3 A|2|a1 B|1|b B|2|h2 B|2|h1 " "$plan" VM_RT=0
# a tests/run started by a case of phase B (tests/interrupt.sh) inherits
# its lane's VM_RT=boot, and takes it for 0
order_is ", VM_RT=boot: as VM_RT=0" \
	"A|1|a2 A|2|a3 A|2|a1 B|1|b B|2|h2 B|2|h1 " "$plan" VM_RT=boot
expect "tests/run, a guest case in the host lane" 1 "phase H is for host cases, not suite" \
	lanes 'H|10|s|suite|braked||braked\n'
expect "tests/run --lanes, VM_RT=0: a (+) case after a host case is refused, as with VM_RT=1" 1 \
	"(+) no case of its phase before it" lanes 'H|5|h|host|||true\nB|+1|x|host|||true\n' VM_RT=0
expect "tests/run, VM_RT=yes" 1 "VM_RT must be 0 or 1, not 'yes'" \
	lanes '' VM_RT=yes
expect "tests/run, an unknown selector" 1 "unknown selector 'nosuch'" \
	env VM_RT=0 "$root/tests/run" nosuch
expect "tests/run, a gate selector of no base tree" 1 "unknown selector 'gate-6.13' (no kernel-patch/6.13)" \
	env VM_RT=0 "$root/tests/run" gate-6.13
expect "tests/run, an arm64 gate selector of no base tree" 1 "unknown selector 'gate-arm64-6.13' (no kernel-patch/6.13)" \
	env VM_RT=0 "$root/tests/run" gate-arm64-6.13
got=$("$root/tests/run" --cases gate-arm64-6.1 2>&1 | cut -d'|' -f3 | tr '\n' ' ')
if [ "$got" = "arm64-6.1-gate-braked arm64-6.1-gate-catches-short arm64-6.1-gate-vanilla arm64-6.1-gate-catches-vanilla " ]; then
	result ok "tests/run, gate-arm64-6.1 (make gate ARCH=arm64): the arm64 gates and their must-fail cases"
else
	result fail "tests/run, gate-arm64-6.1: $got"
fi
expect "tests/run, a soak selector of no base tree" 1 "unknown selector 'soak-6.13' (no kernel-patch/6.13)" \
	env VM_RT=0 "$root/tests/run" soak-6.13
expect "tests/run, LANES_H=1" 1 "LANES_H: no longer a setting" \
	env LANES_H=1 "$root/tests/run" --lanes
# rt_check LOG LANE WANT [MIN]: a lane's VM_RT_LOG (printf %b) judged, as
# tests/run judges each lane's after it (its verdict to stderr)
rtdir=$(mktemp -d)
trap 'rm -f "$tmp"; rm -rf "$rtdir"' EXIT
rt_check() {
	printf '%b' "$1" > "$rtdir/log"
	shift
	"$root/tests/run" --rt-check "$rtdir/log" "$@" >&2 && echo "# lane judged good" >&2
}
expect "tests/run, VM_RT_LOG: every boot of a phase A lane at real-time or said why not" 0 "judged good" \
	rt_check 'a start\na rt\nb c start\nb c normal\n' A1 "rt normal" 2
expect "tests/run, VM_RT_LOG: a boot whose vm/run said nothing of its priority" 1 "without an outcome, or the other way round: b" \
	rt_check 'a start\na booted\nb start\n' B1 "booted normal"
expect "tests/run, VM_RT_LOG: one guest's two outcomes do not stand for another's" 1 "without an outcome, or the other way round: \\(a b\\|b a\\)" \
	rt_check 'a start\nb start\nb booted\nb booted\n' B1 "booted normal"
expect "tests/run, VM_RT_LOG: a guest booted at real-time priority where none may be" 1 "not this lane's (none): a: booted" \
	rt_check 'a start\na booted\n' B1 none
expect "tests/run, VM_RT_LOG: a phase A guest left at normal priority without a word" 1 "not this lane's (rt normal): a: none" \
	rt_check 'a start\na none\n' A1 "rt normal"
expect "tests/run, VM_RT_LOG: fewer boots than the lane's guest cases (the log not written)" 1 "0 guests booted, fewer than its 1 cases" \
	rt_check '' B1 "booted normal" 1
expect "tests/run, VM_RT_LOG: a guest booted in a lane of host tests" 1 "1 guests booted, more than 0: no case of it boots one" \
	rt_check 'a start\na none\n' A3 none 0 0
# judged KIND RC TEXT: one case's output (printf %b) with exit status RC,
# judged as tests/run judges each case (its verdict and counts to stderr)
judged() {
	printf '%b' "$3" > "$rtdir/out"
	"$root/tests/run" --report case "$1" "$2" "$rtdir/out" >&2
}
expect "tests/run, a case's plan and results all good" 0 "^# 2 passed, 0 failed, 0 skipped" \
	judged host 0 '1..2\nok 1 a\nok 2 b\n'
expect "tests/run, a case that printed no plan" 1 "^    # no plan" \
	judged host 0 'ok 1 a\n'
expect "tests/run, a case that ended after 3 of its 8 results" 1 "^    # plan was 1..8 but 3 results came" \
	judged host 0 '1..8\nok 1 a\nok 2 b\nok 3 c\n'
expect "tests/run, a case that exited 1 with every line ok" 1 "^    # exited 1 without a failed test line" \
	judged host 1 '1..2\nok 1 a\nok 2 b\n'
expect "tests/run, a suite: a scenario failed as a whole beside one with a failed line, both counted" 1 "^# 1 passed, 2 failed" \
	judged suite 1 '1..2\n    1..1\n    ok 1 x\nnot ok 1 s1\n    1..1\n    not ok 1 y\nnot ok 2 s2\n'
expect "tests/run, a suite whose one scenario failed as a whole" 1 "^# 1 passed, 1 failed" \
	judged suite 1 '1..1\n    1..1\n    ok 1 x\nnot ok 1 s1\n'
# the console scan's pattern (tests/guest/lib/splat.ere; vm/run, vm/gate,
# the soak scenario) against reports of both architectures: a report
# that is only a stack dump (an RCU stall, UBSAN, dump_stack()) shows
# as its call trace line, "Call Trace:" on x86, "Call trace:" on arm64
splat=$(cat "$root/tests/guest/lib/splat.ere")
miss=""
while IFS= read -r line; do
	printf '%s\n' "$line" | grep -qE -- "$splat" || miss="$miss [$line]"
done <<'EOF'
[   12.345678] WARNING: CPU: 1 PID: 312 at drivers/base/cpu.c:61 cpu_subsys_offline+0x2c/0x60
[   12.345678] BUG: kernel NULL pointer dereference, address: 0000000000000008
[   12.345678] Internal error: Oops: 0000000096000005 [#1] PREEMPT SMP
[   12.345678] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI
[  245.001234] INFO: task hpop:312 blocked for more than 120 seconds.
[   12.345678] WARNING: possible circular locking dependency detected
[   12.345678] WARNING: inconsistent lock state
[   12.345678] WARNING: possible recursive locking detected
[   12.345678] DEBUG_LOCKS_WARN_ON(1)
[   12.345678] Call Trace:
[   12.345678] Call trace:
EOF
if [ -z "$miss" ]; then
	result ok "splat.ere: each kind of report matched, x86's and arm64's call traces too"
else
	result fail "splat.ere: reports it does not match:$miss"
fi
hit=""
while IFS= read -r line; do
	printf '%s\n' "$line" | grep -qE -- "$splat" && hit="$hit [$line]"
done <<'EOF'
[    0.000000] Linux version 6.1.158 (root@host) (gcc (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC
[    0.000000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
[    0.000000] ... MAX_LOCKDEP_SUBCLASSES:  8
[    1.234567] hpbrake init: hrtimers high-resolution on 4 of 4 CPUs
[    1.234567] smpboot: CPU 1 is now offline
EOF
if [ -z "$hit" ]; then
	result ok "splat.ere: a clean boot's lines, lockdep's banner among them, not matched"
else
	result fail "splat.ere: matched clean lines:$hit"
fi
# the runner whole, on two host cases of two passing checks each
# (tests/lib/selftest-case.sh): each case run once and reported under
# its own number, its plan of cases against what its lanes reported
# (the runner's own check), 4 checks counted. In a folder of its own
# (readable by all: the runner, as root, runs its host cases as nobody),
# so that no other runner's leftovers are taken for its, or its for
# theirs (tests/interrupt.sh)
sdir=$(mktemp -d)
chmod 755 "$sdir"
out=$(env VM_RT=0 TMPDIR="$sdir" timeout 120 "$root/tests/run" selftest 2>&1)
rc=$?
rm -rf "$sdir"
why=""
for want in '^1\.\.2$' '^ok 1 selftest-[12]$' '^ok 2 selftest-[12]$' '^ok [12] selftest-1$' \
	'^ok [12] selftest-2$' '^    1\.\.2$' '^# 2 cases, 0 failed, in ' '^4 passed, 0 failed$'; do
	n=$(printf '%s\n' "$out" | grep -cE -- "$want")
	case "$want" in '^    1'*) w=2 ;; *) w=1 ;; esac
	[ "$n" = "$w" ] || why="${why:+$why; }$n lines of /$want/ (want $w)"
done
if [ "$rc" = 0 ] && [ -z "$why" ]; then
	result ok "tests/run selftest: 2 cases run and reported, 4 passed, 0 failed"
else
	# the runner's own reason first, else the first failed check
	first=$(printf '%s\n' "$out" | grep -m 1 -E '^# ([0-9]+ of [0-9]+ cases reported|lane [A-Z][0-9]+ ended without its counts)' ||
		printf '%s\n' "$out" | grep -m 1 -E '^ *not ok ' | sed 's/^ *//')
	result fail "tests/run selftest: exit $rc, ${first:-$(printf '%s\n' "$out" | tail -n 1)}${why:+; $why}"
fi
[ "$ktap_failed" = 0 ]
