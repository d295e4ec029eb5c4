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

# What the parser prints with no options, with the KEY=VALUE arguments
# put in place of their defaults.
def() {
	local out="" word kv
	for word in d=0 i=0 c=0 L=0/10 B=0 w=64 p=0 comm=- cpus=-/0 pause=0 \
		    j=0 C=0 S=0 e=0 T=0 u=0 k=0 v=0 f=0 btf=-; do
		for kv in "$@"; do
			[ "${kv%%=*}" = "${word%%=*}" ] && word=$kv
		done
		out="$out${out:+ }$word"
	done
	echo "$out"
}

echo "KTAP version 1"
echo "1..106"
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
bad "-B missing" -e -B
bad "-B not a power of two" -e -B 12
bad "-B under a page" -e -B 2
bad "-B over 64 MiB" -e -B 131072
bad "-B negative" -e -B -4
bad "-B empty" -e -B ""
bad "-B non-numeric" -e -B big
bad "-B overflowing" -e -B 99999999999999999999
bad "-B without -e" -B 4
bad "-B with -T only (-T is timestamps now)" -T -B 4
bad "--ring-kb without --events" --ring-kb=8
bad "-e takes no value" --events=1
bad "--btf empty" --btf ""
bad "-L empty" --linear=
bad "count overflowing" 1 99999999999999999999
bad "--cpus missing" --cpus
bad "--cpus empty" --cpus ""
bad "--cpus junk" --cpus abc
bad "--cpus descending range" --cpus 3-1
bad "--cpus open range" --cpus 1-
bad "--cpus negative" --cpus -1
bad "--cpus trailing comma" --cpus 1,
bad "--cpus empty item" --cpus 1,,2
bad "--cpus past 1023" --cpus 1024
bad "--cpus range past 1023" --cpus 0-1024
bad "--cpus overflowing" --cpus 99999999999999999999
bad "--cpus double range" --cpus 1-2-3
bad "--cpus with spaces" --cpus "1, 2"
bad "--cpus control byte" --cpus "$(printf '1\0012')"
bad "-p missing" -p
bad "-p empty" -p ""
bad "-p zero" -p 0
bad "-p negative" -p -1
bad "-p non-numeric" -p junk
bad "-p trailing junk" -p 12x
bad "-p past INT_MAX" -p 2147483648
bad "-p overflowing" -p 99999999999999999999
bad "--comm missing" --comm
bad "--comm empty" --comm ""
bad "--comm of 16 characters" --comm 0123456789abcdef
bad "--comm of 40 characters" --comm 0123456789012345678901234567890123456789
bad "-w missing" -w
bad "-w zero" -w 0
bad "-w over 4000" -w 4001
bad "-w negative" -w -1
bad "-w non-numeric" -w many
bad "--test-attach-pause zero" --test-attach-pause 0
bad "--test-attach-pause over 60 s" --test-attach-pause 60001
bad "--test-attach-pause non-numeric" --test-attach-pause x
good "$(def)" "defaults"
good "$(def d=10 L=1/10 j=1 C=1 S=1 e=1 T=1 u=1 k=1 v=1)" "every flag" \
	-d 10 -j -C -L -S -e -T -u -k -v
good "$(def d=10 L=1/10 j=1 C=1 S=1 e=1 T=1 u=1 k=1 v=1 B=8 f=1 btf=/x)" \
	"every flag, long forms" --duration=10 --json --per-cpu --linear \
	--steps --events --timestamp --microseconds --kprobes --verbose \
	--ring-kb=8 --force --btf=/x
good "$(def i=2 c=5)" "interval and count" 2 5
good "$(def B=4 e=1)" "-e -B 4" -e -B 4
good "$(def B=65536 e=1)" "-B 65536 -e (order free)" -B 65536 -e
good "$(def L=1/250)" "-L250" -L250
good "$(def T=1)" "-T is timestamps" -T
good "$(def u=1)" "-u" -u
good "$(def u=0)" "-u then -m: the last one wins" -u -m
good "$(def u=1)" "-m then -u: the last one wins" -m -u
good "$(def cpus=1-3,5/4)" "--cpus 1-3,5" --cpus 1-3,5
good "$(def cpus=1,3/2)" "--cpus 3,1,3: a set" --cpus 3,1,3
good "$(def cpus=0-1023/1024)" "--cpus 0-1023: all 1024" --cpus=0-1023
good "$(def cpus=7/1)" "--cpus twice: the last one wins" --cpus 1-3 --cpus 7
good "$(def p=1)" "-p 1" -p 1
good "$(def p=2147483647)" "--pid INT_MAX" --pid=2147483647
good "$(def comm=k)" "--comm of 1 character" --comm k
good "$(def comm=0123456789abcde)" "--comm of 15 characters" \
	--comm 0123456789abcde
good "$(def comm=kworker/0:1)" "--comm kworker/0:1" --comm=kworker/0:1
good "$(def w=1)" "-w 1" -w 1
good "$(def w=4000)" "--writers 4000" --writers=4000
good "$(def pause=1)" "--test-attach-pause 1" --test-attach-pause 1
good "$(def pause=60000)" "--test-attach-pause 60000" --test-attach-pause=60000
good "$(def d=5 cpus=2/1 p=42 comm=stress-ng w=8)" "filters together" \
	-d 5 --cpus 2 -p 42 --comm stress-ng -w 8
got=$("$opts" --help 2> "$tmp")
rc=$?
if [ "$rc" = 0 ] && [ ! -s "$tmp" ] &&
   echo "$got" | grep -q -- '--cpus=LIST' &&
   echo "$got" | grep -q -- '--comm=COMM' &&
   echo "$got" | grep -q -- '-w, --writers=WRITERS' &&
   echo "$got" | grep -q -- '-e, --events' &&
   echo "$got" | grep -q -- '-T, --timestamp' &&
   ! echo "$got" | grep -q -- 'test-attach-pause'; then
	result ok "--help: exit 0, shows --cpus, --comm, -w, -e, -T; hides --test-attach-pause"
else
	result fail "--help: exit $rc, or an option missing or shown: $(head -n 1 "$tmp")"
fi
if [ ! -x "$hplat" ]; then
	result ok "refuses outside a guest # SKIP no $hplat"
	result ok "bad option exits 64 first # SKIP no $hplat"
	[ "$ktap_failed" = 0 ]
	exit
fi
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
