#!/bin/bash
# vm/build-id on images made here: a bzImage-shaped file (setup header,
# payload_offset and payload_length; setup_sects 0 once) whose payload is
# compressed in each format the kernel offers, with the uncompressed size appended as the
# kernel's Makefile.lib does (gzip: its own trailer), holding a build ID
# or not; truncated and corrupt payloads (xz's: lz4's legacy frames have
# no checksum to tell), a payload in an unknown format,
# an ELF without a build ID, bad arguments: "cannot tell" (2) is never
# "no" (1). KTAP. The kernels' own images: tests/gate-vmlinux.sh.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
id=00112233445566778899aabbccddeeff00112233
other=00112233445566778899aabbccddeeff00112234

# the fixtures: f.FORMAT.img, and broken ones
python3 - "$tmp" "$id" <<'EOF' || { echo "1..1"; echo "not ok 1 cannot make the fixtures"; exit 1; }
import bz2, gzip, lzma, os, struct, subprocess, sys
d, bid = sys.argv[1], bytes.fromhex(sys.argv[2])
data = os.urandom(100000) + bid + os.urandom(1000)
size = struct.pack("<I", len(data))
def img(z, name, sects=4):
    # setup_sects 0 stands for 4 (Documentation/arch/x86/boot.rst)
    hdr = bytearray(512 * 5)
    hdr[0x1f1] = sects
    hdr[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", hdr, 0x206, 0x20f)
    struct.pack_into("<II", hdr, 0x248, 16, len(z))
    open(os.path.join(d, name), "wb").write(bytes(hdr) + bytes(16) + z + bytes(64))
def tool(argv):
    return subprocess.run(argv, input=data, stdout=subprocess.PIPE, check=True).stdout
fmts = {
    "gzip": gzip.compress(data),
    "xz": lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32) + size,
    "lzma": lzma.compress(data, format=lzma.FORMAT_ALONE) + size,
    "bzip2": bz2.compress(data) + size,
    "lz4": tool(["lz4", "-l", "-c", "-q"]) + size,
    "zstd": tool(["zstd", "-c", "-q"]) + size,
    "lzo": tool(["lzop", "-c", "-q"]) + size,
}
for f, z in fmts.items():
    img(z, f"f.{f}.img", 0 if f == "gzip" else 4)
for f in ("xz", "lz4"):
    z = fmts[f]
    img(z[:len(z) // 2] + z[-4:], f"truncated.{f}.img")
c = bytearray(fmts["xz"]); c[5000:5400] = bytes(400)
img(bytes(c), "corrupt.img")
img(b"LZ5?" + bytes(1000), "unknown.img")
big = bytearray(open(os.path.join(d, "f.gzip.img"), "rb").read())
struct.pack_into("<I", big, 0x24c, 10 ** 7)
open(os.path.join(d, "past-end.img"), "wb").write(big)
old = bytearray(open(os.path.join(d, "f.gzip.img"), "rb").read())
struct.pack_into("<H", old, 0x206, 0x207)
open(os.path.join(d, "old.img"), "wb").write(old)
# an arm64 Image with EFI's PE header, cut short: its one section ends
# past the end of the file
pe = bytearray(4096)
pe[0:2] = b"MZ"
pe[56:60] = b"ARMd"
struct.pack_into("<I", pe, 0x3c, 0x40)
pe[0x40:0x44] = b"PE\0\0"
struct.pack_into("<HH", pe, 0x40 + 4, 0xaa64, 1)
struct.pack_into("<H", pe, 0x40 + 20, 0)
struct.pack_into("<II", pe, 0x40 + 24 + 16, 8192, 0x1000)
open(os.path.join(d, "cut-pe.img"), "wb").write(pe + bid)
EOF
printf 'int main(void) { return 0; }\n' > "$tmp/m.c"
gcc -o "$tmp/with-id" -Wl,--build-id=sha1 "$tmp/m.c" &&
	gcc -o "$tmp/no-id" -Wl,--build-id=none "$tmp/m.c" ||
	{ echo "1..1"; echo "not ok 1 gcc cannot make the ELF fixtures"; exit 1; }

# status WANT DESC ARGS...: vm/build-id ARGS exits WANT
status() {
	local want=$1 desc=$2 rc
	shift 2
	"$root/vm/build-id" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	# "cannot tell" in one line; yes or no without a word (a traceback
	# that exits 1 is no "no")
	if [ "$rc" = "$want" ] && { { [ "$rc" != 2 ] && [ ! -s "$tmp/err" ]; } ||
		{ [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ]; }; }; then
		result ok "$desc: exit $rc$([ "$rc" = 2 ] && echo ", $(cat "$tmp/err")")"
	else
		result fail "$desc: exit $rc (want $want), $(head -n 2 "$tmp/err" | tr '\n' ' ')"
	fi
}

echo "KTAP version 1"
echo "1..25"
for f in gzip xz lzma bzip2 lz4 zstd lzo; do
	status 0 "a $f payload holding the ID" -i "$tmp/f.$f.img" "$id"
	status 1 "a $f payload not holding another" -i "$tmp/f.$f.img" "$other"
done
status 2 "an xz payload cut in half" -i "$tmp/truncated.xz.img" "$other"
status 2 "an lz4 payload cut in half" -i "$tmp/truncated.lz4.img" "$other"
status 2 "an arm64 Image (PE) cut short" -i "$tmp/cut-pe.img" "$id"
status 2 "a corrupt xz payload (its CRC32)" -i "$tmp/corrupt.img" "$other"
status 2 "a payload in an unknown format" -i "$tmp/unknown.img" "$other"
status 2 "a payload_length past the end" -i "$tmp/past-end.img" "$other"
status 2 "boot protocol 2.07" -i "$tmp/old.img" "$other"
status 2 "not a kernel image" -i "$tmp/m.c" "$other"
status 2 "an ID that is not hex" -i "$tmp/f.gzip.img" zz
want=$(readelf -n "$tmp/with-id" | sed -n 's/^ *Build ID: \([0-9a-f]*\)$/\1/p')
got=$("$root/vm/build-id" "$tmp/with-id" 2>&1)
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	result ok "an ELF's build ID as readelf reads it: $got"
else
	result fail "an ELF's build ID: '$got', readelf '$want'"
fi
status 2 "an ELF without a build ID" "$tmp/no-id"
[ "$ktap_failed" = 0 ]
