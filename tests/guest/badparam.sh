# Bad cpuhp_brake_ms= values on the command line are refused with a
# warning each and change nothing; a good one after them holds.
#
# usage: badparam.sh MS   (boot with bad cpuhp_brake_ms= values and a
#        last, good one, cpuhp_brake_ms=MS)
. /scenarios/lib/ktap.sh

want=${1:?usage: badparam.sh MS}
# every cpuhp_brake_ms= word but the last is a bad one
nbad=$(($(tr ' ' '\n' < /proc/cmdline | grep -c '^cpuhp_brake_ms=') - 1))
ktap_plan 3
echo "# cmdline: $(cat /proc/cmdline)"

if [ "$nbad" -gt 0 ] &&
   [ "$(tr ' ' '\n' < /proc/cmdline | grep '^cpuhp_brake_ms=' | tail -n 1)" = "cpuhp_brake_ms=$want" ]; then
	ok "booted with $nbad bad cpuhp_brake_ms= values, then cpuhp_brake_ms=$want"
else
	not_ok "booted with $nbad bad values, last: $(tr ' ' '\n' < /proc/cmdline | grep '^cpuhp_brake_ms=' | tail -n 1)"
fi
check_eq "the knob holds the good value" "$(cat "$KNOB")" "$want"
check_eq "one warning per bad value" \
	"$(dmesg | grep -c 'invalid cpuhp_brake_ms=')" "$nbad"
ktap_done
