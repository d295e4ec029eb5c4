#!/bin/bash
# vm/run against guests that go wrong on purpose: each one must fail the
# run within its timeout, say why, show the last console lines, and leave
# no QEMU process behind (one that reports and lingers keeps its status). The broken guests are tiny initramfs images
# (static busybox and a one-line /init), booted on a real kernel, and one
# the real initramfs on a kernel told to keep its hrtimers on the tick;
# a warning on the console fails a boot that asks for a second. KTAP.
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

# case NAME TIMEOUT WANT_RC REASON [SEEN]: boot it; exit status, reason,
# console lines (SEEN among them, if given), time taken (at most MAX_S,
# default TIMEOUT + 25 s) and leftover QEMU all checked
run_case() {
	local name=$1 t=$2 want=$3 reason=$4 seen=${5:-} rc t0 took left
	local max=${MAX_S:-$((t + 25))}
	t0=$(date +%s)
	KVER=$kver VARIANT=$variant "$HPBRAKE_ROOT/vm/run" -t "$t" \
		-n "harness-$name" -i "$tmp/$name.cpio.gz" \
		${BOOT_ARGS:+-a "$BOOT_ARGS"} harness > "$tmp/$name.out" 2>&1
	rc=$?
	took=$(($(date +%s) - t0))
	# less the time its boots waited for other guests' (vm/run, VM_RT=boot)
	took=$((took - $(awk -F', ' '/s waiting for another boot before/ {
		for (i = 1; i <= NF; i++) if ($i ~ / s waiting for another boot/) w += $i
	} END { printf "%d", w }' "$tmp/$name.out")))
	# a broken guest's re-boot is not a re-measure of this suite
	sed -e 's/re-measured:/re-measured (a harness guest):/' -e 's/^/# /' "$tmp/$name.out"
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
echo "1..22"
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
[ "$ktap_failed" = 0 ]
