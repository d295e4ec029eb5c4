#!/bin/bash
# make install into a temporary DESTDIR, with PREFIX=/usr and /opt/hp: the
# three tools in PREFIX/sbin, mode 0755, static, the built ones; their man
# pages in PREFIX/share/man/man8, mode 0644, those of docs/; nothing else,
# nothing outside DESTDIR; the installed tools run (their help); make
# uninstall removes them. Then the same checks on a broken copy of the
# tree, where each must fail. make takes the built tools as they are
# (--assume-old): as nobody (tests/run) it could build nothing, and this
# test must never start a kernel build. KTAP output.
set -u
. "$(dirname "$0")/../lib/ktap.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
tools="hpop hplat hpload"

echo "KTAP version 1"
missing=""
for t in $tools; do
	[ -f "$root/build/$t" ] || missing="$missing build/$t"
done
if [ -n "$missing" ]; then
	echo "1..1"
	result fail "the tools are built: missing$missing (make all)"
	exit 1
fi

tmp=$(mktemp -d) && tmp=$(realpath "$tmp") || exit 1
trap 'rm -rf "$tmp"' EXIT

# mk [-n] DESTDIR PREFIX TARGET: make TARGET (-n: a dry run), output in
# $tmp/make.out. DESTDIR must lie under $tmp, and but for a dry run
# DESTDIR/PREFIX too: this test never writes the host's own PREFIX.
mk() {
	local dry=""
	if [ "$1" = -n ]; then
		dry=-n
		shift
	fi
	case "$1/" in
	"$tmp"/?*) ;;
	*) echo "# refusing DESTDIR '$1': not under $tmp"; return 99 ;;
	esac
	if [ -z "$dry" ]; then
		case "$(realpath -m "$1$2")/" in
		"$tmp"/?*) ;;
		*) echo "# refusing DESTDIR/PREFIX '$1$2': not under $tmp"; return 99 ;;
		esac
	fi
	# ARCH=arm64 (a fourth argument): the tools of build/arm64/
	local b=build${4:+/$4}
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory \
		-C "$root" $dry --assume-old=$b/hpop --assume-old=$b/hplat \
		--assume-old=$b/hpload "DESTDIR=$1" "PREFIX=$2" "$3" \
		"ARCH=${4:-x86}" > "$tmp/make.out" 2>&1
}

# The checks: each returns 0, or 1 with the reason in $why.

# is_tool FILE BUILT: a regular file of mode 0755, a static ELF executable
# (no program interpreter, no shared library needed), the bytes of BUILT
is_tool() {
	local mode
	why=""
	if [ ! -f "$1" ] || [ -L "$1" ]; then
		why="missing"
		return 1
	fi
	mode=$(stat -c %a "$1")
	[ "$mode" = 755 ] || { why="mode $mode"; return 1; }
	command -v readelf > /dev/null || { why="no readelf (binutils)"; return 1; }
	readelf -h "$1" > /dev/null 2>&1 || { why="not ELF"; return 1; }
	if readelf -lW "$1" | grep -q '^ *INTERP '; then
		why="dynamic: $(readelf -lW "$1" | grep -o 'interpreter: [^]]*')"
		return 1
	fi
	if readelf -dW "$1" | grep -q '(NEEDED)'; then
		why="dynamic: needs $(readelf -dW "$1" | grep -o '(NEEDED).*\[.*\]' | head -n 1)"
		return 1
	fi
	cmp -s "$1" "$2" || { why="not the bytes of ${2#"$root"/}"; return 1; }
}

# is_arm64 FILE: an AArch64 ELF executable
is_arm64() {
	why=""
	readelf -h "$1" 2> /dev/null | grep -q 'Machine: *AArch64' && return 0
	why="machine: $(readelf -h "$1" 2> /dev/null | sed -n 's/^ *Machine: *//p')"
	return 1
}

# is_page FILE SOURCE: a regular file of mode 0644, not empty, a man page
# (.TH), the bytes of SOURCE
is_page() {
	local mode
	why=""
	if [ ! -f "$1" ] || [ -L "$1" ]; then
		why="missing"
		return 1
	fi
	mode=$(stat -c %a "$1")
	[ "$mode" = 644 ] || { why="mode $mode"; return 1; }
	[ -s "$1" ] || { why="empty"; return 1; }
	grep -q '^\.TH ' "$1" || { why="no .TH line"; return 1; }
	cmp -s "$1" "$2" || { why="not the bytes of ${2#"$root"/}"; return 1; }
}

# only_files DIR PREFIX [NONE]: DIR holds the installed files of PREFIX and
# nothing else but directories (NONE: no file at all)
only_files() {
	local want got t extra lost
	why=""
	want=$(if [ -z "${3:-}" ]; then
		for t in $tools; do
			echo "${2#/}/sbin/$t"
			echo "${2#/}/share/man/man8/$t.8"
		done
	fi | sort)
	got=$(find "$1" ! -type d -printf '%P\n' | sort)
	[ "$got" = "$want" ] && return 0
	extra=$(comm -13 <(echo "$want") <(echo "$got") | grep . | paste -sd ' ')
	lost=$(comm -23 <(echo "$want") <(echo "$got") | grep . | paste -sd ' ')
	why="${extra:+extra: $extra}${extra:+${lost:+; }}${lost:+missing: $lost}"
	return 1
}

# writes_under DEST: every absolute path in make's dry run (make.out)
# resolves to one under DEST, and there is one
writes_under() {
	local dest p n=0
	why=""
	dest=$(realpath -m "$1")
	while read -r p; do
		case "$p" in /*) ;; *) continue ;; esac
		n=$((n + 1))
		case "$(realpath -m "$p")/" in
		"$dest"/?*) ;;
		*) why="writes $p ($(realpath -m "$p"))"; return 1 ;;
		esac
	done < <(tr "\"' \t" '[\n*]' < "$tmp/make.out")
	[ "$n" -gt 0 ] || why="no path in the dry run"
	[ "$n" -gt 0 ]
}

# runs FILE ARG REGEX: FILE ARG exits 0, its first line matching REGEX
runs() {
	local out rc
	why=""
	out=$("$1" "$2" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && printf '%s\n' "$out" | head -n 1 | grep -Eq "$3" && return 0
	why="exit $rc, printed '$(printf '%s\n' "$out" | head -n 1)'"
	return 1
}

# expect DESC CHECK ARGS...: CHECK must pass
expect() {
	local desc=$1
	shift
	if "$@"; then
		result ok "$desc"
	else
		result fail "$desc: $why"
	fi
}

# caught DESC REGEX CHECK ARGS...: CHECK must fail, for a reason matching
# REGEX
caught() {
	local desc=$1 re=$2
	shift 2
	if "$@"; then
		result fail "$desc is not caught"
	elif printf '%s\n' "$why" | grep -Eq "$re"; then
		result ok "$desc is caught: $why"
	else
		result fail "$desc is caught, but not for /$re/: $why"
	fi
}

# install_checks DESTDIR PREFIX [arm64]: make install (ARCH=arm64: the
# tools of build/arm64/, AArch64 executables, which this host cannot run)
# and what it installed
install_checks() {
	local d=$1 p=$2 a=${3:-} t b=build
	local tag=${a:+"ARCH=$a "}
	[ -z "$a" ] || b=build/$a
	if mk "$d" "$p" install $a; then
		result ok "make install ${tag}DESTDIR=\$tmp PREFIX=$p"
	else
		result fail "make install ${tag}DESTDIR=\$tmp PREFIX=$p: $(tail -n 3 "$tmp/make.out" | tr '\n' '|')"
	fi
	for t in $tools; do
		expect "$tag$p/sbin/$t: mode 0755, static, $b/$t" \
			is_tool "$d$p/sbin/$t" "$root/$b/$t"
	done
	for t in $tools; do
		expect "$tag$p/share/man/man8/$t.8: mode 0644, docs/$t.8" \
			is_page "$d$p/share/man/man8/$t.8" "$root/docs/$t.8"
	done
	expect "${tag}nothing else in DESTDIR" only_files "$d" "$p"
	mk -n "$d" "$p" install $a
	expect "${tag}make -n install names no path outside DESTDIR" writes_under "$d"
	if [ -n "$a" ]; then
		for t in $tools; do
			expect "$tag$p/sbin/$t: an AArch64 executable" is_arm64 "$d$p/sbin/$t"
		done
		return
	fi
	expect "installed hpop -h prints its usage" runs "$d$p/sbin/hpop" -h '^usage: hpop '
	expect "installed hplat --help prints its usage" runs "$d$p/sbin/hplat" --help '^Usage: hplat '
	expect "installed hpload --help prints its usage" runs "$d$p/sbin/hpload" --help '^Usage: hpload '
}

# uninstall_checks DESTDIR PREFIX
uninstall_checks() {
	if mk "$1" "$2" uninstall; then
		expect "make uninstall PREFIX=$2 leaves no file" only_files "$1" "$2" none
	else
		result fail "make uninstall PREFIX=$2: $(tail -n 3 "$tmp/make.out" | tr '\n' '|')"
	fi
}

# refused DESC DESTDIR PREFIX: mk refuses before make runs
refused() {
	local msg rc
	rm -f "$tmp/make.out"
	msg=$(mk "$2" "$3" install)
	rc=$?
	if [ "$rc" = 99 ] && [ ! -e "$tmp/make.out" ]; then
		result ok "$1 is refused before make runs"
	else
		result fail "$1: mk returned $rc, $msg"
	fi
}

echo "1..51"
refused "an empty DESTDIR" "" /usr
refused "a DESTDIR/PREFIX that climbs out of \$tmp" "$tmp/escape" /../../../../../../../..

# --- 3..15: PREFIX=/usr, and a copy of it to break below
mkdir "$tmp/usr-root" "$tmp/opt-root"
install_checks "$tmp/usr-root" /usr
cp -a "$tmp/usr-root" "$tmp/broken"
uninstall_checks "$tmp/usr-root" /usr

# --- 16..29: PREFIX=/opt/hp, and the host's /opt/hp left alone
host_opt=""
[ -e /opt/hp ] && host_opt=1
install_checks "$tmp/opt-root" /opt/hp
uninstall_checks "$tmp/opt-root" /opt/hp
if [ -n "$host_opt" ]; then
	result ok "no /opt/hp on the host # SKIP the host has one"
elif [ ! -e /opt/hp ]; then
	result ok "no /opt/hp on the host"
else
	result fail "no /opt/hp on the host: it is there now"
fi

# --- 30..41: ARCH=arm64, the arm64 tools (build/arm64/, make check builds
# them before this runs)
if [ -f "$root/build/arm64/hplat" ] && [ -f "$root/build/arm64/hpop" ] &&
   [ -f "$root/build/arm64/hpload" ]; then
	mkdir "$tmp/arm64-root"
	install_checks "$tmp/arm64-root" /usr arm64
else
	for i in $(seq 12); do
		result ok "ARCH=arm64 install $i # SKIP no arm64 tools (make ARCH=arm64 all)"
	done
fi

# --- 42..51: a broken tree; each check must fail on it
b=$tmp/broken/usr
cp "$(readlink -f /bin/true)" "$b/sbin/hpop"
chmod 0755 "$b/sbin/hpop"
chmod 0644 "$b/sbin/hplat"
cp "$root/build/hpop" "$b/sbin/hpload"
chmod 0600 "$b/share/man/man8/hpop.8"
: > "$b/share/man/man8/hplat.8"
rm "$b/share/man/man8/hpload.8"
: > "$b/sbin/hpop.orig"
caught "a dynamic hpop (/bin/true)" '^dynamic' is_tool "$b/sbin/hpop" "$root/build/hpop"
caught "an hplat of mode 0644" '^mode 644$' is_tool "$b/sbin/hplat" "$root/build/hplat"
caught "hpop installed as hpload" 'not the bytes of build/hpload' \
	is_tool "$b/sbin/hpload" "$root/build/hpload"
caught "an hpop without usage" "printed ''" runs "$b/sbin/hpop" -h '^usage: hpop '
caught "an hpop.8 of mode 0600" '^mode 600$' is_page "$b/share/man/man8/hpop.8" "$root/docs/hpop.8"
caught "an empty hplat.8" '^empty$' is_page "$b/share/man/man8/hplat.8" "$root/docs/hplat.8"
caught "a missing hpload.8" '^missing$' is_page "$b/share/man/man8/hpload.8" "$root/docs/hpload.8"
caught "an x86-64 hpop as an arm64 one" '^machine: Advanced Micro Devices X86-64' is_arm64 "$root/build/hpop"
caught "a stray file" 'extra: usr/sbin/hpop.orig' only_files "$tmp/broken" /usr
mk -n "$tmp/escape" /../../../../../../../../../hpbrake-escape install
caught "a PREFIX that climbs out of DESTDIR (dry run)" '^writes /.*\(/hpbrake-escape/' \
	writes_under "$tmp/escape"
[ "$ktap_failed" = 0 ]
