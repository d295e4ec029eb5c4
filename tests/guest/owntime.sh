# What a braked write takes beyond its brake, for kernels whose braked
# ops are slower than their unbraked ones (the lockdep kernel): PAIRS
# offline+online pairs over cpu1..3 at knob MS, each op's own time (its
# latency less its cpuhp_brake record's slept_ns) collected and its p99
# printed, with every value. Nothing is checked but that each op worked
# and left one record: a calibration, run by hand (suite
# "calibrate-debug"), whose figures go into unbraked_p99 (lib/ktap.sh).
#
# usage: owntime.sh MS PAIRS
. /scenarios/lib/ktap.sh

ms=${1:?usage: owntime.sh MS PAIRS}
pairs=${2:?usage: owntime.sh MS PAIRS}
ktap_plan 2
echo "$ms" > "$KNOB"
trace_on cpuhp_brake
rm -f /tmp/own.offline /tmp/own.online
i=0 bad=0
while [ "$i" -lt "$pairs" ]; do
	cpu=$((i % 3 + 1))
	for op in offline online; do
		: > "$T/trace"
		hp_op "$cpu" "$op"
		set -- $(brake_events | head -n 1)
		if [ "$OP_RET" = 0 ] && [ -n "${4:-}" ]; then
			echo $((OP_US - $4 / 1000)) >> "/tmp/own.$op"
		else
			bad=$((bad + 1))
		fi
	done
	i=$((i + 1))
done
trace_off
check_eq "$pairs pairs at knob $ms: every op worked with one record" "$bad" 0
echo "# own time p99 in this guest, ms: offline $(p99_ms /tmp/own.offline), online $(p99_ms /tmp/own.online) (the windows use $(unbraked_p99 offline) and $(unbraked_p99 online))"
echo "# own offline us: $(tr '\n' ' ' < /tmp/own.offline)"
echo "# own online us: $(tr '\n' ' ' < /tmp/own.online)"
echo "$ms" > "$KNOB"
check_eq "knob still $ms" "$(cat "$KNOB")" "$ms"
ktap_done
