#!/bin/bash
# hpload's command line under ASan + UBSan: every invalid value, bad CPU
# lists among them, is a usage error (exit 64) with a one-line reason that
# touches no CPU; a valid one refuses to run outside an hpbrake guest.
# KTAP output.
set -u
hpload=${1:?usage: tests/unit/hpload-cli.sh PATH/TO/hpload}
. "$(dirname "$0")/../lib/ktap.sh"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# expect_exit WANT DESC ARGS...: hpload exits WANT with the reason
# WANT_RE (a BRE, which every case here must give) on stderr, and no
# sanitizer report (tests/lib/ktap.sh)
expect_exit() {
	: "${WANT_RE:?expect_exit: no WANT_RE}"
	expect_exit_of "$hpload" "$@"
}

echo "KTAP version 1"
echo "1..30"
WANT_RE='invalid option -- '\''x'\''' expect_exit 64 "unknown option" -x
WANT_RE=': unexpected argument '\''now'\''' expect_exit 64 "stray argument" now
WANT_RE='option requires an argument -- '\''t'\''' expect_exit 64 "-t missing" -t
WANT_RE=': invalid thread count '\'''\'' (1\.\.256)' expect_exit 64 "-t empty" -t ""
WANT_RE=': invalid thread count '\''0'\'' (1\.\.256)' expect_exit 64 "-t zero" -t 0
WANT_RE=': invalid thread count '\''257'\'' (1\.\.256)' expect_exit 64 "-t over 256" -t 257
WANT_RE=': invalid thread count '\''-1'\'' (1\.\.256)' expect_exit 64 "-t negative" -t -1
WANT_RE=': invalid thread count '\''99999999999999999999'\'' (1\.\.256)' expect_exit 64 "-t overflowing" -t 99999999999999999999
WANT_RE=': invalid thread count '\''three'\'' (1\.\.256)' expect_exit 64 "-t non-numeric" -t three
WANT_RE='unrecognized option '\''--frobnicate'\''' expect_exit 64 "unknown long option" --frobnicate
WANT_RE='option requires an argument -- '\''d'\''' expect_exit 64 "-d missing" -d
WANT_RE=': invalid duration '\'''\'' (1\.\.86400 s)' expect_exit 64 "-d empty" -d ""
WANT_RE=': invalid duration '\''0'\'' (1\.\.86400 s)' expect_exit 64 "-d zero" -d 0
WANT_RE=': invalid duration '\''-5'\'' (1\.\.86400 s)' expect_exit 64 "-d negative" -d -5
WANT_RE=': invalid duration '\''86401'\'' (1\.\.86400 s)' expect_exit 64 "-d over a day" -d 86401
WANT_RE=': invalid duration '\''99999999999999999999'\'' (1\.\.86400 s)' expect_exit 64 "-d overflowing" -d 99999999999999999999
WANT_RE=': invalid duration '\''1m'\'' (1\.\.86400 s)' expect_exit 64 "-d non-numeric" -d 1m
WANT_RE='option requires an argument -- '\''p'\''' expect_exit 64 "-p missing" -p
WANT_RE=': invalid pattern '\'''\'' (seq, random or same)' expect_exit 64 "-p empty" -p ""
WANT_RE='option requires an argument -- '\''c'\''' expect_exit 64 "-c missing" -c
WANT_RE=': invalid pattern '\''zigzag'\'' (seq, random or same)' expect_exit 64 "-p unknown" -p zigzag
WANT_RE=': bad range '\''1-'\'' in CPU list '\''1-'\''' expect_exit 64 "-c 1-" -c 1-
WANT_RE=': descending range '\''3-1'\'' in CPU list '\''3-1'\''' expect_exit 64 "-c 3-1" -c 3-1
WANT_RE=': bad CPU '\''a'\'' in CPU list '\''a'\''' expect_exit 64 "-c a" -c a
WANT_RE=': empty CPU list' expect_exit 64 "-c empty" -c ""
WANT_RE=': cpu1023 is not hot-pluggable' expect_exit 64 "-c 1023 (no such CPU)" -c 1023
WANT_RE=': bad CPU '\'''\'' in CPU list '\''1,,2'\''' expect_exit 64 "-c 1,,2" -c 1,,2
# a reason stays on one line whatever the list holds
"$hpload" -c "$(printf '1\n2')" > /dev/null 2> "$tmp"
if [ "$?" = 64 ] && grep -q "^[^:]*: bad CPU '1?2' in CPU list '1?2'$" "$tmp"; then
	result ok "-c with a newline: exit 64, one-line reason"
else
	result fail "-c with a newline: $(head -n 2 "$tmp" | tr '\n' '|')"
fi
if [ -e /etc/hpbrake-guest ]; then
	result ok "refuses outside a guest # SKIP this is an hpbrake guest"
	result ok "refuses outside a guest # SKIP this is an hpbrake guest"
else
	# exit 1 and the guard's reason: a user who may not write sysfs
	# (make check runs this as nobody) fails with exit 1 anyway
	guard='^hpload: refusing to plug CPUs outside an hpbrake guest'
	WANT_RE=$guard expect_exit 1 "refuses to plug this machine's CPUs" -d 1
	if [ -e /sys/devices/system/cpu/cpu1/online ]; then
		WANT_RE=$guard expect_exit 1 "refuses with a CPU list too" -c 1 -d 1
	else
		result ok "refuses with a CPU list # SKIP no cpu1 here"
	fi
fi
# No out-of-memory case here, on purpose: hpload's only allocations that
# can fail cleanly (add_sample() in a writer, the merge in report()) come
# after the guest check, which refuses before any thread starts, so on
# the host that path is unreachable without --force, and --force would
# plug this machine's CPUs. ulimit -v cannot help either: the ASan build
# aborts at startup under any limit (it reserves terabytes of shadow),
# and the static build allocates nothing before it refuses. The guest
# runs would need a fault-injection hook to reach it deterministically.
[ "$ktap_failed" = 0 ]
