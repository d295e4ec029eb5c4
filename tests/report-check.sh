#!/bin/bash
# Open the comparison report in headless Chromium and check that every
# plot is there and not empty. KTAP output.
#
# usage: tests/report-check.sh DIR   (DIR/index.html from vm/report)
set -u
. "$(dirname "$0")/lib/ktap.sh"
dir=${1:?usage: tests/report-check.sh DIR}
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
echo "1..5"
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
	if grep -q '<svg' "$tmp/fig" && [ "$1" -ge 2 ] && [ "$2" -ge 2 ] &&
	   ! grep -q 'NaN' "$tmp/fig"; then
		result ok "plot $id: both kernels' curves drawn ($1 and $2 segments)"
	else
		result fail "plot $id missing or empty: curves of $1 and $2 segments"
	fi
done
if grep -q '<table>' "$tmp/dom.html" && ! grep -q '| *|' "$dir/report.md"; then
	result ok "tables are there, no empty cells"
else
	result fail "tables missing or with empty cells"
fi
[ "$ktap_failed" = 0 ]
