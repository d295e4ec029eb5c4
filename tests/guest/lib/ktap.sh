# KTAP v1 helpers for guest scenarios (busybox sh), sourced.

KNOB=/sys/devices/system/cpu/hotplug/brake_ms
ktap_n=0
ktap_failed=0

ktap_plan() {
	echo "KTAP version 1"
	echo "1..$1"
}

ok() {
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $*"
}

not_ok() {
	ktap_n=$((ktap_n + 1))
	ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_n $*"
}

ktap_done() {
	[ "$ktap_failed" = 0 ]
	exit $?
}

# us_to_ms 1003921 -> 1003.9
us_to_ms() {
	awk -v us="$1" 'BEGIN { printf "%.1f", us / 1000 }'
}

# hp_op CPU online|offline: do it, set OP_RET, OP_ERRNO, OP_US.
hp_op() {
	hp_parse "$(hpop op "$1" "$2")"
}

# hp_parse "KEY=VALUE ...": hpop's line into OP_RET, OP_ERRNO, OP_US,
# OP_KILLED
hp_parse() {
	OP_RET=""; OP_ERRNO=""; OP_US=""; OP_KILLED=""
	for kv in $1; do
		case "$kv" in
		ret=*) OP_RET=${kv#ret=} ;;
		errno=*) OP_ERRNO=${kv#errno=} ;;
		latency_us=*) OP_US=${kv#latency_us=} ;;
		killed=*) OP_KILLED=${kv#killed=} ;;
		esac
	done
	# no latency (hpop died, or printed something else): -1, which every
	# window, bound and comparison of the scenarios fails
	case "$OP_US" in
	''|*[!0-9]*) echo "# hpop gave no latency: '$1'"; OP_US=-1 ;;
	esac
}

# cpu_state CPU: 1 or 0, as both the CPU's online file and the kernel's
# online mask say; if they disagree, both ("file 1, mask 0": a request
# that failed after the operation had been done)
cpu_state() {
	f=$(cat "/sys/devices/system/cpu/cpu$1/online")
	m=$(awk -v c="$1" 'BEGIN { FS = "," } {
		for (i = 1; i <= NF; i++) {
			n = split($i, r, "-"); lo = r[1]; hi = n > 1 ? r[2] : r[1]
			if (c + 0 >= lo + 0 && c + 0 <= hi + 0) { print 1; exit }
		}
		print 0 }' /sys/devices/system/cpu/online)
	if [ "$f" = "$m" ]; then
		echo "$f"
	else
		echo "file $f, mask $m"
	fi
}

# remeasure WHY: say that a measurement is taken again, and count it.
# The runner prints the count in its summary line and fails a scenario
# that measured more than one of its ops again.
REMEASURED=0
remeasure() {
	REMEASURED=$((REMEASURED + 1))
	echo "# re-measured: $*"
}

# check_op CPU OP LO_MS HI_MS: one timed operation whose latency must lie
# in [LO_MS, HI_MS) and that must leave the CPU in the asked state.
# Noise only ever adds time: an op over HI_MS (a vCPU the host preempts
# stalls the op) is undone, the undo checked, and measured once more,
# counted by remeasure; one under LO_MS, the sign of a short or missing
# brake, never is.
check_op() {
	cpu=$1 op=$2 lo=$3 hi=$4
	want=1 back=offline
	[ "$op" = offline ] && want=0 back=online
	hp_op "$cpu" "$op"
	if [ "$OP_RET" = 0 ] && [ "$(cpu_state "$cpu")" = "$want" ] &&
	   [ "$OP_US" -ge $((hi * 1000)) ]; then
		first=$(us_to_ms "$OP_US")
		hp_op "$cpu" "$back"
		if [ "$OP_RET" != 0 ] || [ "$(cpu_state "$cpu")" = "$want" ]; then
			not_ok "$op cpu$cpu took $first ms, over $hi ms, and undoing it failed ($OP_ERRNO, online reads $(cpu_state "$cpu"))"
			return
		fi
		remeasure "$op cpu$cpu took $first ms, over $hi ms"
		hp_op "$cpu" "$op"
	fi
	ms=$(us_to_ms "$OP_US")
	if [ "$OP_RET" != 0 ]; then
		not_ok "$op cpu$cpu failed with $OP_ERRNO after $ms ms"
	elif [ "$(cpu_state "$cpu")" != "$want" ]; then
		not_ok "$op cpu$cpu returned 0 but online reads $(cpu_state "$cpu")"
	elif [ "$OP_US" -lt $((lo * 1000)) ] || [ "$OP_US" -ge $((hi * 1000)) ]; then
		not_ok "$op cpu$cpu took $ms ms, expected [$lo, $hi) ms"
	else
		ok "$op cpu$cpu $ms ms in [$lo, $hi) ms"
	fi
}

# check_eq DESC GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1: got '$2', expected '$3'"
	fi
}

# hplat_start OUT ARGS...: run hplat in the background, wait until it has
# attached (its first JSON line or its "Tracing" banner; up to 60 s: a
# guest beside a busy one takes several to load the BPF object).
hplat_start() {
	out=$1
	shift
	# an old file would pass for this run's "attached" line
	rm -f "$out" "$out.err"
	hplat "$@" > "$out" 2> "$out.err" &
	HPLAT_PID=$!
	i=0
	while [ $i -lt 600 ]; do
		if grep -q '"attached"\|^TIME' "$out" 2>/dev/null ||
		   grep -q '^Tracing' "$out.err" 2>/dev/null; then
			return 0
		fi
		kill -0 "$HPLAT_PID" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	echo "# hplat did not attach:"
	sed 's/^/# /' "$out.err" | tail -n 5
	return 1
}

# hplat_stop: SIGINT, then wait for the final summary.
hplat_stop() {
	kill -INT "$HPLAT_PID" 2>/dev/null
	wait "$HPLAT_PID"
	HPLAT_RC=$?
	sed -n 's/.*"attach_ms": \([0-9.]*\).*/\1/p' "$out" | head -n 1 |
		tr '\n' ' ' >> /tmp/attach_ms
}

# op_figs FILE OP: "count errors min_us mean_us p50_us p99_us max_us" of
# OP from hplat's last JSON summary in FILE.
op_figs() {
	grep '"event": "summary"' "$1" | tail -n 1 | sed -n "s/.*\"$2\": {\"count\": \([0-9]*\), \"errors\": \([0-9]*\), \"errors_by_errno\": {[^}]*}, \"min_us\": \([0-9.]*\), \"mean_us\": \([0-9.]*\), \"p50_us\": \([0-9.]*\), \"p90_us\": [0-9.]*, \"p99_us\": \([0-9.]*\), \"max_us\": \([0-9.]*\).*/\1 \2 \3 \4 \5 \6 \7/p"
}

# all_online: every present CPU is online
all_online() {
	[ "$(cat /sys/devices/system/cpu/online)" = "$(cat /sys/devices/system/cpu/present)" ]
}

# hpload_ops HPLOAD_JSON: hpload's offline and online ops and its restores
# into l_off, l_on and l_back (empty when missing); true when it did an
# offline, and an online or a restore (nothing is no match for anything:
# "0 0" = "0 0"; a run whose writers ended in their first offlines, a
# long brake, brings its CPUs back by restores alone)
hpload_ops() {
	l_off=$(sed -n 's/.*"offline": {"ops": \([0-9]*\).*/\1/p' "$1")
	l_on=$(sed -n 's/.*"online": {"ops": \([0-9]*\).*/\1/p' "$1")
	l_back=$(sed -n 's/.*"restored_cpus": \([0-9]*\).*/\1/p' "$1")
	[ "${l_off:-0}" -ge 1 ] && [ $((${l_on:-0} + ${l_back:-0})) -ge 1 ]
}

# check_load DESC HPLOAD_JSON HPLAT_JSON: hpload's successful ops equal
# hplat's, per op type (offline online). hplat counts failed ops too, so
# its count less its errors; the CPUs hpload brings back online at the
# end are online ops hplat sees too. hpload must have done both kinds,
# and hplat must have printed its summary.
check_load() {
	desc=$1 hplat_json=$3
	hpload_ops "$2"
	did_both=$?
	set -- $(op_figs "$hplat_json" offline)
	k_off=${1:-0} k_off_err=${2:-0}
	set -- $(op_figs "$hplat_json" online)
	k_on=${1:-0} k_on_err=${2:-0}
	if [ "$did_both" != 0 ]; then
		not_ok "$desc: hpload did ${l_off:-no} offline and ${l_on:-no} online ops, ${l_back:-no} restores"
		return
	fi
	# no summary is no count of 0: an hplat that died is its own failure
	if [ -z "$(op_figs "$hplat_json" offline)" ] || [ -z "$(op_figs "$hplat_json" online)" ]; then
		not_ok "$desc: no hplat summary with both op types in $hplat_json"
		return
	fi
	check_eq "$desc" "$l_off $((l_on + ${l_back:-0}))" \
		"$((k_off - k_off_err)) $((k_on - k_on_err))"
}

# jtop FILE KEY: a top-level number of hplat's last JSON summary.
jtop() {
	grep '"event": "summary"' "$1" | tail -n 1 | sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p"
}

# us_stats FILE: "n min p50 max" of the latencies (us) in FILE, one a line;
# p50 is the nearest rank, as hplat's.
us_stats() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (!NR) { print "0 0 0 0"; exit }
		r = int((NR + 1) / 2)
		print NR, v[1], v[r], v[NR] }'
}

T=/sys/kernel/tracing

# trace_on EVENT...: empty the trace buffer and record these cpuhp events
# (cpuhp_brake, cpuhp_enter, ...) and nothing else
trace_on() {
	echo 0 > $T/tracing_on
	echo 0 > $T/events/enable
	: > $T/trace
	for ev in "$@"; do
		echo 1 > "$T/events/cpuhp/$ev/enable" || return 1
	done
	echo 1 > $T/tracing_on
}

trace_off() {
	echo 0 > $T/tracing_on
	echo 0 > $T/events/enable
}

# brake_events: "cpu online brake_ms slept_ns ret", one line per
# cpuhp_brake record in the trace buffer
brake_events() {
	sed -n 's/.*cpuhp_brake: cpu: 0*\([0-9][0-9]*\) online: \([01]\) brake_ms: \([0-9]*\) slept_ns: \([0-9]*\) ret: \(-\{0,1\}[0-9]*\).*/\1 \2 \3 \4 \5/p' $T/trace
}

# p99_ms FILE: the nearest-rank p99 of the latencies (us) in FILE, in ms
p99_ms() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (!NR) { print "none"; exit }
		r = int((NR * 99 + 99) / 100); printf "%.1f", v[r] / 1000 }'
}

# unbraked_p99 OP: the p99 (ms) of an unbraked OP (offline|online) on
# cpu1..3 by one writer, in a QEMU/TCG guest of this kernel (4 vCPUs on
# one host thread) with another guest beside it on the 2-core host, as
# make check runs them: the 30 pairs brake.sh measures at the start of
# each suite of make check itself (a window measured in calmer
# conditions than the test's own fails on noise alone), their maxima
# rounded up to the ms. x86, on QEMU's microvm (since aea3178): six runs
# of 2026-12-06 gave offline 31.0-63.4 ms and online 4.3-44.3 over both
# trees (not told apart then), five of 2026-12-07 (four suites a tree
# each, but for one phase of one run that a review's load beside it
# spoiled: 6.12 offline 166.2 ms) 6.1 38.9-55.1 / 13.5-40.0 and 6.12 37.5-52.1 /
# 5.8-26.0: both trees take 64 / 45, the maxima over both. On QEMU's pc
# machine with ACPI (2026-12-03, 29 suites) they were 82.7 / 80.9 (6.1)
# and 73.2 / 49.0 (6.12), which the windows used until 2026-12-07.
# The 6.1 debug kernel (lockdep: /proc/lockdep exists) runs beside
# CPU-bound guests (make check's phase B), and its braked ops take
# longer than its unbraked ones: unbraked, two runs of 150 pairs at
# cpuhp_brake_ms=0 beside a 6.12 vanilla guest doing the same, 65.5-70.1
# and 54.8-69.7; braked at 1000 ms, each op's time less its brake (suite
# "calibrate-debug", 30 pairs, the first half beside that guest), 183.1
# and 115.8 ms, which it uses. The arm64 6.1 guest (QEMU virt, TCG):
# the 30 pairs of brake.sh in its suites of tests/run went to 68.6 /
# 29.8 (four suites, 2026-12-03), online 57.9 in its vanilla suite
# (phase B, 2026-12-06), and 44.3-87.5 / 10.0-59.0 in the 15 suites of
# five runs of 2026-12-07 (offline 87.5 in a braked suite, 83.9 in the
# vanilla one the same run), over the 69 / 42 used until then: 88 / 59.
# Nothing for a kernel not measured: the caller says so.
unbraked_p99() {
	lockdep=""
	[ -e /proc/lockdep ] && lockdep=" lockdep"
	case "$(uname -m) $(uname -r | cut -d. -f1,2)$lockdep $1" in
	"x86_64 6.1 offline") echo 64 ;;
	"x86_64 6.1 online") echo 45 ;;
	"x86_64 6.1 lockdep offline") echo 184 ;;
	"x86_64 6.1 lockdep online") echo 116 ;;
	"x86_64 6.12 offline") echo 64 ;;
	"x86_64 6.12 online") echo 45 ;;
	"aarch64 6.1 offline") echo 88 ;;
	"aarch64 6.1 online") echo 59 ;;
	esac
}

# op_hi BRAKE_MS OP: the upper end of an op's window, brake + unbraked
# p99 + 20 ms (the op itself and the write around it)
op_hi() {
	p=$(unbraked_p99 "$2")
	[ -n "$p" ] || { echo "# no unbraked p99 for $(uname -m) $(uname -r) $2" >&2; echo 0; return; }
	echo $(($1 + p + 20))
}
