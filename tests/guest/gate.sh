# The verification gate, guest side: drive a fixed workload with hpload
# under hplat, then judge hplat's figures against the expected brake
# (tests/guest/lib/gate.sh). KTAP, seven checks; vm/gate adds the console's.
#
# usage: gate.sh EXPECT_BRAKE_MS [SECONDS] [THREADS] [SLACK_MS]
#   SLACK_MS: what an op may take over the brake at its p99; default:
#   this kernel's measured unbraked p99 + 20 ms (unbraked_p99)
. /scenarios/lib/ktap.sh
. /scenarios/lib/gate.sh

expect=${1:?usage: gate.sh EXPECT_BRAKE_MS [SECONDS] [THREADS] [SLACK_MS]}
secs=${2:-10}
threads=${3:-3}
slack=${4:-}
out=/tmp/gate.json

if [ "$(ls -d /sys/devices/system/cpu/cpu[1-9]*/online 2>/dev/null | wc -l)" -lt 1 ]; then
	echo "KTAP version 1"
	echo "1..0 # SKIP fewer than 2 CPUs, at least one hot-pluggable"
	exit 4
fi
ktap_plan "$GATE_CHECKS"
if [ -n "$slack" ]; then
	hi_off=$((expect + slack)) hi_on=$((expect + slack))
else
	hi_off=$(op_hi "$expect" offline)
	hi_on=$(op_hi "$expect" online)
	if [ "$hi_off" = 0 ] || [ "$hi_on" = 0 ]; then
		echo "# no measured unbraked p99 for $(uname -m) $(uname -r): give GATE_SLACK_MS"
		hi_off=0 hi_on=0
	fi
fi
echo "# gate: $(uname -r), $(nproc) CPUs, expect brake $expect ms, hpload -t $threads -d $secs, p99 bounds $hi_off/$hi_on ms"
btf=""
# the CI system gave the kernel's BTF (VMLINUX=): vm/gate appends it as
# /etc/vmlinux.btf and says hpbrake.btf=1 on the command line, so that a
# BTF that did not come fails hplat's start instead of leaving hplat on
# the kernel's own
case " $(cat /proc/cmdline) " in
*" hpbrake.btf=1 "*) btf="--btf /etc/vmlinux.btf" ;;
esac
# shellcheck disable=SC2086
hplat_start "$out" -j $btf || : > "$out"
hpload -t "$threads" -d "$secs" -j > /tmp/hpload.json
hplat_stop
# whole, so that vm/gate can judge this run again (GATE_FROM=)
echo "# hplat: $(grep '"event": "summary"' "$out" | tail -n 1)"
echo "# hpload: $(cat /tmp/hpload.json)"
gate_judge "$expect" "$out" /tmp/hpload.json "$hi_off" "$hi_on"
ktap_done
