# KTAP v1 helpers for guest scenarios (busybox sh), sourced.

KNOB=/sys/devices/system/cpu/hotplug/brake_ms
ktap_n=0
ktap_failed=0

ktap_plan() {
	echo "KTAP version 1"
	echo "1..$1"
}

ok() {
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $*"
}

not_ok() {
	ktap_n=$((ktap_n + 1))
	ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_n $*"
}

ktap_done() {
	[ "$ktap_failed" = 0 ]
	exit $?
}

# us_to_ms 1003921 -> 1003.9
us_to_ms() {
	awk -v us="$1" 'BEGIN { printf "%.1f", us / 1000 }'
}

# hp_op CPU online|offline: do it, set OP_RET, OP_ERRNO, OP_US.
hp_op() {
	hp_parse "$(hpop op "$1" "$2")"
}

hp_parse() {
	OP_RET=""; OP_ERRNO=""; OP_US=""; OP_KILLED=""
	for kv in $1; do
		case "$kv" in
		ret=*) OP_RET=${kv#ret=} ;;
		errno=*) OP_ERRNO=${kv#errno=} ;;
		latency_us=*) OP_US=${kv#latency_us=} ;;
		killed=*) OP_KILLED=${kv#killed=} ;;
		esac
	done
}

cpu_state() {
	cat "/sys/devices/system/cpu/cpu$1/online"
}

# check_op CPU OP LO_MS HI_MS: one timed operation whose latency must lie
# in [LO_MS, HI_MS) and that must leave the CPU in the asked state.
check_op() {
	cpu=$1 op=$2 lo=$3 hi=$4
	want=1
	[ "$op" = offline ] && want=0
	hp_op "$cpu" "$op"
	ms=$(us_to_ms "$OP_US")
	if [ "$OP_RET" != 0 ]; then
		not_ok "$op cpu$cpu failed with $OP_ERRNO after $ms ms"
	elif [ "$(cpu_state "$cpu")" != "$want" ]; then
		not_ok "$op cpu$cpu returned 0 but online reads $(cpu_state "$cpu")"
	elif [ "$OP_US" -lt $((lo * 1000)) ] || [ "$OP_US" -ge $((hi * 1000)) ]; then
		not_ok "$op cpu$cpu took $ms ms, expected [$lo, $hi) ms"
	else
		ok "$op cpu$cpu $ms ms in [$lo, $hi) ms"
	fi
}

# check_eq DESC GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1: got '$2', expected '$3'"
	fi
}
