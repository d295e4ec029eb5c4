# make bench-overhead: the same hotplug workload with and without hplat
# attached, alternating, in one guest run (a benchmark, not a test).
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
