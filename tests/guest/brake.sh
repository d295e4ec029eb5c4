# Every write to cpu1..3/online takes the brake and no more than the
# operation itself adds: [brake, brake + unbraked p99 + 20 ms), the p99
# that of this kernel's unbraked ops (unbraked_p99, measured in make
# check's conditions). One
# cpuhp_brake record per braked write, none when the brake is 0 or absent.
# First, unbraked ops (the knob at 0; the kernel itself on vanilla): none
# may fail or leave a record, and their p99 in this guest is printed.
#
# usage: brake.sh none|MS [CALIBRATION_PAIRS]
#   none: a vanilla kernel: no knob, no cpuhp_brake event; every op in
#         [0, unbraked p99 + 20 ms), as at brake 0
#   MS:   a braked kernel whose knob reads MS (boot parameter or default)
#   CALIBRATION_PAIRS: unbraked offline+online pairs measured first
#         (default 30; "brake.sh none 150" measured unbraked_p99)
. /scenarios/lib/ktap.sh

expect=${1:?usage: brake.sh none|MS [CALIBRATION_PAIRS]}
pairs=${2:-30}
ktap_plan 10
echo "# $(uname -r), $(nproc) CPUs online, cmdline: $(cat /proc/cmdline)"

# calibrate: PAIRS unbraked offline+online pairs over cpu1..3; the
# latencies (us) go to /tmp/cal.offline and /tmp/cal.online
calibrate() {
	rm -f /tmp/cal.offline /tmp/cal.online
	i=0 bad=0
	while [ "$i" -lt "$pairs" ]; do
		cpu=$((i % 3 + 1))
		for op in offline online; do
			hp_op "$cpu" "$op"
			if [ "$OP_RET" = 0 ]; then
				echo "$OP_US" >> "/tmp/cal.$op"
			else
				bad=$((bad + 1))
			fi
		done
		i=$((i + 1))
	done
	return "$bad"
}

if [ "$expect" = none ]; then
	if [ -e "$KNOB" ] || [ -e "$T/events/cpuhp/cpuhp_brake" ]; then
		not_ok "vanilla: no knob, no cpuhp_brake event: $(ls "$KNOB" "$T/events/cpuhp/cpuhp_brake" 2>&1 | tr '\n' ' ')"
	else
		ok "vanilla: no knob, no cpuhp_brake event"
	fi
	calibrate
	check_eq "$pairs unbraked offline+online pairs, none failed" "$?" 0
	ok "no brake expected: the knob # SKIP vanilla kernel"
else
	check_eq "knob reads $expect" "$(cat "$KNOB" 2>&1)" "$expect"
	echo 0 > "$KNOB"
	trace_on cpuhp_brake
	calibrate
	check_eq "$pairs offline+online pairs at knob 0: none failed, no cpuhp_brake record" \
		"$? $(brake_events | wc -l)" "0 0"
	echo "$expect" > "$KNOB"
	check_eq "knob back at $expect" "$(cat "$KNOB")" "$expect"
fi
off99=$(p99_ms /tmp/cal.offline)
on99=$(p99_ms /tmp/cal.online)
echo "# unbraked p99 in this guest, ms: offline $off99, online $on99 (the windows use $(unbraked_p99 offline) and $(unbraked_p99 online))"
set -- $(us_stats /tmp/cal.offline) $(us_stats /tmp/cal.online)
echo "# unbraked p50 / max in this guest, ms ($1 and $5 ops): offline $(us_to_ms "$3") / $(us_to_ms "$4"), online $(us_to_ms "$7") / $(us_to_ms "$8")"
[ "$pairs" -lt 100 ] || { echo "# unbraked offline us: $(tr "\n" " " < /tmp/cal.offline)"; echo "# unbraked online us: $(tr "\n" " " < /tmp/cal.online)"; }

# the window of each op type: [brake, brake + unbraked p99 + 20 ms), the
# p99 measured for this kernel in make check's conditions (unbraked_p99);
# vanilla: [0, unbraked p99 + 20 ms), as brake 0
if [ "$expect" = none ]; then
	lo=0
	hi_off=$(op_hi 0 offline)
	hi_on=$(op_hi 0 online)
else
	lo=$expect
	hi_off=$(op_hi "$expect" offline)
	hi_on=$(op_hi "$expect" online)
fi
echo "# windows: offline [$lo, $hi_off) ms, online [$lo, $hi_on) ms"

# one pair first, not judged: the first braked op of a boot pays once
# for what it does first (under TCG, translating the code it runs)
if [ "$expect" != none ] && [ "$expect" != 0 ]; then
	hp_op 1 offline
	w=$(us_to_ms "$OP_US")
	hp_op 1 online
	echo "# warm-up pair: offline $w ms, online $(us_to_ms "$OP_US") ms"
fi
[ "$expect" = none ] || trace_on cpuhp_brake
for cpu in 1 2 3; do
	check_op "$cpu" offline "$lo" "$hi_off"
done
for cpu in 1 2 3; do
	check_op "$cpu" online "$lo" "$hi_on"
done
if [ "$expect" = none ]; then
	ok "cpuhp_brake records # SKIP vanilla kernel"
else
	trace_off
	# records of ops that were measured again count too: every write
	want=0
	[ "$expect" != 0 ] && want=$((6 + 2 * REMEASURED))
	got=$(brake_events | awk -v ms="$expect" '$3 == ms && $5 == 0 && $4 >= ms * 1000000' | wc -l)
	check_eq "one cpuhp_brake record (brake_ms $expect, slept that long, ret 0) per braked write" \
		"$(brake_events | wc -l) $got" "$want $want"
fi
ktap_done
