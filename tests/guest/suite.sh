# Run the scenarios of one suite in this guest, one after the other, each
# a KTAP subtest with its own verdict: a scenario that fails, hangs past
# its time limit or dies fails alone, and the next one runs.
#
# usage: suite.sh SUITE   (tests/guest/suites/SUITE: one scenario a line,
#        "NAME SECONDS SCENARIO [ARG...]"; # starts a comment)
#        suite.sh mutant:NAME   (the "suite" lines of tests/mutants/NAME.mut)
#
# A scenario fails here, whatever its own lines say, when its plan and its
# results disagree, when it exits non-zero or times out, when it measured
# more than one of its ops again (check_op, remeasure), or when it leaves
# a CPU offline (brought back before the next one). The knob and tracing
# are put back between scenarios.
. /scenarios/lib/ktap.sh

suite=${1:?usage: suite.sh SUITE|mutant:NAME}
case "$suite" in
mutant:*)
	# the scenarios that must catch a mutant (tests/mutants/NAME.mut)
	list=/scenarios/mutants/${suite#mutant:}.mut
	[ -f "$list" ] || { echo "# no mutant ${suite#mutant:}"; exit 2; }
	sed -n 's/^suite //p' "$list" > /tmp/suite.list
	;;
*)
	list=/scenarios/suites/$suite
	[ -f "$list" ] || { echo "# no suite $suite"; exit 2; }
	grep -v '^ *#' "$list" | grep -v '^ *$' > /tmp/suite.list
	;;
esac
echo "KTAP version 1"
echo "1..$(wc -l < /tmp/suite.list)"
echo "# suite $suite: $(uname -r), $(nproc) CPUs, cmdline: $(cat /proc/cmdline)"
knob0=$(cat "$KNOB" 2>/dev/null)
# session_left SID: "# left running: PID COMMAND" for each live process
# of session SID (a scenario's), zombies left out
session_left() {
	local sid=$1 p st
	for p in /proc/[0-9]*; do
		read -r st 2> /dev/null < "$p/stat" || continue
		# the fields after the command's ")": state, ppid, pgrp, session
		# shellcheck disable=SC2086
		set -- ${st##*")"}
		[ "${4:-}" = "$sid" ] && [ "$1" != Z ] || continue
		echo "# left running: ${p#/proc/} $(tr '\0' ' ' < "$p/cmdline" 2> /dev/null)"
	done
}
n=0 failed=0
mkdir -p /tmp/suite
while read -r name secs scenario args; do
	n=$((n + 1))
	out=/tmp/suite/$name.out
	t0=$(hpop now)
	echo "    KTAP version 1"
	echo "    # Subtest: $name"
	# the scenario's own exit status, through the pipe that indents it.
	# It runs in a session of its own (setsid: not a group leader here,
	# so its pid, written first, is the session's), killed whole on its
	# time limit and when it ends (what it left running named first):
	# nothing it started (hplat, hpload, a writer in the brake) keeps
	# the pipe open (timeout(1) would kill its shell alone) or runs on
	# into the next scenario. In the foreground: a command started with
	# & would have SIGINT ignored, and its writers with it (kill.sh)
	rm -f /tmp/suite/rc /tmp/suite/pid
	# shellcheck disable=SC2086,SC2016
	{ setsid sh -c 'sleep "$1"; kill -KILL "-$(cat /tmp/suite/pid)"' watchdog "$secs" \
		> /dev/null 2>&1 < /dev/null &
	  wpid=$!
	  sh -c 'echo "$$" > /tmp/suite/pid; exec setsid sh "$@"' scenario \
		"/scenarios/$scenario.sh" $args < /dev/null
	  echo "$?" > /tmp/suite/rc
	  kill -KILL "-$wpid" 2> /dev/null
	  pg=$(cat /tmp/suite/pid 2> /dev/null)
	  if [ -n "$pg" ]; then
		session_left "$pg"
		kill -KILL "-$pg" 2> /dev/null
	  fi; } 2>&1 | tee "$out" | sed 's/^/    /'
	rc=$(cat /tmp/suite/rc 2> /dev/null)
	# killed is not gone: a writer in cpu_down() ends its op first (at
	# most 10 s; what is still there is named, and the checks below
	# see what it left)
	pg=$(cat /tmp/suite/pid 2> /dev/null)
	i=0
	while [ -n "$pg" ] && [ -n "$(session_left "$pg")" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -z "$pg" ] || session_left "$pg" | sed 's/^\(. \)left running/    \1still running 10 s after it ended/'
	took=$((($(hpop now) - t0) / 1000))
	plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$out" | head -n 1)
	got=$(grep -cE '^(not )?ok [0-9]+' "$out")
	bad=$(grep -cE '^not ok [0-9]+' "$out")
	again=$(grep -c '^# re-measured:' "$out")
	why=""
	if [ "$rc" = 137 ] || [ "$rc" = 143 ]; then
		why="killed after its $secs s"
	elif [ -z "$plan" ]; then
		why="no plan"
	elif [ "$plan" != "$got" ]; then
		why="plan 1..$plan but $got results"
	elif [ "$rc" != 0 ] && [ "$bad" = 0 ]; then
		why="exited $rc without a failed test line"
	elif [ "$again" -gt 1 ]; then
		why="$again ops measured again (one is allowed)"
	fi
	# put back what the next scenario expects
	[ -z "$knob0" ] || echo "$knob0" > "$KNOB"
	trace_off 2>/dev/null
	left=""
	for f in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ "$(cat "$f")" = 1 ] && continue
		left="$left ${f#/sys/devices/system/cpu/}"
		echo 1 > "$f"
	done
	[ -z "$left" ] || why="${why:+$why; }left offline:${left% }"
	echo "    # $name: ${took} ms, exit $rc, $again re-measured"
	if [ -z "$why" ] && [ "$bad" = 0 ]; then
		ok "$name"
	else
		failed=$((failed + 1))
		not_ok "$name${why:+: $why}"
	fi
done < /tmp/suite.list
[ "$failed" = 0 ]
