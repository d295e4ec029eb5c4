# Faults: cpuhp fail injection at every state of hotplug/states, in both
# directions, on cpu1; then the CPUs that cannot be plugged.
#
# For each state the kernel either refuses the injection (EINVAL: atomic
# STARTING/DYING states, DEAD states, states without callbacks), or the op
# fails at that state with EAGAIN and rolls back (the CPU's online file
# and hotplug/state read what they read before, the injection is used up,
# the same op then succeeds), or the op does not pass through the state
# in that direction (it succeeds; the injection is withdrawn). hplat,
# attached throughout, must count every failure with its errno, and so
# must hpload. On a braked kernel every write, failed ones included, must
# have slept the brake: one cpuhp_brake record each, per direction, of
# the knob's value, slept that long, ret 0. The records, not latencies:
# at the 10 ms the suites use (130-odd braked ops stay quick), no failed
# op under the brake, still checked, says little beside an unbraked op
# of 3-61 ms.
#
# usage: faults.sh BRAKE_MS|none   (BRAKE_MS: the knob is set to it)
. /scenarios/lib/ktap.sh

brake=${1:?usage: faults.sh BRAKE_MS|none}
lo=0
if [ "$brake" != none ]; then
	echo "$brake" > "$KNOB" || exit 1
	lo=$brake
	trace_on cpuhp_brake || { echo "# no cpuhp_brake event in tracefs"; exit 1; }
fi
CPU=/sys/devices/system/cpu
H=$CPU/cpu1/hotplug
online_st=$(sed -n 's/^ *\([0-9]*\): online$/\1/p' $CPU/hotplug/states)
nstates=$(grep -c . $CPU/hotplug/states)
ktap_plan $((2 * nstates + 12))
echo "# $(uname -r): $nstates states, online is $online_st, brake: $brake"

out=/tmp/faults.json
hplat_start "$out" -j || exit 1
ops_off=0 ops_on=0 failed_off=0 failed_on=0 refused=0 passed=0 slow=0

# op DIR: one timed op on cpu1, counted
op() {
	hp_op 1 "$1"
	if [ "$1" = offline ]; then
		ops_off=$((ops_off + 1))
	else
		ops_on=$((ops_on + 1))
	fi
	[ "$OP_RET" != 0 ] && [ "$OP_US" -lt $((lo * 1000)) ] && slow=$((slow + 1))
}

# put cpu1 in the state a DIR op starts from
start_from() {
	if [ "$1" = offline ] && [ "$(cpu_state 1)" = 0 ]; then
		op online
	elif [ "$1" = online ] && [ "$(cpu_state 1)" = 1 ]; then
		op offline
	fi
}

while read -r num name; do
	num=${num%:}
	for dir in offline online; do
		start_from "$dir"
		if [ "$dir" = offline ]; then
			was=1 was_st=$online_st want=0
		else
			was=0 was_st=0 want=1
		fi
		hp_parse "$(hpop write "$H/fail" "$num")"
		if [ "$OP_ERRNO" = EINVAL ]; then
			refused=$((refused + 1))
			check_eq "$dir, fail at $num $name: injection refused (EINVAL), fail reads -1" \
				"$(cat "$H/fail")" -1
			continue
		elif [ "$OP_RET" != 0 ]; then
			not_ok "$dir, fail at $num $name: writing fail gave $OP_ERRNO"
			continue
		fi
		op "$dir"
		if [ "$OP_RET" = 0 ]; then
			# not on this direction's path: withdraw the injection
			passed=$((passed + 1))
			echo -1 > "$H/fail"
			check_eq "$dir, fail at $num $name: not on the $dir path, op done" \
				"$(cpu_state 1) $(cat "$H/fail")" "$want -1"
			continue
		fi
		[ "$dir" = offline ] && failed_off=$((failed_off + 1))
		[ "$dir" = online ] && failed_on=$((failed_on + 1))
		got="$OP_ERRNO $(cpu_state 1) $(cat "$H/state") $(cat "$H/fail")"
		op "$dir"
		got="$got, then $OP_RET $(cpu_state 1)"
		check_eq "$dir, fail at $num $name: EAGAIN, rolled back to $was_st, injection used up, next $dir works" \
			"$got" "EAGAIN $was $was_st -1, then 0 $want"
	done
done < $CPU/hotplug/states
start_from offline
check_eq "cpu1 online at state $online_st after the sweep" \
	"$(cpu_state 1) $(cat "$H/state")" "1 $online_st"
echo "# $refused refused, $failed_off offline and $failed_on online ops failed, $passed not on the path"
if [ "$failed_off" -gt 0 ] && [ "$failed_on" -gt 0 ]; then
	ok "injected failures happened in both directions ($failed_off offline, $failed_on online)"
else
	not_ok "injected failures: $failed_off offline, $failed_on online; expected some of each"
fi
check_eq "every failed op took the brake's time at least (failed ops under $lo ms)" "$slow" 0
if [ "$brake" = none ]; then
	ok "a cpuhp_brake record per write # SKIP vanilla kernel"
else
	trace_off
	# cpu1's records per direction, and those of the knob's value,
	# slept that long, ret 0
	rec() {
		brake_events | awk -v o="$1" -v g="${2:-}" -v ms="$brake" '$2 == o &&
			(g == "" || ($1 == 1 && $3 == ms && $4 >= ms * 1000000 && $5 == 0))' | wc -l
	}
	check_eq "$ops_off offline and $ops_on online writes to cpu1: as many cpuhp_brake records, each on cpu1, of $brake ms, slept that long, ret 0" \
		"$(rec 0) $(rec 0 good) $(rec 1) $(rec 1 good)" \
		"$ops_off $ops_off $ops_on $ops_on"
fi

hplat_stop
set -- $(op_figs "$out" offline)
k_off="$1 $2"
set -- $(op_figs "$out" online)
k_on="$1 $2"
check_eq "hplat counted every op and every failure (offline, online: ops errors)" \
	"$k_off, $k_on" "$ops_off $failed_off, $ops_on $failed_on"
eagain=$(grep '"ops_per_s"' "$out" | tail -n 1 |
	grep -o '"errors_by_errno": {[^}]*}' | grep -o '"EAGAIN": [0-9]*' |
	sed 's/.*: //' | tr '\n' ' ')
check_eq "hplat's failures are all EAGAIN (online offline)" \
	"$eagain" "$failed_on $failed_off "

# hpload records it too: fail the first teardown state that has a
# callback, let one writer loop on cpu1 for 2 s
fail_st=$(sed -n 's/^ *\([0-9]*\): \(sched:active\)$/\1/p' $CPU/hotplug/states)
echo "${fail_st:-none}" > "$H/fail"
hpload -t 1 -c 1 -d 2 -j > /tmp/hpload.json
rc=$?
echo "# hpload: $(cat /tmp/hpload.json)"
check_eq "hpload with sched:active failing once: exit 0, offline errors {EAGAIN: 1}" \
	"$rc $(grep -o '"offline": {[^}]*"errors_by_errno": {[^}]*}' /tmp/hpload.json |
		grep -o '"errors_by_errno": {[^}]*}')" \
	'0 "errors_by_errno": {"EAGAIN": 1}'

# the CPUs that cannot be plugged: clear errors, nothing changes
mask=$(cat $CPU/online)
if [ -e $CPU/cpu0/online ]; then
	ok "cpu0 is not hot-pluggable # SKIP this kernel lets cpu0 go"
else
	hp_op 0 offline
	check_eq "offline cpu0 (not hot-pluggable): ENOENT, online CPUs unchanged" \
		"$OP_ERRNO $(cat $CPU/online)" "ENOENT $mask"
fi
hp_op 7 offline
check_eq "offline cpu7 (not present): ENOENT, online CPUs unchanged" \
	"$OP_ERRNO $(cat $CPU/online)" "ENOENT $mask"
hpload -c 7 -d 1 > /dev/null 2> /tmp/hpload.err
check_eq "hpload -c 7: exit 64, online CPUs unchanged" "$? $(cat $CPU/online)" "64 $mask"
echo "# hpload -c 7: $(cat /tmp/hpload.err)"

# the last online CPU: cpu0 has no online file, so ask through its
# hotplug/target with cpu1..3 down
for c in 1 2 3; do hp_op $c offline; done
st0=$(cat $CPU/cpu0/hotplug/state)
hp_parse "$(hpop write $CPU/cpu0/hotplug/target 0)"
check_eq "taking the last online CPU down: EBUSY, cpu0 online at its state" \
	"$OP_ERRNO $(cat $CPU/online) $(cat $CPU/cpu0/hotplug/state)" "EBUSY 0 $st0"
for c in 1 2 3; do hp_op $c online; done
if all_online; then
	ok "every CPU back online"
else
	not_ok "every CPU back online: online $(cat $CPU/online)"
fi
ktap_done
