#!/bin/bash
# hpop on the host, under ASan + UBSan: every bad invocation is a usage
# error (exit 64) that touches nothing; a good one refuses to write the
# host's sysfs without -f; timed-read and read -u work on temp files (read
# -u as root: the dropped uid, gid and groups). KTAP output.
set -u
hpop=${1:?usage: tests/unit/hpop.sh PATH/TO/hpop}
. "$(dirname "$0")/../lib/ktap.sh"

# expect_exit WANT DESC ARGS...: hpop exits WANT (and a stderr line
# matching WANT_RE, if set), no sanitizer report (tests/lib/ktap.sh)
expect_exit() {
	expect_exit_of "$hpop" "$@"
}

# run ARGS...: hpop's stdout in $out, stderr in $tmp, exit status in $rc
run() {
	out=$("$hpop" "$@" 2> "$tmp")
	rc=$?
}

# expect_line WANT_EXIT REGEX DESC ARGS...: exit WANT_EXIT, stdout one
# line matching REGEX, no sanitizer report
expect_line() {
	local want=$1 re=$2 desc=$3
	shift 3
	run "$@"
	if [ "$rc" = "$want" ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
	   printf '%s\n' "$out" | grep -Eq "$re" && ! sanitized; then
		result ok "$desc: exit $rc, $(printf '%s' "$out" | cut -c 1-50)"
	else
		result fail "$desc: exit $rc, expected $want and /$re/: $(printf '%s' "$out" | head -c 200 | tr '\n' '|') $(head -n 1 "$tmp")"
	fi
}

tmp=$(mktemp)
# a directory others may enter but not list, so that only a file's own
# mode decides whether uid 65534 may read it
dir=$(mktemp -d)
trap 'rm -f "$tmp"; rm -rf "$dir"' EXIT
chmod 711 "$dir"
printf 'brake 250\nsecond line\n' > "$dir/two-lines"
long=$(printf '%0100d' 0 | tr 0 x)
printf '%s' "$long" > "$dir/long"
printf 'secret\n' > "$dir/root-only"
chmod 600 "$dir/root-only"
printf 'public\n' > "$dir/public"
chmod 644 "$dir/public"
echo "KTAP version 1"
echo "1..34"
WANT_RE='^hpop: missing command' expect_exit 64 "no command"
WANT_RE='^hpop: unknown command' expect_exit 64 "unknown command" frob
WANT_RE='^hpop: unknown option -z$' expect_exit 64 "unknown option" -z now
WANT_RE='^hpop: now takes no -u, -k or -f' expect_exit 64 "now with -k" -k 5 now
WANT_RE='^hpop: op takes CPU and online|offline' expect_exit 64 "op without arguments" op
WANT_RE='^hpop: invalid cpu number' expect_exit 64 "op with a bad cpu" op x offline
WANT_RE='^hpop: invalid cpu number' expect_exit 64 "op with a negative cpu" op -1 offline
WANT_RE='^hpop: invalid cpu number' expect_exit 64 "op with an empty cpu" op "" offline
WANT_RE='^hpop: invalid cpu number' expect_exit 64 "op with an overflowing cpu" op 99999999999999999999 offline
WANT_RE='^hpop: operation must be online or offline' expect_exit 64 "op with a bad operation" op 1 sideways
WANT_RE='^hpop: op takes CPU and online|offline' expect_exit 64 "op with too many arguments" op 1 offline now
WANT_RE='^hpop: option -u needs a value$' expect_exit 64 "-u without a value" -u
WANT_RE='^hpop: invalid uid' expect_exit 64 "-u with a non-number" -u nobody now
WANT_RE='^hpop: invalid uid' expect_exit 64 "-u negative" -u -5 now
WANT_RE='^hpop: invalid kill delay (1\.\.600000 ms)' expect_exit 64 "-k zero" -k 0 op 1 offline
WANT_RE='^hpop: invalid kill delay (1\.\.600000 ms)' expect_exit 64 "-k over the bound" -k 600001 op 1 offline
WANT_RE='^hpop: -s and -c go with -k' expect_exit 64 "-s without -k" -s INT op 1 offline
WANT_RE='^hpop: -s and -c go with -k' expect_exit 64 "-c without -k" -c op 1 offline
WANT_RE='^hpop: invalid signal (KILL, INT or TERM)' expect_exit 64 "-s with an unknown signal" -k 5 -s HUP op 1 offline
WANT_RE='^hpop: invalid signal (KILL, INT or TERM)' expect_exit 64 "-s with a number" -k 5 -s 9 op 1 offline
WANT_RE='^hpop: SIGKILL cannot be caught' expect_exit 64 "-c with SIGKILL" -k 5 -c op 1 offline
WANT_RE='^hpop: write takes FILE and STRING' expect_exit 64 "write without a string" write /dev/null
WANT_RE='^hpop: now takes no arguments' expect_exit 64 "now with an argument" now 1
expect_exit 0 "now" now
if [ -e /etc/hpbrake-guest ]; then
	result ok "refuses the host's sysfs # SKIP this is an hpbrake guest"
else
	# exit 1 and the guard's reason: a user who may not write sysfs
	# (make check runs this as nobody) fails with exit 1 anyway
	WANT_RE='^hpop: refusing to write .* outside an hpbrake guest' \
		expect_exit 1 "refuses to offline a host CPU without -f" op 1 offline
fi

# --- 25..30: timed-read, and the options read and timed-read refuse
expect_line 0 '^ret=0 errno=0 latency_us=[0-9]+ value=brake 250$' \
	"timed-read of a file: its first line" timed-read "$dir/two-lines"
expect_line 0 "^ret=0 errno=0 latency_us=[0-9]+ value=$(printf '%.64s' "$long")\$" \
	"timed-read of a 100-byte line: its first 64 bytes" timed-read "$dir/long"
expect_line 1 '^ret=-1 errno=ENOENT latency_us=0 value=$' \
	"timed-read of a missing file" timed-read "$dir/missing"
WANT_RE='^hpop: timed-read takes no -u or -k' expect_exit 64 "timed-read with -u" -u 65534 timed-read "$dir/two-lines"
WANT_RE='^hpop: timed-read takes no -u or -k' expect_exit 64 "timed-read with -k" -k 5 timed-read "$dir/two-lines"
WANT_RE='^hpop: read takes no -k' expect_exit 64 "read with -k" -k 5 read "$dir/two-lines"

# --- 32..34: read -u drops uid, gid and supplementary groups. It takes
# root, or (as make check runs the host tests: nobody with group 4)
# CAP_SETUID and CAP_SETGID. The target is a uid other than the caller's,
# so that a 0600 file of the caller's is one hpop must then fail to read;
# and the caller has a supplementary group (adm, 4), given here if it has
# none, so that an hpop without setgroups() would keep it.
me=$(id -u)
to=65534
[ "$me" = 65534 ] && to=65533
if [ "$me" != 0 ] && ! grep -q '^CapEff:.*[1-9a-f]' /proc/$$/status; then
	for what in "reads a 0644 file" "cannot read a 0600 file of uid $me" \
		    "drops uid, gid and groups"; do
		result ok "-u $to $what # SKIP needs root or CAP_SETUID and CAP_SETGID"
	done
else
	run -u "$to" read "$dir/public"
	if [ "$rc" = 0 ] && [ "$out" = public ] && ! sanitized; then
		result ok "-u $to reads a 0644 file"
	else
		result fail "-u $to reads a 0644 file: exit $rc, $out $(head -n 1 "$tmp")"
	fi
	run -u "$to" read "$dir/root-only"
	if [ "$rc" = 1 ] && [ -z "$out" ] &&
	   grep -q "^hpop: failed to open .*: Permission denied$" "$tmp" && ! sanitized; then
		result ok "-u $to cannot read a 0600 file of uid $me: EACCES"
	else
		result fail "-u $to cannot read a 0600 file of uid $me: exit $rc, ${out:+read \"$out\" }$(head -n 1 "$tmp")"
	fi
	groups=
	if ! grep -q '^Groups:.*[0-9]' /proc/$$/status &&
	   command -v setpriv > /dev/null; then
		groups="setpriv --groups 4 --"
	fi
	out=$($groups "$hpop" -u "$to" read /proc/self/status 2> "$tmp")
	rc=$?
	# blanks made one space, none at the end (kernels end Groups: with one)
	ids=$(printf '%s\n' "$out" | grep -E '^(Uid|Gid|Groups):' |
	      sed -E 's/[[:space:]]+/ /g; s/ $//' | tr '\n' '|')
	if [ "$rc" = 0 ] && ! sanitized &&
	   [ "$ids" = "Uid: $to $to $to $to|Gid: $to $to $to $to|Groups:|" ]; then
		result ok "-u $to drops uid, gid and groups${groups:+ (given group 4)}"
	else
		result fail "-u $to drops uid, gid and groups${groups:+ (given group 4)}: exit $rc, $ids $(head -n 1 "$tmp")"
	fi
fi
[ "$ktap_failed" = 0 ]
