# The runtime knob: mode, good values change op time, bad values are
# refused with EINVAL and change nothing, non-root writers are refused.
# Changed while writers are braked: an op already sleeping finishes with
# the value it read when its brake began (the old one); ops that start
# later use the new one; none hangs.
. /scenarios/lib/ktap.sh

nl='
'
nbad=14
ktap_plan $((17 + nbad))

write_knob() {
	hp_parse "$(hpop write "$KNOB" "$1")"
}

check_eq "knob mode is 0644 root:root" "$(stat -c '%a %u:%g' "$KNOB")" "644 0:0"
check_eq "knob reads 1000 by default" "$(cat "$KNOB")" 1000
check_eq "nobody can read the knob" "$(hpop -u 65534 read "$KNOB")" 1000

write_knob "500$nl"
check_eq "write 500 accepted" "$OP_ERRNO $(cat "$KNOB")" "0 500"
check_op 1 offline 500 "$(op_hi 500 offline)"
check_op 1 online 500 "$(op_hi 500 online)"

# every one of these must fail with EINVAL and leave 500 in place
bad() {
	write_knob "$2"
	check_eq "write of $1 refused with EINVAL, value unchanged" \
		"$OP_ERRNO $(cat "$KNOB")" "EINVAL 500"
}
bad "abc" abc
bad "negative" -1
bad "over the bound" 10001
bad "empty line" "$nl"
bad "leading blank" " 5"
bad "trailing blank" "5 "
bad "plus sign" +5
bad "hex" 0x10
bad "decimal point" 1.5
bad "two newlines" "5$nl$nl"
bad "INT_MAX" 2147483647
bad "UINT_MAX + 1" 4294967296
bad "20 digits" 99999999999999999999
bad "4000 digits" "$(head -c 4000 /dev/zero | tr '\0' 9)"

hp_parse "$(hpop -u 65534 write "$KNOB" 200)"
check_eq "non-root write refused with EACCES, value unchanged" \
	"$OP_ERRNO $(cat "$KNOB")" "EACCES 500"

write_knob ""
check_eq "zero-length write changes nothing" "$OP_ERRNO $(cat "$KNOB")" "0 500"

write_knob 10000
check_eq "upper bound 10000 accepted" "$OP_ERRNO $(cat "$KNOB")" "0 10000"

write_knob 0
check_eq "0 accepted" "$OP_ERRNO $(cat "$KNOB")" "0 0"
check_op 2 offline 0 "$(op_hi 0 offline)"
check_op 2 online 0 "$(op_hi 0 online)"

# mid_brake FROM TO CPU: FROM in the knob, an offline of CPU, TO written
# 300 ms into its brake; the write must land then, the CPU still online
# (a knob that waited for the hotplug lock would land after the op); the
# op takes FROM, the next one TO. Late is the one way noise goes: an op
# over the upper bound (as in check_op), or a write that returned after
# the op (the shell's 0.3 s sleep and hpop's start taking more than the
# 200 ms left of a 500 ms brake), everything else right, is undone,
# checked, and done once more, counted.
mid_brake_once() {
	write_knob "$1"
	hpop op "$3" offline > /tmp/mid.out &
	sleep 0.3
	write_knob "$2"
	# the shell's own read: no fork between the write and it
	read -r st < "/sys/devices/system/cpu/cpu$3/online"
	MID_KNOB="$OP_ERRNO $st $(cat "$KNOB")"
	wait
	hp_parse "$(cat /tmp/mid.out)"
}

mid_brake() {
	hi=$(op_hi "$1" offline)
	mid_brake_once "$@"
	late=""
	if [ "$OP_RET" = 0 ] && [ "$MID_KNOB" = "0 0 $2" ]; then
		late="the knob's write returned with cpu$3 offline, after $(us_to_ms "$OP_US") ms"
	elif [ "$OP_RET" = 0 ] && [ "$MID_KNOB" = "0 1 $2" ] && [ "$OP_US" -ge $((hi * 1000)) ]; then
		late="the op took $(us_to_ms "$OP_US") ms, over $hi ms"
	fi
	if [ -n "$late" ]; then
		hp_op "$3" online
		if [ "$OP_RET" != 0 ]; then
			not_ok "knob $1 -> $2: $late, and undoing it failed ($OP_ERRNO)"
			check_op "$3" online "$2" "$(op_hi "$2" online)"
			return
		fi
		remeasure "knob $1 -> $2: $late"
		mid_brake_once "$@"
	fi
	ms=$(us_to_ms "$OP_US")
	if [ "$MID_KNOB" != "0 1 $2" ]; then
		not_ok "knob $1 -> $2 during the brake: the write's errno, cpu$3, the knob after it: $MID_KNOB (want 0 1 $2)"
	elif [ "$OP_RET" = 0 ] && [ "$OP_US" -ge $(($1 * 1000)) ] &&
	   [ "$OP_US" -lt $((hi * 1000)) ]; then
		ok "knob $1 -> $2 during the brake: written with cpu$3 still online, that op took $ms ms, the old value"
	else
		not_ok "knob $1 -> $2 during the brake: op ret $OP_RET after $ms ms, expected [$1, $hi) ms"
	fi
	check_op "$3" online "$2" "$(op_hi "$2" online)"
}
mid_brake 1500 100 1
mid_brake 500 1500 2

# three writers braked while the knob swings between 0 and 2000 ms every
# 0.5 s, CPUs all back: hpload done within the 6 s run, a 2000 ms brake
# in flight at its end, the two writers queued behind it and up to three
# restores, each at the last value, 700 ms, in its window (op_hi):
# 11863 ms on x86 6.1 and 6.12, 11953 on arm64, 12316 on debug.
# Measured 6874-10011 ms (10011 on debug with 3 restores; 6.1 braked
# 9103, 6.12 9092, arm64 9920) in fifteen runs of make check
# (hpload exits 0 whatever its ops returned: none may have failed, and
# it must have done an offline, and an online or a restore; each brake
# took one of the swung values)
swung="1500 2000 0 1500 10 2000 300 0 2000 50 1000 0 700"
hi_q=$(op_hi 700 offline) hi_r=$(op_hi 700 online)
[ "$hi_r" -le "$hi_q" ] || hi_q=$hi_r
swing_hi=$((6000 + 2000 + 2 * hi_q + 3 * hi_r))
trace_on cpuhp_brake
hpload -t 3 -d 6 -j > /tmp/swing.out 2>/tmp/swing.err &
pid=$!
t0=$(hpop now)
for v in ${swung#1500 }; do
	sleep 0.5
	echo "$v" > "$KNOB"
done
wait "$pid"
rc=$?
ms=$((($(hpop now) - t0) / 1000))
trace_off
hpload_ops /tmp/swing.out
did_both=$?
s_err=$(grep -o '"errors_by_errno": {[^}]*}' /tmp/swing.out | grep -vc '{}$')
brake_events > /tmp/swing.brakes
n_brakes=$(wc -l < /tmp/swing.brakes)
s_odd=$(awk -v set=" $swung " 'index(set, " " $3 " ") == 0' /tmp/swing.brakes | wc -l)
figs="${l_off:-no} offline and ${l_on:-no} online ops, ${l_back:-no} restores, $s_err kinds with errors, $n_brakes brakes ($s_odd of a value never swung)"
if [ "$rc" = 0 ] && [ "$ms" -le "$swing_hi" ] && all_online && [ "$did_both" = 0 ] &&
   [ "$s_err" = 0 ] && [ "$s_odd" = 0 ] && [ "$n_brakes" -ge 1 ]; then
	ok "knob swinging 0..2000 ms under 3 writers: hpload done in $ms ms (<= $swing_hi), all CPUs online, $figs"
else
	not_ok "knob swinging: hpload exit $rc after $ms ms (6 s run, want <= $swing_hi), online $(cat /sys/devices/system/cpu/online), $figs (want none failed, an offline, an online or restore, a brake or more, all of swung values); $(tail -n 2 /tmp/swing.err | tr '\n' ' ')"
fi
ktap_done
