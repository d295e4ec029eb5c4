#!/bin/bash
# vm/run against guests that go wrong on purpose: each one must fail the
# run within its timeout, say why, show the last console lines, and leave
# no QEMU process behind (one that reports and lingers keeps its status). The broken guests are tiny initramfs images
# (static busybox and a one-line /init), booted on a real kernel, and one
# the real initramfs on a kernel told to keep its hrtimers on the tick;
# a warning on the console fails a boot that asks for a second, and a
# console without the kernel's banner (booted quiet) fails too. Last,
# tests/guest/suite.sh's verdicts: a suite of scenarios that go wrong on
# purpose, appended to the real initramfs. KTAP.
#
# usage: tests/harness.sh KVER VARIANT
set -u
. "$(dirname "$0")/lib/ktap.sh"
. "$(dirname "$0")/../vm/lib.sh"
kver=${1:?usage: tests/harness.sh KVER VARIANT}
variant=${2:?usage: tests/harness.sh KVER VARIANT}
busybox=${BUSYBOX:-/bin/busybox}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# initramfs NAME INIT_BODY: an image whose /init runs INIT_BODY (busybox
# sh), with devtmpfs mounted so that it can write to the serial ports
initramfs() {
	local d=$tmp/$1
	mkdir -p "$d/bin" "$d/dev" "$d/proc"
	cp "$busybox" "$d/bin/busybox"
	printf '#!/bin/busybox sh\n/bin/busybox mount -t devtmpfs dev /dev\n%s\n' \
		"$2" > "$d/init"
	chmod 755 "$d/init"
	pack_dir "$d" > "$tmp/$1.cpio.gz"
}

# guest_run NAME VM_RUN_ARGS...: vm/run as guest harness-NAME of this
# kernel, its output in $tmp/NAME.out and shown as comments; sets rc and
# took (its seconds, less what its boots waited for other guests'
# boots: vm/run, VM_RT=boot)
guest_run() {
	local name=$1 t0
	shift
	t0=$(date +%s)
	KVER=$kver VARIANT=$variant "$HPBRAKE_ROOT/vm/run" -n "harness-$name" "$@" \
		> "$tmp/$name.out" 2>&1
	rc=$?
	took=$(($(date +%s) - t0))
	took=$((took - $(awk -F', ' '/s waiting for another boot before/ {
		for (i = 1; i <= NF; i++) if ($i ~ / s waiting for another boot/) w += $i
	} END { printf "%d", w }' "$tmp/$name.out")))
	# a broken guest's re-boot is not a re-measure of this suite
	sed -e 's/re-measured:/re-measured (a harness guest):/' -e 's/^/# /' "$tmp/$name.out"
}

# case NAME TIMEOUT WANT_RC REASON [SEEN]: boot it; exit status, reason,
# console lines (SEEN among them, if given), time taken (at most MAX_S,
# default TIMEOUT + 25 s) and leftover QEMU all checked
run_case() {
	local name=$1 t=$2 want=$3 reason=$4 seen=${5:-} rc took left
	local max=${MAX_S:-$((t + 25))}
	guest_run "$name" -t "$t" -i "$tmp/$name.cpio.gz" \
		${BOOT_ARGS:+-a "$BOOT_ARGS"} harness
	left=$(pgrep -f "harness-$name.pid" || true)
	if [ "$rc" = "$want" ]; then
		result ok "$name: vm/run exits $rc"
	else
		result fail "$name: vm/run exited $rc, expected $want"
	fi
	if grep -q -- "$reason" "$tmp/$name.out" &&
	   { [ "$want" = 0 ] || grep -q 'last console lines' "$tmp/$name.out"; } &&
	   { [ -z "$seen" ] || grep -q -- "$seen" "$tmp/$name.out"; }; then
		result ok "$name: says '$reason'$([ "$want" = 0 ] || echo ' and shows the console')${seen:+ ('$seen' in it)}"
	else
		result fail "$name: no '$reason' with the console lines${seen:+ and '$seen'} in its output"
	fi
	if [ "$took" -le "$max" ] && [ -z "$left" ]; then
		result ok "$name: over in $took s (timeout $t s, at most $max s), no QEMU left"
	else
		result fail "$name: took $took s (timeout $t s, at most $max s), QEMU left: ${left:-none}"
	fi
}

echo "KTAP version 1"
echo "1..36"
# PID 1 exits: "Attempted to kill init!", and panic=-1 reboots at once
initramfs panic 'exit 3'
run_case panic 60 1 'guest kernel panicked'
# the guest hangs and never reports; its /init must have run (a boot
# slower than the 8 s would time out too, but test nothing)
initramfs hang 'echo "hpbrake-harness: init loops" > /dev/kmsg; while :; do /bin/busybox sleep 1; done'
# (over in 8-10 s in make check; at most the timeout, vm/run's 5 s to
# SIGKILL after its SIGTERM, and 1 s: 14)
MAX_S=14 run_case hang 8 1 'guest timed out after 8 s' 'hpbrake-harness: init loops'
# it leaves without reporting a status
initramfs silent '/bin/busybox reboot -f'
run_case silent 60 1 'guest ended without an exit status'
# it reports but does not leave: QEMU is killed VM_POWEROFF_S (here
# 4) later and the reported status stands
initramfs linger 'echo "hpbrake-exit: 0" > /dev/ttyS1; while :; do /bin/busybox sleep 1; done'
# (over in 7-8 s in make check; at most the grace, vm/run's 5 s to
# SIGKILL after its SIGTERM and a boot of 6 s: 15; with the default 15 s
# grace it would take 17 or more)
MAX_S=15 VM_POWEROFF_S=4 run_case linger 60 0 'reported but did not leave'
# it reports success, but the kernel log shows a WARNING (written to
# /dev/kmsg here: the console scan must catch it whatever its source)
initramfs splat 'echo "WARNING: CPU: 0 PID: 1 at harness.sh:1 fake+0x0/0x0" > /dev/kmsg; echo "hpbrake-exit: 0" > /dev/ttyS1; /bin/busybox reboot -f'
run_case splat 60 1 'guest kernel reported a problem'
# the same guest booted quiet: neither the kernel's banner nor its
# WARNING (written at the default level) reach the console, so the
# console scan saw nothing, and the missing banner must say so
cp "$tmp/splat.cpio.gz" "$tmp/quiet.cpio.gz"
BOOT_ARGS=quiet run_case quiet 60 1 'no kernel banner on the console'
# the real /init on a kernel whose hrtimers stay on the tick (booted with
# noapictimer, as when the local APIC timer fails its check under TCG):
# it runs nothing and exits 75, vm/run boots it once more, counted, and
# then fails
cp "$(initramfs_of x86)" "$tmp/tickbound.cpio.gz"
BOOT_ARGS=noapictimer run_case tickbound 60 1 \
	'hrtimers not high-resolution on a second boot either' \
	'booted again, hrtimers high-resolution on 0 of'
# a boot that ran nothing for its tick-bound hrtimers (as vm/init says
# it) but warned first: the warning fails it, no second boot wipes it out
initramfs tickwarn 'echo "WARNING: CPU: 0 PID: 1 at harness.sh:1 fake+0x0/0x0" > /dev/kmsg; echo "hpbrake init: hrtimers high-resolution on 0 of 4 CPUs" > /dev/kmsg; echo "hpbrake-exit: 75" > /dev/ttyS1; /bin/busybox reboot -f'
run_case tickwarn 60 1 'guest kernel reported a problem'
if grep -q 'booted again' "$tmp/tickwarn.out"; then
	result fail "tickwarn: booted again: $(grep 'booted again' "$tmp/tickwarn.out")"
else
	result ok "tickwarn: not booted again"
fi
# tests/guest/suite.sh's own verdicts, one scenario for each way a
# scenario fails whatever its lines say, then ones that pass: each
# fails alone, the CPU left offline is brought back for the next, and
# the hanging one (with a child of its own that keeps the output pipe
# open) is killed whole on its 2 s limit, not the guest on its 60 s.
# What a scenario leaves running is killed when it ends (leave's late
# line never comes), and so is its watchdog (quick's 3 s one would kill
# slow, 4 s long, started after it)
d=$tmp/suite-x
mkdir -p "$d/scenarios/suites"
cat > "$d/scenarios/suites/selftest" <<'EOF'
hang    2  selftest hang
noplan  30 selftest noplan
short   30 selftest short
exit    30 selftest exit
again   30 selftest again
offline 30 selftest offline
leave   30 selftest leave
quick   3  selftest pass
slow    30 selftest slow
pass    30 selftest pass
EOF
cat > "$d/scenarios/selftest.sh" <<'EOF'
# tests/harness.sh: one way for a scenario to fail, or none ($1)
case "$1" in
hang) echo "1..1"; sleep 300 & sleep 300 ;;
noplan) echo "ok 1 a" ;;
short) echo "1..3"; echo "ok 1 a" ;;
exit) echo "1..1"; echo "ok 1 a"; exit 3 ;;
again) echo "1..1"; echo "# re-measured: one"; echo "# re-measured: two"; echo "ok 1 a" ;;
offline) echo "1..1"; echo 0 > /sys/devices/system/cpu/cpu1/online; echo "ok 1 a" ;;
leave) echo "1..1"; echo "ok 1 a"; (sleep 5; echo "ok 2 late") & ;;
slow) echo "1..1"; sleep 4; echo "ok 1 slow" ;;
pass) echo "1..1"; [ "$(cat /sys/devices/system/cpu/cpu1/online)" = 1 ] && echo "ok 1 cpu1 online" || echo "not ok 1 cpu1 offline" ;;
esac
EOF
pack_dir "$d" > "$tmp/suite-x.cpio.gz"
guest_run suite -t 60 -x "$tmp/suite-x.cpio.gz" suite selftest
while IFS= read -r want; do
	if tr -d '\r' < "$tmp/suite.out" | grep -qxF -- "$want"; then
		result ok "suite.sh: '$want'"
	else
		num=$(printf '%s\n' "$want" | sed -E 's/^(not )?ok ([0-9]+) .*/\2/')
		result fail "suite.sh: no '$want' line; got: $(tr -d '\r' < "$tmp/suite.out" | grep -E "^(not )?ok $num " | head -n 1)"
	fi
done <<'EOF'
not ok 1 hang: killed after its 2 s
not ok 2 noplan: no plan
not ok 3 short: plan 1..3 but 1 results
not ok 4 exit: exited 3 without a failed test line
not ok 5 again: 2 ops measured again (one is allowed)
not ok 6 offline: left offline: cpu1/online
ok 7 leave
ok 8 quick
ok 9 slow
ok 10 pass
EOF
# the boot and ten scenarios, two of them 2 and 4 s: 13 s alone under
# TCG, 14 s in make check; a guest that waited for the hanging
# scenario's child times out at 60, a boot that was tick-bound boots
# twice
if [ "$rc" = 1 ] && [ "$took" -le 45 ] && ! pgrep -f harness-suite.pid > /dev/null; then
	result ok "suite.sh: vm/run exits 1, over in $took s (at most 45), no QEMU left"
else
	result fail "suite.sh: vm/run exited $rc (want 1), took $took s (at most 45), QEMU left: $(pgrep -f harness-suite.pid || echo none)"
fi
[ "$ktap_failed" = 0 ]
