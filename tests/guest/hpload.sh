# hpload in the guest: what it counts equals what hplat counts, and it
# never leaves a CPU offline, also when interrupted; without the rights
# to write cpuN/online it says so and touches nothing.
#
# usage: hpload.sh SECONDS [BRAKE_MS]   (BRAKE_MS: written to the runtime
#        knob first: what is checked here does not depend on the brake,
#        and a short one gives more ops in less time)
. /scenarios/lib/ktap.sh

secs=${1:-8}
if [ -n "${2:-}" ] && ! echo "$2" > "$KNOB"; then
	echo "# cannot set $KNOB to $2"
	exit 1
fi
ktap_plan 6
out=/tmp/hplat.json

hplat_start "$out" -j || exit 1
hpload -t 3 -d "$secs" -j > /tmp/hpload.json
rc=$?
hplat_stop
echo "# hpload: $(cat /tmp/hpload.json)"
# seq with 3 writers on 3 CPUs: each writer owns one CPU, so no write is
# a no-op that the kernel never passes to cpu_subsys_*()
check_load "3 writers, $secs s: hpload's successful ops (+ restores) equal hplat's (offline online)" \
	/tmp/hpload.json "$out"
# hpload times each write around the kernel function that hplat times,
# so its fastest op is never faster than hplat's fastest, nor its slowest
# offline faster than hplat's slowest (the online ops hplat saw also hold
# the restores, which hpload does not time). One-sided: a clock of
# hpload's that reads high passes; the ops, not the latencies, are what
# the other checks pin.
set -- $(sed -n 's/.*"offline": {"ops": [0-9]*, "ops_per_s": [0-9.]*, "min_us": \([0-9]*\), "p50_us": [0-9]*, "p99_us": [0-9]*, "max_us": \([0-9]*\).*/\1 \2/p' /tmp/hpload.json) \
	$(sed -n 's/.*"online": {"ops": [0-9]*, "ops_per_s": [0-9.]*, "min_us": \([0-9]*\),.*/\1/p' /tmp/hpload.json)
u_figs="offline min ${1:-?} max ${2:-?}, online min ${3:-?}"
k_off_min=$(op_figs "$out" offline | awk '{ printf "%d", $3 }')
k_off_max=$(op_figs "$out" offline | awk '{ printf "%d", $7 }')
k_on_min=$(op_figs "$out" online | awk '{ printf "%d", $3 }')
k_figs="offline min ${k_off_min:-?} max ${k_off_max:-?}, online min ${k_on_min:-?}"
if [ $# = 3 ] && [ -n "$k_off_min" ] && [ -n "$k_off_max" ] && [ -n "$k_on_min" ] &&
   [ "$1" -ge "$k_off_min" ] && [ "$2" -ge "$k_off_max" ] && [ "$3" -ge "$k_on_min" ]; then
	ok "hpload's latencies (us: $u_figs) not under hplat's ($k_figs)"
else
	not_ok "hpload's latencies (us: $u_figs), want each at least hplat's ($k_figs)"
fi
nsum=$(grep -c '"event": "summary"' "$out")
if [ "$rc" = 0 ] && all_online && [ "$HPLAT_RC" = 0 ] && [ "$nsum" = 1 ]; then
	ok "hpload exits 0 and every CPU is online after it; hplat exits 0 with its summary"
else
	not_ok "hpload exited $rc, hplat $HPLAT_RC with $nsum summaries (want 0, 0, 1); online: $(cat /sys/devices/system/cpu/cpu*/online | tr '\n' ' ')"
fi

# After SIGINT hpload's main loop sees it within its 50 ms tick, the
# writers end the ops they are in (one per CPU at a time, 3 at most,
# queued on the hotplug lock: each in its window), and the CPUs left
# offline, 3 at most, come back one after the other: that is its bound.
# An hpload that ignores SIGINT runs out its 60 s.
b=0
[ -e "$KNOB" ] && b=$(cat "$KNOB")
sig_hi=$((50 + 3 * $(op_hi "$b" offline) + 3 * $(op_hi "$b" online)))
hpload -t 4 -p random -d 60 > /tmp/hpload.txt 2>&1 &
pid=$!
sleep 2
t0=$(hpop now)
kill -INT "$pid"
wait "$pid"
rc=$?
sig_ms=$((($(hpop now) - t0) / 1000))
if [ "$rc" = 0 ] && all_online && [ "$sig_ms" -lt "$sig_hi" ]; then
	ok "SIGINT after 2 s: hpload exits 0 after $sig_ms ms (< $sig_hi), every CPU online"
else
	not_ok "SIGINT: hpload exited $rc after $sig_ms ms (want < $sig_hi); online: $(cat /sys/devices/system/cpu/cpu*/online | tr '\n' ' ')"
fi
if grep -q '^total' /tmp/hpload.txt; then
	ok "SIGINT: the summary is printed ($(grep '^total' /tmp/hpload.txt))"
else
	not_ok "SIGINT: no summary: $(tail -n 1 /tmp/hpload.txt)"
fi
mask=$(cat /sys/devices/system/cpu/online)
su -s /bin/sh nobody -c 'hpload -d 1' > /tmp/nopriv.out 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q 'CAP_DAC_OVERRIDE' /tmp/nopriv.out &&
   [ "$(cat /sys/devices/system/cpu/online)" = "$mask" ]; then
	ok "as uid 65534: exit 1, CPUs untouched, $(head -n 1 /tmp/nopriv.out)"
else
	not_ok "as uid 65534: exit $rc: $(head -n 1 /tmp/nopriv.out)"
fi
ktap_done
