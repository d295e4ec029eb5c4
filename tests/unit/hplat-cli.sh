#!/bin/bash
# hplat's command line under ASan + UBSan (test_hplat_opts: the real
# parser with a printing main): every invalid value is a usage error
# (exit 64) with a one-line reason; valid ones parse as documented. Then
# the real static hplat: it refuses to attach outside an hpbrake guest.
# KTAP output.
set -u
opts=${1:?usage: tests/unit/hplat-cli.sh TEST_HPLAT_OPTS HPLAT}
hplat=${2:?usage: tests/unit/hplat-cli.sh TEST_HPLAT_OPTS HPLAT}
. "$(dirname "$0")/../lib/ktap.sh"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

bad() {
	local desc=$1 rc
	shift
	"$opts" "$@" > /dev/null 2> "$tmp"
	rc=$?
	if [ "$rc" = 64 ] && grep -q '^[^ ]*: ' "$tmp" &&
	   ! grep -q 'runtime error\|AddressSanitizer' "$tmp"; then
		result ok "$desc: exit 64, $(head -n 1 "$tmp")"
	else
		result fail "$desc: exit $rc, expected 64: $(head -n 1 "$tmp")"
	fi
}

good() {
	local want=$1 desc=$2 got
	shift 2
	got=$("$opts" "$@" 2> "$tmp")
	if [ "$got" = "$want" ] && [ ! -s "$tmp" ]; then
		result ok "$desc"
	else
		result fail "$desc: got '$got', expected '$want' $(head -n 1 "$tmp")"
	fi
}

echo "KTAP version 1"
echo "1..48"
bad "unknown option" -x
bad "unknown long option" --frobnicate
bad "-d missing" -d
bad "-d empty" -d ""
bad "-d zero" -d 0
bad "-d negative" -d -5
bad "-d non-numeric" -d ten
bad "-d trailing junk" -d 10s
bad "-d overflowing" -d 99999999999999999999
bad "-d over a day" -d 86401
bad "-i missing" -i
bad "-i empty" -i ""
bad "-i zero" -i 0
bad "-i negative" -i -1
bad "-i overflowing" -i 99999999999999999999
bad "-i non-numeric" -i x
bad "-L width zero" -L0
bad "-L width over 60000" -L60001
bad "-L width non-numeric" --linear=abc
bad "-L width negative" -L-5
bad "-L width overflowing" -L99999999999999999999
bad "interval positional zero" 0
bad "count zero" 1 0
bad "count negative" 1 -3
bad "count non-numeric" 1 many
bad "interval positional non-numeric" soon
bad "three positionals" 1 2 3
bad "interval given twice" -i 1 2
bad "-i trailing junk" -i 1x
bad "-B missing" -T -B
bad "-B not a power of two" -T -B 12
bad "-B under a page" -T -B 2
bad "-B over 64 MiB" -T -B 131072
bad "-B negative" -T -B -4
bad "-B empty" -T -B ""
bad "-B non-numeric" -T -B big
bad "-B overflowing" -T -B 99999999999999999999
bad "-B without -T" -B 4
bad "--btf empty" --btf ""
bad "-L empty" --linear=
bad "count overflowing" 1 99999999999999999999
good "d=0 i=0 c=0 w=10 B=0 j=0 C=0 L=0 S=0 T=0 k=0 v=0 f=0" "defaults"
good "d=10 i=0 c=0 w=10 B=0 j=1 C=1 L=1 S=1 T=1 k=1 v=1 f=0" "every flag" \
	-d 10 -j -C -L -S -T -k -v
good "d=0 i=2 c=5 w=10 B=0 j=0 C=0 L=0 S=0 T=0 k=0 v=0 f=0" "interval and count" 2 5
good "d=0 i=0 c=0 w=10 B=4 j=0 C=0 L=0 S=0 T=1 k=0 v=0 f=0" "-T -B 4" -T -B 4
good "d=0 i=0 c=0 w=250 B=0 j=0 C=0 L=1 S=0 T=0 k=0 v=0 f=0" "-L250" -L250
"$hplat" -d 1 > /dev/null 2> "$tmp"
rc=$?
if [ -e /etc/hpbrake-guest ]; then
	result ok "refuses outside a guest # SKIP this is an hpbrake guest"
elif [ "$rc" = 1 ] && grep -q 'refusing to attach outside an hpbrake guest' "$tmp"; then
	result ok "static hplat refuses to attach outside an hpbrake guest"
else
	result fail "static hplat outside a guest: exit $rc: $(head -n 1 "$tmp")"
fi
"$hplat" -d 0 > /dev/null 2>&1
rc=$?
if [ "$rc" = 64 ]; then
	result ok "static hplat: bad option exits 64 before anything else"
else
	result fail "static hplat -d 0: exit $rc, expected 64"
fi
[ "$ktap_failed" = 0 ]
