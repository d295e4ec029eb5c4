# Real testers as peers, under hplat: Debian's stress-ng (--cpu-online)
# and the kernel's own cpu-hotplug selftest. hplat's counts and means
# against the peers' own figures.
#
# usage: peers.sh none|BRAKE_MS   (none: vanilla kernel; BRAKE_MS is
#        written to the runtime knob first, so a short brake keeps the
#        run short: the default brake is checked by brake.sh and the gate)
. /scenarios/lib/ktap.sh

brake=${1:?usage: peers.sh none|BRAKE_MS}
if [ "$brake" != none ] && ! echo "$brake" > "$KNOB"; then
	echo "# cannot set $KNOB to $brake"
	exit 1
fi
ops=6
ktap_plan 4
out=/tmp/peer.json

# stress-ng: ops offline+online actions on one worker
hplat_start "$out" -j || exit 1
stress-ng --cpu-online 1 --cpu-online-ops "$ops" --pathological --metrics \
	-t 120 > /tmp/stress-ng.out 2>&1
rc=$?
hplat_stop
s_off=$(sed -n 's/.* \([0-9.]*\) millisecs per offline action.*/\1/p' /tmp/stress-ng.out)
s_on=$(sed -n 's/.* \([0-9.]*\) millisecs per online action.*/\1/p' /tmp/stress-ng.out)
set -- $(op_figs "$out" offline)
h_off_n=$1 h_off_mean=$4 h_off_p50=$5 h_off_p99=$6
set -- $(op_figs "$out" online)
h_on_n=$1 h_on_mean=$4 h_on_p50=$5 h_on_p99=$6
echo "# stress-ng: exit $rc, $s_off ms per offline, $s_on ms per online"
echo "# hplat: offline $h_off_n ops mean $(us_to_ms "${h_off_mean%.*}") p50 $(us_to_ms "${h_off_p50%.*}") p99 $(us_to_ms "${h_off_p99%.*}") ms; online $h_on_n ops mean $(us_to_ms "${h_on_mean%.*}") p50 $(us_to_ms "${h_on_p50%.*}") p99 $(us_to_ms "${h_on_p99%.*}") ms"
echo "peer: stress-ng brake=$brake stress_off_ms=$s_off stress_on_ms=$s_on hplat_off_n=$h_off_n hplat_off_mean_us=$h_off_mean hplat_off_p99_us=$h_off_p99 hplat_on_n=$h_on_n hplat_on_mean_us=$h_on_mean hplat_on_p99_us=$h_on_p99" > /tmp/peer.line
sed 's/^/# /' /tmp/peer.line
check_eq "stress-ng --cpu-online-ops $ops: exit 0, hplat counts $ops offline and $ops online" \
	"$rc $h_off_n $h_on_n" "0 $ops $ops"

# the cross-check: hplat's mean against stress-ng's per-action figure.
# stress-ng times the write(2) that hplat's op lies within, over the
# same ops (counted above): hplat's mean is never above it, on either
# kernel (in make check's runs to 2026-12-07 it was 0.34-5.6 ms below
# on vanilla, 0.71-2.5 ms on the braked kernel at 100 ms: 146 and 148
# means). Below it by no more than 5 % on the braked kernel; not judged
# on vanilla, whose ops of a few ms the syscall around them (0.7 ms and
# more) outgrows.
gap_ok() {	# STRESS_MS HPLAT_MEAN_US MAX_FRACTION (-1: no upper bound)
	awk -v s="$1" -v h="$2" -v f="$3" 'BEGIN {
		if (s == "" || h == "") exit 1
		g = s * 1000 - h
		exit !(g >= 0 && (f < 0 || g <= s * 1000 * f)) }'
}
frac=0.05 how="not above stress-ng's per action, nor 5 % below it"
[ "$brake" != none ] ||
	frac=-1 how="not above stress-ng's per action (no lower bound on vanilla)"
if gap_ok "$s_off" "$h_off_mean" "$frac" && gap_ok "$s_on" "$h_on_mean" "$frac"; then
	ok "hplat mean $how: offline $(us_to_ms "${h_off_mean%.*}") vs $s_off ms, online $(us_to_ms "${h_on_mean%.*}") vs $s_on ms"
else
	not_ok "hplat mean $how: offline $(us_to_ms "${h_off_mean%.*}") vs ${s_off:-?} ms, online $(us_to_ms "${h_on_mean%.*}") vs ${s_on:-?} ms"
fi

# the kernel's selftest: one CPU offline and back online
hplat_start "$out" -j || exit 1
bash /peers/cpu-on-off-test.sh > /tmp/selftest.out 2>&1
rc=$?
hplat_stop
set -- $(op_figs "$out" offline)
h_off_n=$1 h_off_mean=$4
set -- $(op_figs "$out" online)
h_on_n=$1 h_on_mean=$4
sed 's/^/# selftest: /' /tmp/selftest.out | tail -n 3
echo "# peer: selftest brake=$brake hplat_off_n=$h_off_n hplat_off_mean_us=$h_off_mean hplat_on_n=$h_on_n hplat_on_mean_us=$h_on_mean"
check_eq "cpu-on-off-test.sh exits 0" "$rc" 0
check_eq "hplat counts its 1 offline and 1 online" "$h_off_n $h_on_n" "1 1"
ktap_done
