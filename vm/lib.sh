# Shared helpers for the host-side vm/ scripts (sourced, not run).

HPBRAKE_ROOT=${HPBRAKE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
HPBRAKE_CACHE=${HPBRAKE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hpbrake}
HPBRAKE_BUILD=${HPBRAKE_BUILD:-$HPBRAKE_ROOT/build}

die() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

say() {
	printf '  %-8s %s\n' "$1" "$2"
}

# Seconds since the epoch with a fraction, for step timings.
now() {
	date +%s.%N
}

elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}

# rt_usable: whether a guest may run at real-time priority here (vm/run,
# VM_RT=1): chrt can give SCHED_FIFO 1 and 2 (root, or RLIMIT_RTPRIO);
# the host kernel is 6.12 or later, whose fair server lends each CPU's
# normal tasks 50 ms a second when real-time tasks keep them waiting (where
# debugfs shows its runtime, that must be above 0); and real-time bandwidth
# is not switched off (sched_rt_runtime_us under its period). Older kernels
# instead throttle a CPU's real-time tasks for the rest of each second once
# they used 950 ms of it, whoever waits: a 50 ms stall in a busy guest. Not
# measured, so not used.
rt_usable() {
	local rt period v fs
	rt=$(cat /proc/sys/kernel/sched_rt_runtime_us 2> /dev/null) || return 1
	period=$(cat /proc/sys/kernel/sched_rt_period_us 2> /dev/null) || return 1
	case "$rt" in ''|*[!0-9]*) return 1 ;; esac
	case "$period" in ''|*[!0-9]*) return 1 ;; esac
	[ "$rt" -lt "$period" ] || return 1
	v=$(uname -r)
	v=${v%%[!0-9.]*}
	[ "$(printf '%s\n' 6.12 "$v" | sort -V | head -n 1)" = 6.12 ] || return 1
	for fs in /sys/kernel/debug/sched/fair_server/cpu*/runtime; do
		[ -r "$fs" ] || continue
		v=$(cat "$fs" 2> /dev/null) || continue
		case "$v" in ''|*[!0-9]*|0) return 1 ;; esac
	done
	chrt -f 1 true 2> /dev/null && chrt -f 2 true 2> /dev/null
}

# rt_guests: whether make check's guests run at real-time priority:
# VM_RT if set (0 or 1; 1 where rt_usable says no is an error), else 1
# when rt_usable and the guests run under TCG (QEMU's one vCPU thread;
# KVM's thread per vCPU is never put at real-time priority, vm/run).
# VM_RT=boot is what a lane of phase B gives its cases (vm/run: at
# real-time priority while booting); a tests/run started from one of them
# (tests/interrupt.sh) takes it for 0.
rt_guests() {
	case "${VM_RT-}" in
	0|boot) return 1 ;;
	1) rt_usable || die "VM_RT=1, but no real-time priority here (chrt -f 2, real-time bandwidth on, a host kernel of 6.12 or later: vm/lib.sh, rt_usable)"
	   return 0 ;;
	'') ;;
	*) die "VM_RT must be 0 or 1, not '$VM_RT'" ;;
	esac
	case "${ACCEL:-auto}" in
	kvm) return 1 ;;
	auto) [ -r /dev/kvm ] && [ -w /dev/kvm ] && return 1 ;;
	esac
	rt_usable
}

# kernel_arch IMAGE: arm64 for an arm64 Image ("ARM\x64" at offset 56),
# x86 for anything else (a bzImage).
kernel_arch() {
	if [ "$(dd if="$1" bs=1 skip=56 count=4 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 41524d64 ]; then
		echo arm64
	else
		echo x86
	fi
}

# kernel_version IMAGE: the version a kernel image boots with, as in
# /proc/version: an arm64 Image's banner ("Linux version R (B@H) (C) V",
# the image is not compressed), or a bzImage's kernel_version string,
# which the setup header points to ("R (B@H) V", 0x200 past the offset
# at 0x20e); nothing if IMAGE has neither
kernel_version() {
	local off
	if [ "$(kernel_arch "$1")" = arm64 ]; then
		linux_banner "$1"
		return
	fi
	[ "$(dd if="$1" bs=1 skip=514 count=4 2>/dev/null)" = HdrS ] || return 0
	off=$(od -An -tu2 --endian=little -j 526 -N 2 "$1" | tr -d ' ')
	[ -n "$off" ] && [ "$off" -gt 0 ] || return 0
	dd if="$1" bs=1 skip=$((off + 512)) count=256 2>/dev/null | tr '\0' '\n' | head -n 1
}

# linux_banner ELF: the "Linux version" banner in ELF (a vmlinux, or an
# arm64 Image), the final one: since 6.1 init/version.o holds a weak
# banner, without the build's number and time and ending in a blank
# ("... # SMP "), which the final link's init/version-timestamp.o
# overrides
linux_banner() {
	strings -a "$1" | grep '^Linux version .*) #' | grep -v ' $' | tail -n 1
}

# image_of_vmlinux IMAGE VMLINUX: whether VMLINUX is the ELF that IMAGE
# was made from: IMAGE holds VMLINUX's GNU build ID (vm/build-id), a
# hash of its code and data, which another build does not share even
# where the version strings agree (a reproducible build pins the time
# and the number in them); vm/build-id's status: 0 yes, 1 no, 2 cannot
# tell (and why, one line on stderr)
image_of_vmlinux() {
	local id
	id=$("$HPBRAKE_ROOT/vm/build-id" "$2") || return 2
	"$HPBRAKE_ROOT/vm/build-id" -i "$1" "$id"
}

# initramfs_of ARCH: the guest initramfs make builds for ARCH.
initramfs_of() {
	if [ "$1" = arm64 ]; then
		echo "$HPBRAKE_BUILD/arm64/initramfs.cpio"
	else
		echo "$HPBRAKE_BUILD/initramfs.cpio"
	fi
}

# pack_dir DIR: the tree under DIR as a gzip'd newc cpio on stdout, owned
# by root and in a fixed order: an archive to append to a guest's
# initramfs, whose files it adds or replaces. Its directories become the
# guest's (/, /etc, /lib...), so DIR (a scratch tree) is made readable to
# all first, 0755 and 0644 whatever the umask.
pack_dir() {
	local -
	set -o pipefail
	chmod -R u=rwX,go=rX "$1" &&
	(cd "$1" && find . | LC_ALL=C sort |
		cpio -o -H newc --owner=0:0 --quiet) | gzip -1
}

# pack_modules KODIR FILE: the .ko files of KODIR packed as the cpio.gz
# that vm/run appends to the guest's initramfs, where they are
# /lib/modules/hpbrake/NAME.ko. A module only loads in the kernel it was
# built against (its split BTF refers to that vmlinux's), so each
# kernel gets its own archive. FILE is written whole or not at all.
pack_modules() {
	local - dir=$1 dst=$2 tmp rc=1
	set -o pipefail
	tmp=$(mktemp -d) || return 1
	if mkdir -p "$tmp/root/lib/modules/hpbrake" &&
	   cp "$dir"/*.ko "$tmp/root/lib/modules/hpbrake/" &&
	   pack_dir "$tmp/root" > "$tmp/out" &&
	   mv -f "$tmp/out" "$dst"; then
		rc=0
	fi
	rm -rf "$tmp"
	return "$rc"
}
