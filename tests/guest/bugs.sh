# The planted bugs of hpbrake_bugs (tests/module/), detected by the
# module itself, on the braked kernel:
# - class 2 (stale deferred work, delay 150 ms): K quick offline->online
#   pairs with the knob at 0 give exactly K hits (an unbraked online is
#   back 13-30 ms after the teardown in two runs, 2026-12-03); the same K
#   pairs with the brake at 250 ms (over the delay) give none;
# - class 1 (race, a 20 ms window on a grid the walker looks at once
#   every 80 ms, at a random step: a chance of 1/4 a teardown): N ops at
#   brake 0 (N/2 teardowns) hit at least once and at most LIMIT times,
#   more than LIMIT having a binomial chance below 1 in 10,000 (the
#   chance of no hit in 40 teardowns is 1.0e-5, of more than 21 hits
#   4.9e-5);
# - the module's counters equal its log lines, and it unloads clean.
#
# usage: bugs.sh [K] [N]   (default 6 and 80)
. /scenarios/lib/ktap.sh

k=${1:-6}
nops=${2:-80}
# busybox awk's doubles: 0.75^N underflows past about 2500 teardowns
[ "$nops" -le 2000 ] || { echo "# bugs.sh: N is at most 2000"; exit 2; }
D=/sys/kernel/debug/hpbrake_bugs
mod=/lib/modules/hpbrake/hpbrake_bugs.ko
ktap_plan 8
[ -f "$mod" ] || { echo "# no $mod: a kernel without the guest-only modules"; exit 1; }

# pairs N CPU_START: N offline+online pairs over cpu1..3
pairs() {
	i=0
	while [ "$i" -lt "$1" ]; do
		cpu=$((i % 3 + 1))
		hp_op "$cpu" offline
		hp_op "$cpu" online
		i=$((i + 1))
	done
}
# settle: past the stale works' delay, so that every one has run
settle() {
	sleep 0.4
}

dmesg -c > /dev/null
check_eq "insmod hpbrake_bugs" "$(insmod "$mod" 2>&1; echo $?)" 0

echo 0 > "$KNOB"
echo 1 > $D/reset
pairs "$k"
settle
got=$(cat $D/stale_hits)
echo "# knob 0: $(cat $D/teardowns) teardowns, stale hits $got, race hits $(cat $D/race_hits)"
dmesg | grep 'stale hit' | sed 's/^/# /' | tail -n 3
check_eq "class 2, knob 0: $k quick offline->online pairs, $k stale hits" "$got" "$k"

echo 250 > "$KNOB"
echo 1 > $D/reset
pairs "$k"
settle
check_eq "class 2, brake 250 ms (over the 150 ms delay): $k pairs, no stale hit" \
	"$(cat $D/stale_hits) $(cat $D/teardowns)" "0 $k"

echo 0 > "$KNOB"
echo 1 > $D/reset
dmesg -c > /dev/null
pairs $((nops / 2))
settle
race=$(cat $D/race_hits)
td=$(cat $D/teardowns)
echo "# class 1: $td teardowns, $race race hits ($(awk -v h="$race" -v n="$td" 'BEGIN { printf "%.3f", n ? h / n : 0 }') a teardown), first after $(cat $D/first_race_ms) ms"
if [ "$race" -ge 1 ]; then
	ok "class 1, knob 0: $race race hits in $nops ops"
else
	not_ok "class 1, knob 0: no race hit in $nops ops ($td teardowns)"
fi
# the chance is the bug's own (1/4), not the guest's pace: the largest
# count whose binomial tail (n = teardowns, p = 1/4) is 1 in 10,000 or more
limit=$(awk -v n="$td" 'BEGIN {
	# busybox awk has no pow(): the binomial terms one from the other
	p = 0.25; f[0] = 1
	for (i = 0; i < n; i++) f[0] *= 1 - p
	for (k = 0; k < n; k++) f[k + 1] = f[k] * (n - k) / (k + 1) * p / (1 - p)
	for (k = n; k >= 0; k--) if ((t += f[k]) >= 1e-4) { print k; exit }
}')
if [ "$td" -eq $((nops / 2)) ] && [ "$race" -le "$limit" ]; then
	ok "class 1: $race hits in $td teardowns, at most $limit at a chance of 1/4"
else
	not_ok "class 1: $race hits in $td teardowns (want $((nops / 2)) teardowns, at most $limit hits at a chance of 1/4)"
fi
check_eq "the module's counters equal its log lines (race stale)" \
	"$(dmesg | grep -c 'hpbrake_bugs: race hit') $(dmesg | grep -c 'hpbrake_bugs: stale hit')" \
	"$race $(cat $D/stale_hits)"

rmmod hpbrake_bugs
check_eq "rmmod: no module, no debugfs directory" \
	"$(grep -c hpbrake_bugs /proc/modules) $([ -e $D ] && echo left || echo gone)" "0 gone"
# nothing of it runs after the unload: no hit in the log for a second
dmesg -c > /dev/null
hp_op 1 offline
hp_op 1 online
sleep 0.3
check_eq "after the unload: ops work, no hit logged" \
	"$OP_RET $(dmesg | grep -c hpbrake_bugs)" "0 0"
echo 1000 > "$KNOB"
ktap_done
