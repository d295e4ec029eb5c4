# make demo: the brake at work in a braked guest (not a test).
. /scenarios/lib/ktap.sh

show_op() {
	hp_op "$1" "$2"
	printf '  %-8s cpu%s  %9s ms  %s\n' "$2" "$1" "$(us_to_ms "$OP_US")" \
		"$([ "$OP_RET" = 0 ] && echo ok || echo "$OP_ERRNO")"
}

# writer CPU SECONDS: offline/online CPU in a loop, one line per op
writer() {
	end=$(($(hpop now) + $2 * 1000000))
	while [ "$(hpop now)" -lt "$end" ]; do
		hpop op "$1" offline
		hpop op "$1" online
	done
}

round() {
	echo
	echo "brake_ms = $(cat "$KNOB"): one writer, cpu1..3 down and up"
	for cpu in 1 2 3; do
		show_op "$cpu" offline
	done
	for cpu in 1 2 3; do
		show_op "$cpu" online
	done
}

echo "hpbrake demo: $(uname -r), $(nproc) CPUs online"
echo "$KNOB is $(stat -c %a "$KNOB"), reads $(cat "$KNOB")"
round
echo 250 > "$KNOB"
round
echo 0 > "$KNOB"
round

for ms in 0 1000; do
	echo "$ms" > "$KNOB"
	echo
	echo "brake_ms = $ms: three writers on cpu1..3 for 10 s, under hplat -L10 -S"
	hplat_start /tmp/hplat.txt -L10 -S || exit 1
	t0=$(hpop now)
	pids=""
	for cpu in 1 2 3; do
		writer "$cpu" 10 > "/tmp/writer$cpu" &
		pids="$pids $!"
	done
	wait $pids
	t1=$(hpop now)
	hplat_stop
	cat /tmp/writer1 /tmp/writer2 /tmp/writer3 | awk -v us=$((t1 - t0)) '
		/ret=0/ { n++; split($NF, a, "="); sum += a[2] }
		END { printf "  writers: %d ops in %.1f s = %.2f ops/s, mean latency %.1f ms\n",
			n, us / 1e6, n / (us / 1e6), n ? sum / n / 1000 : 0 }'
	echo "  hplat:"
	sed 's/^/  /' /tmp/hplat.txt
done
echo
echo "With the brake, writers queue on the device hotplug lock: together"
echo "they get at most 1000 / brake_ms operations a second. The lock line"
echo "shows the losers' restarts and the time they spent waiting."
