# Soak: 8 hpload writers, random pattern, for SECONDS, with hplat -e
# attached. Nothing is lost (hpload's successful ops equal hplat's per op
# type, one trace line per op, no event dropped), nothing breaks (no
# WARNING, BUG, Oops, lockdep report or hung task in the kernel log, every
# CPU online at the end).
#
# usage: soak.sh SECONDS [tiny|lockdep]
#   lockdep: the kernel must have lockdep (the debug suite's): without it
#   the lockdep check fails instead of skipping
#   tiny: a 4 KiB ring buffer (73 events), and hplat stopped (SIGSTOP)
#   for 8 s in the middle of the run so that it fills: events are
#   dropped, each drop is counted, and trace lines + drops still equal
#   hplat's count. Needs SECONDS >= 12 and a kernel that does more than
#   10 ops/s (vanilla).
. /scenarios/lib/ktap.sh

secs=${1:?usage: soak.sh SECONDS [tiny|lockdep]}
tiny="" want_lockdep=""
case "${2:-}" in
"") ;;
tiny) tiny=1 ;;
lockdep) want_lockdep=1 ;;
*) echo "# soak.sh: tiny or lockdep, not '$2'"; exit 2 ;;
esac
if [ -n "$tiny" ] && [ "$secs" -lt 12 ]; then
	echo "# soak.sh: tiny needs at least 12 seconds"
	exit 2
fi
ktap_plan 9
out=/tmp/soak.json
echo "# $(uname -r), $(nproc) CPUs online, brake: $(cat "$KNOB" 2>/dev/null || echo none)"

# what the kernel log must never show: the pattern vm/run looks for on
# the console too
SPLAT=$(cat /scenarios/lib/splat.ere)
dmesg -c > /dev/null

if [ -n "$tiny" ]; then
	hplat_start "$out" -j -e -B 4
else
	hplat_start "$out" -j -e
fi
check_eq "hplat -e attached" "$?" 0
hpload -t 8 -p random -d "$secs" -j > /tmp/hpload.json &
load_pid=$!
if [ -n "$tiny" ]; then
	sleep $(((secs - 8) / 2))
	kill -STOP "$HPLAT_PID"
	sleep 8
	kill -CONT "$HPLAT_PID"
fi
# the kernel log is read while the run goes on: the ring of printk is
# smaller than what a long soak writes
: > /tmp/soak.dmesg
while kill -0 "$load_pid" 2>/dev/null; do
	dmesg -c | grep -E "$SPLAT" >> /tmp/soak.dmesg
	sleep 1
done
wait "$load_pid"
load_rc=$?
sleep 0.5
hplat_stop
dmesg -c | grep -E "$SPLAT" >> /tmp/soak.dmesg
echo "# hpload: $(cat /tmp/hpload.json)"

check_eq "hpload exits 0 after $secs s of 8 random writers" "$load_rc" 0
check_eq "hplat exits 0 with a summary" \
	"$HPLAT_RC $(grep -c '"ops_per_s"' "$out")" "0 1"

# sets k_off, k_off_err, k_on, k_on_err too
check_load "hpload's successful ops equal hplat's (offline, online)" \
	/tmp/hpload.json "$out"
set -- $(op_figs "$out" offline)
off_p99=${6:-0}
set -- $(op_figs "$out" online)
on_p99=${6:-0}

t_off=$(grep -c '"event": "op", .*"op": "offline"' "$out")
t_on=$(grep -c '"event": "op", .*"op": "online"' "$out")
dropped=$(jtop "$out" dropped_events)
if [ -z "$tiny" ]; then
	check_eq "one trace line per op (offline, online)" \
		"$t_off $t_on" "$k_off $k_on"
	check_eq "no event dropped" "$dropped" 0
else
	check_eq "trace lines + dropped events equal hplat's count" \
		"$((t_off + t_on + dropped))" "$((k_off + k_on))"
	if [ "${dropped:-0}" -gt 0 ]; then
		ok "the 4 KiB ring buffer overflowed: $dropped events dropped and counted"
	else
		not_ok "no event dropped with a 4 KiB ring buffer and hplat stopped 8 s"
	fi
fi

if [ -s /tmp/soak.dmesg ]; then
	not_ok "kernel log clean: $(head -n 3 /tmp/soak.dmesg | tr '\n' ' ')"
else
	ok "kernel log clean: no WARNING, BUG, Oops, lockdep report or hung task"
fi
if all_online; then
	ok "every CPU online at the end"
else
	not_ok "every CPU online at the end: online $(cat /sys/devices/system/cpu/online)"
fi
# on a lockdep kernel: the validator was still on at the end (a report
# turns it off for good), so the brake's sleep under the device hotplug
# lock was checked for the whole run
if [ -r /proc/lockdep_stats ]; then
	check_eq "lockdep ran the whole soak (debug_locks)" \
		"$(sed -n 's/^ *debug_locks: *//p' /proc/lockdep_stats)" 1
elif [ -n "$want_lockdep" ]; then
	not_ok "lockdep ran the whole soak: this kernel has no lockdep (no /proc/lockdep_stats)"
else
	ok "lockdep ran the whole soak # SKIP kernel without lockdep"
fi

ops=$((k_off + k_on))
# hpload's duration: until its last writer is done, past SECONDS by the
# ops that were under way
dur=$(sed -n 's/.*"duration_s": \([0-9.]*\).*/\1/p' /tmp/hpload.json)
echo "# soak: ${dur:-?} s, $k_off offline + $k_on online = $ops ops," \
	"$(awk -v n=$ops -v s="${dur:-$secs}" 'BEGIN { printf "%.2f", n / s }') ops/s," \
	"p99 offline $off_p99 us, online $on_p99 us," \
	"errors $k_off_err/$k_on_err, dropped ${dropped:-?}," \
	"lock restarts $(jtop "$out" lock_restarts), max in flight $(jtop "$out" max_in_flight)"
ktap_done
