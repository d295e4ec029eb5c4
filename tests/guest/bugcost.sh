# make bugcost, guest side: one cell of the experiment (a measurement,
# not a test). The planted bugs of hpbrake_bugs loaded, the brake set,
# TESTERS hpload writers for SECONDS under hplat; one "bugcost:" line
# with the ops and the hits of both classes, "bugcost-gap: MS OPS WORK"
# lines with how soon each stale hit's CPU was back, after how many
# operations, and when the work ran, and a progress line every 10 s.
#
# usage: bugcost.sh BRAKE_MS TESTERS SECONDS
. /scenarios/lib/ktap.sh

brake=${1:?usage: bugcost.sh BRAKE_MS TESTERS SECONDS}
testers=${2:?usage: bugcost.sh BRAKE_MS TESTERS SECONDS}
secs=${3:?usage: bugcost.sh BRAKE_MS TESTERS SECONDS}
D=/sys/kernel/debug/hpbrake_bugs
insmod /lib/modules/hpbrake/hpbrake_bugs.ko || exit 1
echo "$brake" > "$KNOB" || exit 1
dmesg -c > /dev/null
hplat_start /tmp/bc.json -j || exit 1
echo 1 > $D/reset
t0=$(hpop now)
hpload -t "$testers" -d "$secs" -j > /tmp/bc-load.json &
load=$!
# the kernel log is read as it comes: the printk ring is smaller than
# what a minute of hits writes
: > /tmp/bc.dmesg
n=0
while kill -0 "$load" 2>/dev/null; do
	sleep 1
	dmesg -c >> /tmp/bc.dmesg
	n=$((n + 1))
	[ $((n % 10)) = 0 ] || continue
	echo "# progress: $((($(hpop now) - t0) / 1000000)) s of $secs, race hits $(cat $D/race_hits), stale hits $(cat $D/stale_hits)"
done
wait "$load"
# every stale work of the last teardowns has run
sleep 0.5
dmesg -c >> /tmp/bc.dmesg
hplat_stop
set -- $(op_figs /tmp/bc.json offline)
off=${1:-0}
set -- $(op_figs /tmp/bc.json online)
on=${1:-0}
echo "bugcost: brake_ms=$brake testers=$testers seconds=$secs offline_ops=$off online_ops=$on teardowns=$(cat $D/teardowns) race_hits=$(cat $D/race_hits) stale_hits=$(cat $D/stale_hits) first_race_ms=$(cat $D/first_race_ms) first_stale_ms=$(cat $D/first_stale_ms) looks=$(cat $D/looks) late_looks=$(cat $D/late_looks) late_opens=$(cat $D/late_opens) log_race=$(grep -c 'hpbrake_bugs: race hit' /tmp/bc.dmesg) log_stale=$(grep -c 'hpbrake_bugs: stale hit' /tmp/bc.dmesg)"
sed -n 's/.*hpbrake_bugs: stale hit: .*(\([0-9]*\) ms, \([0-9]*\) ops, work at \([0-9]*\) ms)$/bugcost-gap: \1 \2 \3/p' /tmp/bc.dmesg
rmmod hpbrake_bugs
all_online
