# A writer killed with SIGKILL during the brake: the op aborts, the CPU
# stays as it was, the lock is not leaked, the next op works.
#
# usage: kill.sh MS   (the brake of the running kernel, > 300)
. /scenarios/lib/ktap.sh

brake=${1:?usage: kill.sh BRAKE_MS}
hi=$((brake + 200))
ktap_plan 8

# killed_op CPU OP WANT_STATE: SIGKILL the writer 300 ms into OP
killed_op() {
	hp_parse "$(hpop -k 300 op "$1" "$2")"
	ms=$(us_to_ms "$OP_US")
	if [ "$OP_KILLED" != 1 ]; then
		not_ok "$2 cpu$1 killed at 300 ms: writer not killed (errno $OP_ERRNO, $ms ms)"
	elif [ "$OP_US" -ge $((brake * 1000)) ]; then
		not_ok "$2 cpu$1 killed at 300 ms: writer ended after $ms ms, not inside the $brake ms brake"
	else
		ok "$2 cpu$1 killed at 300 ms: writer gone after $ms ms"
	fi
	check_eq "cpu$1 unchanged after the killed $2" "$(cpu_state "$1")" "$3"
}

killed_op 1 offline 1
check_op 1 offline "$brake" "$hi"
killed_op 1 online 0
check_op 1 online "$brake" "$hi"
# the device hotplug lock was released: another CPU works too
check_op 2 offline "$brake" "$hi"
check_op 2 online "$brake" "$hi"
ktap_done
