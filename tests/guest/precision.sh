# The brake's own precision, from the kernel's cpuhp_brake records: at
# 250 and 1000 ms (set through the knob), every braked write sleeps
# [brake, brake + 5 ms] and the median overshoot is at most 1 ms (one op
# over 5 ms may be measured again, see brake_op). One record per write,
# with the brake asked for and ret 0.
#
# usage: precision.sh [PAIRS_250] [PAIRS_1000]   (offline+online pairs
#        over cpu1..3; default 10 and 5)
. /scenarios/lib/ktap.sh

pairs_250=${1:-10}
pairs_1000=${2:-5}
ktap_plan 6
echo "# $(uname -r), $(nproc) CPUs online, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

trace_on cpuhp_brake || { echo "# no cpuhp_brake event in tracefs"; exit 1; }
# brake_op CPU OP: one braked op; its overshoot (ns) from its record goes
# to /tmp/over.$ms. An overshoot over 5 ms is host noise in the one
# direction noise takes (a late wakeup only lengthens a sleep): that op
# is undone and done once more, counted (remeasure); never one under 0.
brake_op() {
	hp_op "$1" "$2"
	[ "$OP_RET" = 0 ] || failed=$((failed + 1))
	over=$(brake_events | tail -n 1 | awk -v ms="$ms" '{ print $4 - ms * 1000000 }')
	if [ "${over:-0}" -gt 5000000 ]; then
		back=online
		[ "$2" = online ] && back=offline
		remeasure "$2 cpu$1 at $ms ms overshot by $(us_to_ms $((over / 1000))) ms"
		hp_op "$1" "$back"
		[ "$OP_RET" = 0 ] || failed=$((failed + 1))
		hp_op "$1" "$2"
		[ "$OP_RET" = 0 ] || failed=$((failed + 1))
		over=$(brake_events | tail -n 1 | awk -v ms="$ms" '{ print $4 - ms * 1000000 }')
		extra=$((extra + 2))
	fi
	echo "${over:-none}" >> "/tmp/over.$ms"
}
for ms in 250 1000; do
	echo "$ms" > "$KNOB" || exit 1
	eval "pairs=\$pairs_$ms"
	i=0 failed=0 extra=0
	rm -f "/tmp/over.$ms"
	while [ "$i" -lt "$pairs" ]; do
		cpu=$((i % 3 + 1))
		brake_op "$cpu" offline
		brake_op "$cpu" online
		i=$((i + 1))
	done
	eval "failed_$ms=$failed extra_$ms=$extra"
done
trace_off
echo 1000 > "$KNOB"
brake_events > /tmp/brakes

for ms in 250 1000; do
	eval "pairs=\$pairs_$ms failed=\$failed_$ms extra=\$extra_$ms"
	want=$((pairs * 2 + extra))
	got=$(awk -v ms="$ms" '$3 == ms && $5 == 0' /tmp/brakes | wc -l)
	check_eq "$ms ms: $want writes, $want cpuhp_brake records with ret 0, no failed write" \
		"$got $failed" "$want 0"
	# the overshoot of each judged brake, ns
	sort -n "/tmp/over.$ms" > "/tmp/over.$ms.sorted"
	set -- $(awk '{ v[NR] = $1 } END {
		if (!NR) { print "0 0 0 0"; exit }
		print NR, v[1], v[int((NR + 1) / 2)], v[NR] }' "/tmp/over.$ms.sorted")
	n=$1 lo=$2 med=$3 hi=$4
	fig="min $(us_to_ms $((lo / 1000))) p50 $(us_to_ms $((med / 1000))) max $(us_to_ms $((hi / 1000))) ms over $n brakes"
	echo "# precision: brake_ms=$ms n=$n over_min_ns=$lo over_p50_ns=$med over_max_ns=$hi"
	if [ "$n" -gt 0 ] && [ "$lo" -ge 0 ] && [ "$hi" -le 5000000 ]; then
		ok "$ms ms: every brake in [$ms, $ms + 5] ms: overshoot $fig"
	else
		not_ok "$ms ms: brakes outside [$ms, $ms + 5] ms: overshoot $fig"
	fi
	if [ "$n" -gt 0 ] && [ "$med" -le 1000000 ]; then
		ok "$ms ms: median overshoot <= 1 ms ($(us_to_ms $((med / 1000))) ms)"
	else
		not_ok "$ms ms: median overshoot $(us_to_ms $((med / 1000))) ms > 1 ms"
	fi
done
ktap_done
