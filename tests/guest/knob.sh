# The runtime knob: mode, good values change op time, bad values are
# refused with EINVAL and change nothing, non-root writers are refused.
. /scenarios/lib/ktap.sh

nl='
'
nbad=14
ktap_plan $((11 + nbad))

write_knob() {
	hp_parse "$(hpop write "$KNOB" "$1")"
}

check_eq "knob mode is 0644 root:root" "$(stat -c '%a %u:%g' "$KNOB")" "644 0:0"
check_eq "knob reads 1000 by default" "$(cat "$KNOB")" 1000
check_eq "nobody can read the knob" "$(hpop -u 65534 read "$KNOB")" 1000

write_knob "500$nl"
check_eq "write 500 accepted" "$OP_ERRNO $(cat "$KNOB")" "0 500"
check_op 1 offline 500 700
check_op 1 online 500 700

# every one of these must fail with EINVAL and leave 500 in place
bad() {
	write_knob "$2"
	check_eq "write of $1 refused with EINVAL, value unchanged" \
		"$OP_ERRNO $(cat "$KNOB")" "EINVAL 500"
}
bad "abc" abc
bad "negative" -1
bad "over the bound" 60001
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

write_knob 60000
check_eq "upper bound 60000 accepted" "$OP_ERRNO $(cat "$KNOB")" "0 60000"

write_knob 0
check_eq "0 accepted" "$OP_ERRNO $(cat "$KNOB")" "0 0"
check_op 2 offline 0 200
ktap_done
