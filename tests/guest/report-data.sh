# make report, guest side: the figures of one kernel, as "data:" lines
# (a measurement, not a test).
#
# usage: report-data.sh SECONDS [PAIRS]   (SECONDS of hpload per tester
#        count; PAIRS offline+online pairs for the latency CDFs, 20)
. /scenarios/lib/ktap.sh

secs=${1:-6}
pairs=${2:-20}
brake=$(cat "$KNOB" 2>/dev/null || echo 0)
echo "data: env kernel=$(uname -r) cpus=$(nproc) brake_ms=$brake"

# sum over both op types of a number in the last JSON summary
opsum() {
	grep '"ops_per_s"' "$1" | tail -n 1 | awk -v k="\"$2\": " '{
		s = 0; line = $0
		while ((i = index(line, k)) > 0) {
			line = substr(line, i + length(k)); s += line + 0
		}
		print s }'
}

# one writer, PAIRS offline+online pairs over cpu1..3: each op's latency
# and brake (the cpuhp_brake event; 0 without it)
hplat_start /tmp/l.json -j -e || exit 1
i=0
while [ "$i" -lt "$pairs" ]; do
	hpop op $((i % 3 + 1)) offline > /dev/null
	hpop op $((i % 3 + 1)) online > /dev/null
	i=$((i + 1))
done
hplat_stop
grep '"event": "op"' /tmp/l.json |
	sed -n 's/.*"op": "\([a-z]*\)", "cpu": [0-9]*, "latency_us": \([0-9.]*\), "brake_us": \([0-9.]*\).*/data: lat op=\1 us=\2 brake_us=\3/p'

for t in 1 2 4 8; do
	hplat_start /tmp/r.json -j -S || exit 1
	hpload -t "$t" -d "$secs" -j > /tmp/load.json || exit 1
	hplat_stop
	dur=$(sed -n 's/.*"duration_s": \([0-9.]*\).*/\1/p' /tmp/load.json)
	echo "data: tput testers=$t hpload_ops_s=$(sed -n 's/.*"ops_per_s": \([0-9.]*\), "restored_cpus".*/\1/p' /tmp/load.json) kernel_ops_s=$(jtop /tmp/r.json ops_per_s) kernel_interval_s=$(jtop /tmp/r.json interval_s) ceiling_ops_s=$(jtop /tmp/r.json ceiling_ops_per_s) hpload_s=$dur ops=$(($(op_figs /tmp/r.json offline | cut -d' ' -f1) + $(op_figs /tmp/r.json online | cut -d' ' -f1))) op_total_us=$(awk -v m="$(jtop /tmp/r.json mean_in_flight)" -v i="$(jtop /tmp/r.json interval_s)" 'BEGIN { printf "%.0f", m * i * 1e6 }') in_steps_us=$(opsum /tmp/r.json in_steps_us) lock_wait_ms=$(jtop /tmp/r.json lock_wait_ms) lock_restarts=$(jtop /tmp/r.json lock_restarts) max_in_flight=$(jtop /tmp/r.json max_in_flight)"
done

# tracer overhead: the same workload without and with hplat, alternating
# (on a braked kernel every op is a second of sleep: fewer, shorter rounds)
pairs=3 rounds=3
[ "$brake" -gt 0 ] && pairs=1 rounds=2
workload() {
	t0=$(hpop now)
	i=0
	while [ $i -lt "$pairs" ]; do
		hpop op $((i % 3 + 1)) offline > /dev/null
		hpop op $((i % 3 + 1)) online > /dev/null
		i=$((i + 1))
	done
	awk -v n=$((pairs * 2)) -v us=$(($(hpop now) - t0)) 'BEGIN { printf "%.3f", n / (us / 1e6) }'
}
for r in $(seq "$rounds"); do
	base=$(workload)
	hplat_start /tmp/o.json -j || exit 1
	traced=$(workload)
	hplat_stop
	echo "data: overhead round=$r base_ops_s=$base traced_ops_s=$traced"
done

# stress-ng as a peer (not in the arm64 guest: the host's is x86-64)
if ! command -v stress-ng > /dev/null; then
	echo "data: stressng off_ms=n/a on_ms=n/a hplat_off_ms=n/a hplat_on_ms=n/a"
	exit 0
fi
hplat_start /tmp/s.json -j || exit 1
stress-ng --cpu-online 1 --cpu-online-ops 4 --pathological --metrics -t 120 > /tmp/sng.out 2>&1
hplat_stop
set -- $(op_figs /tmp/s.json offline)
hoff=$4
set -- $(op_figs /tmp/s.json online)
hon=$4
echo "data: stressng off_ms=$(sed -n 's/.* \([0-9.]*\) millisecs per offline action.*/\1/p' /tmp/sng.out) on_ms=$(sed -n 's/.* \([0-9.]*\) millisecs per online action.*/\1/p' /tmp/sng.out) hplat_off_ms=$(us_to_ms "${hoff%.*}") hplat_on_ms=$(us_to_ms "${hon%.*}")"
