#!/bin/bash
# Open the comparison report in headless Chromium and check that every
# plot is there and not empty. KTAP output.
#
# usage: tests/report-check.sh DIR [A_BRAKE_MS B_BRAKE_MS]
#        (DIR/index.html from vm/report; the brakes, when given, are
#        those the caller asked of kernels A and B, else those of the
#        report's "asked" lines)
set -u
. "$(dirname "$0")/lib/ktap.sh"
dir=${1:?usage: tests/report-check.sh DIR [A_BRAKE_MS B_BRAKE_MS]}
want_a=${2-} want_b=${3-}
# without them, the brakes vm/report says it asked for (its "asked" lines)
[ -n "$want_a$want_b" ] || {
	want_a=$(sed -n 's/^a: asked brake_ms=\([0-9]*\)$/\1/p' "$dir/data" 2> /dev/null)
	want_b=$(sed -n 's/^b: asked brake_ms=\([0-9]*\)$/\1/p' "$dir/data" 2> /dev/null)
}
chromium=$(command -v chromium || command -v chromium-browser) || {
	echo "KTAP version 1"
	echo "1..0 # SKIP chromium not installed (apt-get install chromium)"
	exit 4
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Chromium as root needs --no-sandbox; no network, no profile of ours.
timeout 60 "$chromium" --headless --no-sandbox --disable-gpu \
	--disable-background-networking --disable-component-update \
	--disable-sync --no-first-run --user-data-dir="$tmp/profile" \
	--dump-dom "file://$(realpath "$dir")/index.html" > "$tmp/dom.html" 2> "$tmp/err"
rc=$?
echo "KTAP version 1"
echo "1..7"
if [ "$rc" = 0 ] && [ -s "$tmp/dom.html" ]; then
	result ok "chromium renders index.html ($(wc -c < "$tmp/dom.html") bytes of DOM)"
else
	result fail "chromium exited $rc: $(tail -n 1 "$tmp/err")"
fi
for id in latency-offline latency-online ops-vs-testers; do
	# the figure's slice of the DOM, and in it the curve of each kernel
	# (gnuplot's groups gnuplot_plot_1 and _2): segments drawn in each
	awk -v id="$id" '$0 ~ "<figure id=\"" id "\"" { on = 1 } on { print }
		on && /<\/figure>/ { exit }' "$tmp/dom.html" > "$tmp/fig"
	segs=""
	for k in 1 2; do
		n=$(awk -v k="$k" '/id="gnuplot_plot_/ { on = ($0 ~ "id=\"gnuplot_plot_" k "\"") }
			on' "$tmp/fig" | tr -d '\n' | grep -o 'L *[0-9]' | wc -l)
		segs="$segs $n"
	done
	set -- $segs
	# a CDF of 20 ops is 20 steps at least; the throughput plot has 4
	# points a curve
	least=19
	[ "$id" = ops-vs-testers ] && least=3
	if grep -q '<svg' "$tmp/fig" && [ "$1" -ge "$least" ] && [ "$2" -ge "$least" ] &&
	   ! grep -q 'NaN' "$tmp/fig"; then
		result ok "plot $id: both kernels' curves drawn ($1 and $2 segments, >= $least)"
	else
		result fail "plot $id missing or thin: curves of $1 and $2 segments (want >= $least)"
	fi
done
# the brake's precision: plotted when one of the kernels braked
awk '$0 ~ "<figure id=\"brake-precision\"" { on = 1 } on { print }
	on && /<\/figure>/ { exit }' "$tmp/dom.html" > "$tmp/fig"
segs=$(awk '/id="gnuplot_plot_1"/ { on = 1 } /id="gnuplot_plot_2"/ { on = 0 } on' "$tmp/fig" |
	tr -d '\n' | grep -o 'L *[0-9]' | wc -l)
# (whether a kernel braked: from the data the report was made of, never
# from its prose, which the bug-finding section fills with brakes; and
# when the caller says what it asked for, that: a report of two vanilla
# kernels skips this plot, and must not pass for one of a braked one)
env_a=$(sed -n 's/^a: env .*brake_ms=\([0-9]*\).*/\1/p' "$dir/data" 2> /dev/null)
env_b=$(sed -n 's/^b: env .*brake_ms=\([0-9]*\).*/\1/p' "$dir/data" 2> /dev/null)
if [ ! -s "$dir/data" ] || [ "$(grep -c '^[ab]: env ' "$dir/data")" != 2 ] ||
   [ -z "$env_a" ] || [ -z "$env_b" ]; then
	result fail "plot brake-precision: no $dir/data with one env line for each kernel, a: and b:, each with its brake_ms"
elif [ -n "$want_a$want_b" ] && [ "$env_a $env_b" != "$want_a $want_b" ]; then
	result fail "plot brake-precision: the kernels braked $env_a and $env_b ms, asked for $want_a and $want_b"
elif [ "$env_a" = 0 ] && [ "$env_b" = 0 ]; then
	result ok "plot brake-precision # SKIP neither kernel braked"
elif grep -q '<svg' "$tmp/fig" && [ "$segs" -ge 19 ]; then
	result ok "plot brake-precision: the braked kernel's overshoot CDF drawn ($segs segments)"
else
	result fail "plot brake-precision missing or thin ($segs segments)"
fi
# the bug-finding section, when the report has one: both plots drawn
if ! grep -q '^## What the brake costs in bug finding' "$dir/report.md"; then
	result ok "bug-finding plots # SKIP no make bugcost run in this report"
else
	drawn=""
	for id in bugcost-hits bugcost-first; do
		awk -v id="$id" '$0 ~ "<figure id=\"" id "\"" { on = 1 } on { print }
			on && /<\/figure>/ { exit }' "$tmp/dom.html" > "$tmp/fig"
		n=$(awk '/id="gnuplot_plot_1"/ { on = 1 } /id="gnuplot_plot_2"/ { on = 0 } on' "$tmp/fig" |
			tr -d '\n' | grep -o 'L *[0-9]' | wc -l)
		drawn="$drawn $id:$n"
	done
	if ! echo "$drawn" | grep -q ':0'; then
		result ok "bug-finding plots drawn:$drawn segments"
	else
		result fail "bug-finding plots missing or empty:$drawn segments"
	fi
fi
if grep -q '<table>' "$tmp/dom.html" && ! grep -q '| *|' "$dir/report.md"; then
	result ok "tables are there, no empty cells"
else
	result fail "tables missing or with empty cells"
fi
[ "$ktap_failed" = 0 ]
