# KTAP helpers for host-side bash tests (sourced).

ktap_n=0
ktap_failed=0

# result ok|fail DESCRIPTION
result() {
	ktap_n=$((ktap_n + 1))
	if [ "$1" = ok ]; then
		echo "ok $ktap_n $2"
	else
		ktap_failed=$((ktap_failed + 1))
		echo "not ok $ktap_n $2"
	fi
}

# sanitized: an ASan, UBSan or LSan report in $tmp (the caller's scratch
# file for a tool's stderr)
sanitized() {
	grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' "$tmp"
}

# expect_exit_of BIN WANT DESC ARGS...: BIN ARGS exits WANT, with a stderr
# line matching WANT_RE (a BRE) if it is set, and no sanitizer report
expect_exit_of() {
	local bin=$1 want=$2 desc=$3 rc
	shift 3
	"$bin" "$@" > /dev/null 2> "$tmp"
	rc=$?
	if [ "$rc" = "$want" ] && ! sanitized &&
	   { [ -z "${WANT_RE:-}" ] || grep -q -- "$WANT_RE" "$tmp"; }; then
		result ok "$desc: exit $rc${WANT_RE:+, $(head -n 1 "$tmp")}"
	else
		result fail "$desc: exit $rc, expected $want${WANT_RE:+ and /$WANT_RE/}: $(head -n 1 "$tmp")"
	fi
}
