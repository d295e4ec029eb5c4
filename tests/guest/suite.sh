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
n=0 failed=0
mkdir -p /tmp/suite
while read -r name secs scenario args; do
	n=$((n + 1))
	out=/tmp/suite/$name.out
	t0=$(hpop now)
	echo "    KTAP version 1"
	echo "    # Subtest: $name"
	# the scenario's own exit status, through the pipe that indents it
	# shellcheck disable=SC2086
	{ timeout -s KILL "$secs" sh "/scenarios/$scenario.sh" $args < /dev/null
	  echo "$?" > /tmp/suite/rc; } 2>&1 | tee "$out" | sed 's/^/    /'
	rc=$(cat /tmp/suite/rc)
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
