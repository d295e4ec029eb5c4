# Bad cpuhp_brake_ms= values on the command line keep the default and log a
# warning each.
#
# usage: badparam.sh DEFAULT_MS   (boot with bad cpuhp_brake_ms= values)
. /scenarios/lib/ktap.sh

default=${1:?usage: badparam.sh DEFAULT_MS}
nbad=$(tr ' ' '\n' < /proc/cmdline | grep -c '^cpuhp_brake_ms=')
ktap_plan 3
echo "# cmdline: $(cat /proc/cmdline)"

if [ "$nbad" -gt 0 ]; then
	ok "booted with $nbad bad cpuhp_brake_ms= values"
else
	not_ok "booted with no cpuhp_brake_ms= value to refuse"
fi
check_eq "knob keeps the default" "$(cat "$KNOB")" "$default"
check_eq "one warning per bad value" \
	"$(dmesg | grep -c 'invalid cpuhp_brake_ms=')" "$nbad"
ktap_done
