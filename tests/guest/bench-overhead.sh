# make bench-overhead: what hplat costs (a benchmark, not a test).
# 1. Exact: with kernel.bpf_stats on (hplat -v), the run time of every
#    hplat program per traced op, in each attach mode, with and without
#    -S and -e, against the mean latency of the same ops.
# 2. A/B: the same workload without and with hplat attached, alternating,
#    ops/s (noisy under TCG: read it against its min..max).
#
# usage: bench-overhead.sh ROUNDS PAIRS
. /scenarios/lib/ktap.sh

rounds=${1:-5}
pairs=${2:-10}

# workload: PAIRS offline+online pairs over cpu1..3; prints ops/s
workload() {
	t0=$(hpop now)
	i=0
	while [ $i -lt "$pairs" ]; do
		cpu=$((i % 3 + 1))
		hpop op "$cpu" offline > /dev/null || return 1
		hpop op "$cpu" online > /dev/null || return 1
		i=$((i + 1))
	done
	t1=$(hpop now)
	awk -v n=$((pairs * 2)) -v us=$((t1 - t0)) 'BEGIN { printf "%.3f", n / (us / 1e6) }'
}

echo "# bench: $(uname -r), $(nproc) CPUs, $rounds rounds of $pairs pairs"
for mode in "fentry" "fentry -S" "fentry -e" "fentry -S -e" "kprobe -k" "kprobe -k -S"; do
	flags=${mode#* }
	[ "$flags" = "$mode" ] && flags=""
	hplat_start /tmp/cost.json -j -v $flags || exit 1
	workload > /dev/null
	hplat_stop
	# the bpf_stats line: ops, run time, ns per op; the summary: mean op
	set -- $(sed -n 's/.*"event": "bpf_stats", "ops": \([0-9]*\),.*"run_time_ns": \([0-9]*\), "ns_per_op": \([0-9.]*\), "mean_op_us": \([0-9.]*\).*/\1 \2 \3 \4/p' /tmp/cost.json)
	echo "bench: cost mode=$(echo "$mode" | tr ' ' '_') ops=${1:-0} run_time_ns=${2:-0} ns_per_op=${3:-0} mean_op_us=${4:-0}"
	# which program costs what (run_cnt, run_time_ns each)
	echo "# bpf_stats $mode: $(grep '"event": "bpf_stats"' /tmp/cost.json | sed 's/.*"programs": {//; s/}, "run_time_ns".*//')"
done

r=1
while [ $r -le "$rounds" ]; do
	# alternate which runs first, so drift does not favour one side
	if [ $((r % 2)) = 1 ]; then
		base=$(workload)
		hplat_start /tmp/bench.json -j || exit 1
		traced=$(workload)
		hplat_stop
	else
		hplat_start /tmp/bench.json -j || exit 1
		traced=$(workload)
		hplat_stop
		base=$(workload)
	fi
	counted=$(op_figs /tmp/bench.json offline | cut -d' ' -f1)
	echo "bench: round=$r base_ops_per_s=$base traced_ops_per_s=$traced hplat_offline_count=$counted"
	r=$((r + 1))
done
