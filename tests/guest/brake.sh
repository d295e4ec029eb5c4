# Every operation on cpu1..3 takes the brake time and not much more.
#
# usage: brake.sh none|MS
#   none: a vanilla kernel: no knob, every op < 200 ms
#   MS:   a braked kernel whose knob reads MS; MS=0 is as fast as vanilla,
#         otherwise every op takes [MS, MS + 200) ms
. /scenarios/lib/ktap.sh

expect=${1:?usage: brake.sh none|MS}
cpus="1 2 3"
ktap_plan 7
echo "# $(uname -r), $(nproc) CPUs online, cmdline: $(cat /proc/cmdline)"

if [ "$expect" = none ]; then
	if [ -e "$KNOB" ]; then
		not_ok "knob absent on a vanilla kernel: $KNOB exists"
	else
		ok "knob absent on a vanilla kernel"
	fi
	lo=0 hi=200
else
	check_eq "knob reads $expect" "$(cat "$KNOB" 2>&1)" "$expect"
	if [ "$expect" = 0 ]; then
		lo=0 hi=200
	else
		lo=$expect hi=$((expect + 200))
	fi
fi

for cpu in $cpus; do
	check_op "$cpu" offline "$lo" "$hi"
done
for cpu in $cpus; do
	check_op "$cpu" online "$lo" "$hi"
done
ktap_done
