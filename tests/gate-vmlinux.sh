#!/bin/bash
# vm/gate takes VMLINUX's BTF for hplat: it must refuse a vmlinux that is
# not KERNEL's own, even one of the same release from the same tree (the
# vanilla build's beside the braked kernel), before any guest boots; and
# it must take the kernel's own. KTAP; no guest is booted (a gate that
# did boot one, as nobody, would fail at vm/run's lock, and so here).
#
# usage: tests/gate-vmlinux.sh KERNEL_DIR...
#   KERNEL_DIR: build/kernel/TAG, with vanilla/ and braked/ (bzImage or
#   Image, and vmlinux, in each)
set -u
. "$(dirname "$0")/lib/ktap.sh"
. "$(dirname "$0")/../vm/lib.sh"
[ $# -gt 0 ] || { echo "usage: tests/gate-vmlinux.sh KERNEL_DIR..." >&2; exit 2; }

echo "KTAP version 1"
echo "1..$(($# * 5))"
for d in "$@"; do
	tag=$(basename "$d")
	img=bzImage
	[ -f "$d/braked/$img" ] || img=Image
	k=$d/braked/$img own=$d/braked/vmlinux other=$d/vanilla/vmlinux
	kv=$(kernel_version "$k")
	echo "# $tag: braked $img: $kv"
	case "$kv" in
	[0-9]*" ("*") #"*|"Linux version "[0-9]*" ("*") #"*)
		result ok "$tag: the braked $img's version string read" ;;
	*) result fail "$tag: the braked $img's version string unread" ;;
	esac
	# the two vmlinux files are not the same, and both have a build ID:
	# else "refused" below would prove nothing
	id_own=$("$HPBRAKE_ROOT/vm/build-id" "$own" 2>&1)
	id_other=$("$HPBRAKE_ROOT/vm/build-id" "$other" 2>&1)
	echo "# $tag: build IDs: braked $id_own, vanilla $id_other"
	case "$id_own $id_other" in
	*[!0-9a-f\ ]*|"$id_own $id_own") result fail "$tag: the braked and vanilla vmlinux have distinct build IDs" ;;
	*) result ok "$tag: the braked and vanilla vmlinux have distinct build IDs" ;;
	esac
	image_of_vmlinux "$k" "$own"
	rc=$?
	if [ "$rc" = 0 ]; then
		result ok "$tag: the braked vmlinux is the braked $img's"
	else
		result fail "$tag: the braked vmlinux is not taken for the braked $img's (status $rc)"
	fi
	image_of_vmlinux "$k" "$other"
	rc=$?
	if [ "$rc" = 1 ]; then
		result ok "$tag: the vanilla vmlinux is not the braked $img's"
	else
		result fail "$tag: the vanilla vmlinux against the braked $img: status $rc, not 1"
	fi
	tmp=$(mktemp -d)
	KERNEL=$k VMLINUX=$other EXPECT_BRAKE_MS=1000 GATE_OUT=$tmp/gate.out \
		"$HPBRAKE_ROOT/vm/gate" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	if [ "$rc" = 1 ] && [ ! -s "$tmp/stdout" ] && [ ! -e "$tmp/gate.out" ] &&
		[ "$(wc -l < "$tmp/stderr")" = 1 ] &&
		grep -q "^gate: VMLINUX is not KERNEL's: .* does not hold .*'s build ID" "$tmp/stderr"; then
		result ok "$tag: vm/gate refuses the vanilla vmlinux for the braked kernel in one line, no guest booted"
	else
		result fail "$tag: vm/gate with the vanilla vmlinux: exit $rc, $(head -c 200 "$tmp/stderr" | head -n 1)"
	fi
	rm -rf "$tmp"
done
[ "$ktap_failed" = 0 ]
