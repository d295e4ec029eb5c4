# hplat in the guest: exact counts, latencies that agree with user space,
# per-CPU attribution, errors, concurrency and lock restarts, kprobe mode,
# per-step breakdown.
#
# usage: hplat.sh none|BRAKE_MS   (none: vanilla kernel; BRAKE_MS is
#        written to the runtime knob first, so a short brake keeps the
#        run short: the default brake is checked by brake.sh and the gate)
. /scenarios/lib/ktap.sh

brake=${1:?usage: hplat.sh none|BRAKE_MS}
if [ "$brake" != none ] && ! echo "$brake" > "$KNOB"; then
	echo "# cannot set $KNOB to $brake"
	exit 1
fi
ktap_plan 16
echo "# $(uname -r), $(nproc) CPUs online, brake: $brake"
out=/tmp/hplat.json

# timed OP CPU: one op, its user-space latency appended to /tmp/us.OP
timed() {
	hp_op "$2" "$1"
	[ "$OP_RET" = 0 ] && echo "$OP_US" >> "/tmp/us.$1"
}

# 1..8: one hplat run with -C -S -L over 6 offline and 6 online ops:
# cpu1 once, cpu2 twice, cpu3 three times.
measure() {
	rm -f /tmp/us.online /tmp/us.offline
	attached=""
	if hplat_start "$out" -j -C -S -L; then
		attached=$(sed -n 's/.*"attach_mode": "\([a-z]*\)", "attach_ms": \([0-9.]*\).*/\1 in \2 ms/p' "$out" | head -n 1)
	fi
	for cpu in 1 2 2 3 3 3; do
		timed offline "$cpu"
		timed online "$cpu"
	done
	hplat_stop
	set -- $(op_figs "$out" offline)
	off_count=$1 off_err=$2 off_min=$3 off_p50=$5 off_p99=$6 off_max=$7
	set -- $(op_figs "$out" online)
	on_count=$1 on_err=$2 on_min=$3 on_p50=$5 on_p99=$6 on_max=$7
}

# agree OP: hplat's and hpop's min/p50/max of OP, each within 5 ms;
# sets k and u to the two triples
agree() {
	if [ "$1" = offline ]; then
		k="$off_min $off_p50 $off_max"
	else
		k="$on_min $on_p50 $on_max"
	fi
	set -- $(us_stats "/tmp/us.$1")
	u="$2 $3 $4"
	set -- $k $u
	within "$1" "$4" 5000 && within "$2" "$5" 5000 && within "$3" "$6" 5000
}

measure
# One more run if they disagree: make check boots two TCG guests on two
# cores, and a vCPU the host preempts between the write and the kernel
# function adds to the user-space time only (6.8 and 10.6 ms over, in 2
# of 5 fresh-clone runs). The checks below all use the last run; a
# second disagreement fails.
if [ "$brake" != none ] && ! { agree offline && agree online; }; then
	echo "# min/p50/max disagree by more than 5 ms (hplat $k, hpop $u us): measuring again"
	measure
fi
if [ -n "$attached" ]; then
	ok "hplat attached ($attached)"
else
	not_ok "hplat attached"
fi
check_eq "hplat exits 0 on SIGINT with a summary" \
	"$HPLAT_RC $(grep -c '"ops_per_s"' "$out")" "0 1"
check_eq "exact counts: 6 offline, 6 online, no errors" \
	"$off_count $off_err $on_count $on_err" "6 0 6 0"

if [ "$brake" = none ]; then
	if [ "${off_p99%.*}" -lt 200000 ] && [ "${on_p99%.*}" -lt 200000 ]; then
		ok "vanilla: p99 offline $off_p99 us, online $on_p99 us < 200 ms"
	else
		not_ok "vanilla: p99 offline $off_p99 us, online $on_p99 us, expected < 200 ms"
	fi
else
	if [ "${off_min%.*}" -ge $((brake * 1000)) ] && [ "${on_min%.*}" -ge $((brake * 1000)) ]; then
		ok "every latency >= brake: min offline $off_min us, online $on_min us"
	else
		not_ok "min offline $off_min us, online $on_min us, expected >= $((brake * 1000)) us"
	fi
fi

# min/p50/max against the user-space timings of the same ops (5 ms)
for op in offline online; do
	if agree "$op" && [ "$brake" != none ]; then
		ok "$op min/p50/max agree with user space within 5 ms: hplat $k, hpop $u us"
	elif [ "$brake" = none ]; then
		# the 5 ms bound is for braked ops; a vanilla op of a few ms can
		# lose more than that to the guest's scheduling alone
		ok "$op min/p50/max: hplat $k, hpop $u us # SKIP the 5 ms bound is for the braked kernel"
	else
		not_ok "$op min/p50/max: hplat $k, hpop $u us, differ by more than 5 ms"
	fi
done

# -C: each op on the CPU that was plugged
percpu=$(grep '"ops_per_s"' "$out" | tail -n 1 | awk '{
	n = split($0, p, "\"per_cpu\": ")
	for (i = 2; i <= n; i++)
		for (c = 1; c <= 3; c++)
			if (match(p[i], "\"" c "\": [{]\"count\": [0-9]+")) {
				t = substr(p[i], RSTART, RLENGTH)
				sub(/.*: /, "", t)
				printf "%s ", t
			}
}')
check_eq "-C: cpu1/2/3 counts, online then offline" "$percpu" "1 2 3 1 2 3 "

# -S: the brake is the dominant share of a braked op
in_steps=$(grep '"ops_per_s"' "$out" | tail -n 1 | sed -n 's/.*"offline": {.*"in_steps_us": \([0-9.]*\), "outside_steps_us": \([0-9.]*\).*/\1 \2/p')
set -- $in_steps
if [ "$brake" = none ]; then
	if awk -v a="$1" 'BEGIN { exit !(a > 0) }'; then
		ok "-S: offline spends $1 us in cpuhp callbacks, $2 us outside"
	else
		not_ok "-S: no time recorded in cpuhp callbacks ($in_steps)"
	fi
elif awk -v a="$1" -v b="$2" 'BEGIN { exit !(b > 0.5 * (a + b)) }'; then
	ok "-S: brake dominates offline: $2 us outside cpuhp callbacks, $1 us in them"
else
	not_ok "-S: offline: $2 us outside callbacks, $1 us in them: brake not dominant"
fi

# 9..11: an injected cpuhp failure is recorded with -EAGAIN
state=$(sed -n 's/^ *\([0-9]*\): sched:active$/\1/p' /sys/devices/system/cpu/hotplug/states)
if [ -z "$state" ]; then
	ok "fail injection # SKIP no sched:active state"
	ok "fail injection # SKIP no sched:active state"
	ok "fail injection # SKIP no sched:active state"
else
	hplat_start "$out" -j
	echo "$state" > /sys/devices/system/cpu/cpu1/hotplug/fail
	hp_op 1 offline
	inj="$OP_ERRNO $(cpu_state 1)"
	check_eq "offline cpu1 with fail=$state (sched:active) fails, cpu stays online" \
		"$inj" "EAGAIN 1"
	hp_op 1 offline
	hp_op 1 online
	check_eq "the next offline and online of cpu1 succeed" \
		"$OP_ERRNO $(cpu_state 1)" "0 1"
	hplat_stop
	check_eq "hplat recorded it: offline errors by errno" \
		"$(grep '"ops_per_s"' "$out" | tail -n 1 | sed -n 's/.*"offline": {"count": \([0-9]*\), "errors": \([0-9]*\), "errors_by_errno": {\([^}]*\)}.*/\1 \2 \3/p')" \
		'2 1 "EAGAIN": 1'
fi

# 12: three concurrent writers serialise on the device hotplug lock
hplat_start "$out" -j
for op in offline online; do
	pids=""
	for cpu in 1 2 3; do
		hpop op "$cpu" "$op" > "/tmp/conc.$cpu" &
		pids="$pids $!"
	done
	# not a bare wait: hplat is a background job too
	wait $pids
done
hplat_stop
conc="$(jtop "$out" max_in_flight) $(jtop "$out" lock_restarts)"
set -- $conc
if [ "$1" = 1 ] && [ "${2:-0}" -gt 0 ]; then
	ok "three writers: max_in_flight 1, lock_restarts $2, lock_wait_ms $(jtop "$out" lock_wait_ms)"
else
	not_ok "three writers: max_in_flight ${1:-?} (want 1), lock_restarts ${2:-?} (want > 0)"
fi

# 13..14: kprobe mode counts what fentry mode counts
for mode in fentry kprobe; do
	flag=""
	[ $mode = kprobe ] && flag=-k
	hplat_start "$out" -j $flag
	hpop op 1 offline > /dev/null
	hpop op 1 online > /dev/null
	hpop op 2 offline > /dev/null
	hpop op 2 online > /dev/null
	hplat_stop
	set -- $(op_figs "$out" offline)
	c="$1"
	set -- $(op_figs "$out" online)
	c="$c $1 $(sed -n 's/.*"attach_mode": "\([a-z]*\)".*/\1/p' "$out" | head -n 1)"
	check_eq "$mode mode counts 2 offline, 2 online" "$c" "2 2 $mode"
done
# 15: -T: one event per operation, nothing dropped
hplat_start "$out" -j -T
for cpu in 1 2 3; do
	hpop op "$cpu" offline > /dev/null
	hpop op "$cpu" online > /dev/null
done
hplat_stop
check_eq "-T: 3 offline and 3 online events on cpu1..3, none dropped" \
	"$(grep -c '"event": "op", .*"op": "offline"' "$out") $(grep -c '"event": "op", .*"op": "online"' "$out") $(grep '"event": "op"' "$out" | sed -n 's/.*"cpu": \([0-9]*\),.*/\1/p' | sort -u | tr '\n' ' ')$(jtop "$out" dropped_events)" \
	"3 3 1 2 3 0"
# 16: without privileges the error names what is missing
su -s /bin/sh nobody -c 'hplat -d 1' > /tmp/nopriv.out 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q 'CAP_BPF and CAP_PERFMON' /tmp/nopriv.out; then
	ok "as uid 65534: exit 1, $(grep '^hplat:' /tmp/nopriv.out | tail -n 1)"
else
	not_ok "as uid 65534: exit $rc: $(tail -n 1 /tmp/nopriv.out)"
fi
echo "# open to attached, ms, of the last hplat runs (the first after boot also pays the kernel's own BTF parse): $(cat /tmp/attach_ms)"
ktap_done
