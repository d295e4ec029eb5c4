#!/bin/bash
# hpop on the host, under ASan + UBSan: every bad invocation is a usage
# error (exit 64) that touches nothing; a good one refuses to write the
# host's sysfs without -f. KTAP output.
set -u
hpop=${1:?usage: tests/unit/hpop.sh PATH/TO/hpop}
. "$(dirname "$0")/../lib/ktap.sh"

expect_exit() {
	local want=$1 desc=$2 rc
	shift 2
	"$hpop" "$@" > /dev/null 2> "$tmp"
	rc=$?
	if [ "$rc" = "$want" ] && ! grep -q 'runtime error\|AddressSanitizer' "$tmp"; then
		result ok "$desc: exit $rc"
	else
		result fail "$desc: exit $rc, expected $want: $(head -n 1 "$tmp")"
	fi
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "KTAP version 1"
echo "1..24"
expect_exit 64 "no command"
expect_exit 64 "unknown command" frob
expect_exit 64 "unknown option" -z now
expect_exit 64 "op without arguments" op
expect_exit 64 "op with a bad cpu" op x offline
expect_exit 64 "op with a negative cpu" op -1 offline
expect_exit 64 "op with an empty cpu" op "" offline
expect_exit 64 "op with an overflowing cpu" op 99999999999999999999 offline
expect_exit 64 "op with a bad operation" op 1 sideways
expect_exit 64 "op with too many arguments" op 1 offline now
expect_exit 64 "-u without a value" -u
expect_exit 64 "-u with a non-number" -u nobody now
expect_exit 64 "-u negative" -u -5 now
expect_exit 64 "-k zero" -k 0 op 1 offline
expect_exit 64 "-k over the bound" -k 600001 op 1 offline
expect_exit 64 "-s without -k" -s INT op 1 offline
expect_exit 64 "-c without -k" -c op 1 offline
expect_exit 64 "-s with an unknown signal" -k 5 -s HUP op 1 offline
expect_exit 64 "-s with a number" -k 5 -s 9 op 1 offline
expect_exit 64 "-c with SIGKILL" -k 5 -c op 1 offline
expect_exit 64 "write without a string" write /dev/null
expect_exit 64 "now with an argument" now 1
expect_exit 0 "now" now
if [ -e /etc/hpbrake-guest ]; then
	result ok "refuses the host's sysfs # SKIP this is an hpbrake guest"
else
	expect_exit 1 "refuses to offline a host CPU without -f" op 1 offline
fi
[ "$ktap_failed" = 0 ]
