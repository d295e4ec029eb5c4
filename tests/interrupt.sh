#!/bin/bash
# Ctrl-C or SIGTERM to the runner leaves nothing behind, a second SIGTERM
# during its cleanup too: tests/run with a long guest case is interrupted
# once QEMU runs; it must exit 130 within 15 s, and no process it started
# (its lanes, vm/run, timeout, QEMU) nor its temporary folder may be
# left. A lane killed whole fails the run. KTAP.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/lib/ktap.sh"
. "$root/vm/lib.sh"
pidfile=$HPBRAKE_BUILD/vm/6.1-probe.pid

tmpdir=${TMPDIR:-/tmp}
# leftovers: processes of the probe case, and the lanes of this runner
# (their command lines name its folder)
leftovers() {
	pgrep -f "6\\.1-probe|tests/run probe${run_tmp:+|$run_tmp}" | grep -vx "$$" | tr '\n' ' '
}

# running PID: the process has not ended (a zombie has: one whose parent
# was killed with it waits for init to reap it, in init's own time)
running() {
	local st
	st=$(ps -o stat= -p "$1" 2> /dev/null) || return 1
	case "$st" in Z*) return 1 ;; esac
}

# start_probe COMMAND...: start a runner of the probe case in the
# background (runner), and wait for its guest's QEMU (qemu) and its
# temporary folder (run_tmp); before: the folders there were before it
start_probe() {
	local i=0
	before=$(ls -d "$tmpdir"/hpbrake-run.* 2>/dev/null | sort)
	run_tmp=""
	"$@" > /tmp/interrupt.$$.out 2>&1 &
	runner=$!
	while { [ ! -s "$pidfile" ] || ! kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null; } &&
	      [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	qemu=$(cat "$pidfile" 2>/dev/null)
	run_tmp=$(comm -13 <(echo "$before") <(ls -d "$tmpdir"/hpbrake-run.* 2>/dev/null | sort) | head -n 1)
	sleep 2
}

# judge_left NAME WHAT: a second after the runner ended, its QEMU (and
# WHAT) gone, and no temporary folder of its left
judge_left() {
	local left after
	sleep 1
	left=$(leftovers)
	after=$(ls -d "$tmpdir"/hpbrake-run.* 2>/dev/null | sort)
	if [ -n "$qemu" ] && [ -z "$left" ] && ! running "$qemu"; then
		result ok "$1: QEMU ($qemu)$2 gone"
	else
		result fail "$1: left behind: ${left:-none}; QEMU ${qemu:-never started}${qemu:+ $(ps -o stat= -p "$qemu" || echo gone)}"
		[ -z "$left" ] || kill -KILL $left 2>/dev/null
	fi
	if [ "$before" = "$after" ]; then
		result ok "$1: no temporary folder left"
	else
		result fail "$1: temporary folders left: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
	fi
	rm -f /tmp/interrupt.$$.out
}

echo "KTAP version 1"
echo "1..12"
# TERM2: SIGTERM twice, 0.5 s apart, as a runner under make gets it when
# make's process group is killed (make passes SIGTERM on to its children)
for sig in INT TERM TERM2; do
	name=SIG$sig
	[ "$sig" != TERM2 ] || name="SIGTERM twice"
	# a background job of a script starts with SIGINT ignored, and a
	# signal ignored at start cannot be trapped: give it its default
	# back, as a terminal's foreground job has it
	start_probe python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$root/tests/run" probe
	t0=$(date +%s)
	kill -"${sig%2}" "$runner"
	if [ "$sig" = TERM2 ]; then
		sleep 0.5
		kill -TERM "$runner" 2>/dev/null
	fi
	wait "$runner"
	rc=$?
	took=$(($(date +%s) - t0))
	if [ "$rc" = 130 ] && [ "$took" -le 15 ]; then
		result ok "$name: the runner exits 130 after $took s"
	else
		result fail "$name: the runner exited $rc after $took s (QEMU was ${qemu:-not started})"
	fi
	judge_left "$name" ", vm/run, timeout and the lanes are"
done

# A lane that dies (its whole session SIGKILLed once QEMU runs, as the
# OOM killer or a crash would end it): the runner must not take the
# missing counts for a pass, and still leaves nothing behind
start_probe "$root/tests/run" probe
lane=$(pgrep -f "tests/run --lane A 1 .*${run_tmp:-no folder}" | head -n 1)
[ -z "$lane" ] || pkill -KILL -s "$lane"
wait "$runner"
rc=$?
said=$(grep -m 1 'ended without its counts' /tmp/interrupt.$$.out)
if [ -n "$lane" ] && [ "$rc" = 1 ] && [ -n "$said" ] && tail -n 1 /tmp/interrupt.$$.out | grep -q ', [1-9][0-9]* failed'; then
	result ok "a lane killed: the runner exits 1, ${said#\# }, $(tail -n 1 /tmp/interrupt.$$.out)"
else
	result fail "a lane killed (session ${lane:-not found}): the runner exited $rc, last line: $(tail -n 1 /tmp/interrupt.$$.out)"
fi
judge_left "a lane killed" " and the lane are"
[ "$ktap_failed" = 0 ]
