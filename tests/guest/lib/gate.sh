# The gate's verdicts from hplat's and hpload's JSON (sourced after
# ktap.sh; busybox sh in the guest, bash or dash on the host, where
# tests/gate-judge.sh feeds it figures changed on purpose). A figure that
# is missing fails its check: nothing is compared as an empty string.
# tests/run and tests/gate-judge.sh source it too, on the host, for
# GATE_FAILS_*: keep its top level to assignments and functions.

GATE_CHECKS=7

# The failure lines that make check's must-fail cases look for
# (tests/gate-must-fail.sh CHECKS: how each line starts after "not ok N ",
# basic regular expressions, "|" between them): the failures themselves,
# never the line of a missing figure. A kernel without the brake told to
# expect one fails checks 1, 3 and 5; a braked kernel told to expect a
# shorter brake, 2 and 3.
GATE_FAILS_UNBRAKED='every latency >= brake: min|brake precision: the kernel has no|kernel-side ops/s [0-9]'
GATE_FAILS_SHORT='p99 offline|brakes (cpuhp_brake) outside'

# gate_figs HPLAT_JSON HPLOAD_JSON: the figures the judge reads, as
# shell assignments, from one awk instead of some sixty greps, seds and
# subshells (on the host, 2026-12-07: 0.54 s a verdict before, 0.17 s
# after; tests/gate-judge.sh 35.2 s before, 14.9 s after).
# From hplat's last summary line: each op type's count, errors, min and
# p99, read as op_figs reads them (all or none: the op's figures in
# their order), its brake_count, brake_min_us, brake_mean_us and
# brake_max_us from its own object, the top-level ops_per_s and
# max_in_flight, and whether it has the cpuhp_brake event; from hpload's
# JSON, how many errno maps it has and how many of them are not empty,
# and its restore_failed_cpus. Where a key occurs more than once, the
# last one counts (as sed's greedy match took it). A figure that is not
# a number (digits, at most one dot, at least one digit) is empty. The
# paths go through the environment: awk -v would read their backslashes
# as escapes.
gate_figs() {
	GATE_HJ=$1 GATE_LJ=$2 awk '
	function num(s) {
		return (s ~ /[0-9]/ && s !~ /[^0-9.]/ && s !~ /[.].*[.]/) ? s : ""
	}
	# the value of the last "KEY": in S, VRE its characters
	function last(s, key, vre,  v, t) {
		v = ""
		while (match(s, "\"" key "\": " vre)) {
			t = substr(s, RSTART, RLENGTH)
			sub(/^[^:]*: /, "", t)
			v = t
			s = substr(s, RSTART + RLENGTH)
		}
		return v
	}
	# the last occurrence of RE in S, from its start to the end of S
	function from_last(s, re,  r) {
		r = ""
		while (match(s, re)) {
			r = substr(s, RSTART)
			s = substr(s, RSTART + RLENGTH)
		}
		return r
	}
	function op(o, pre,  s, f, part) {
		f = "^\"" o "\": [{]\"count\": [0-9]*, \"errors\": [0-9]*, \"errors_by_errno\": [{][^}]*[}], \"min_us\": [0-9.]*, \"mean_us\": [0-9.]*, \"p50_us\": [0-9.]*, \"p90_us\": [0-9.]*, \"p99_us\": [0-9.]*, \"max_us\": [0-9.]*"
		s = from_last(sum, "\"" o "\": [{]\"count\": ")
		if (match(s, f)) {
			# the errno map out first: a key in it is no figure
			s = substr(s, 1, RLENGTH)
			sub(/"errors_by_errno": [{][^}]*[}]/, "", s)
			print pre "_n=" num(last(s, "count", "[0-9]*"))
			print pre "_err=" num(last(s, "errors", "[0-9]*"))
			print pre "_min=" num(last(s, "min_us", "[0-9.]*"))
			print pre "_p99=" num(last(s, "p99_us", "[0-9.]*"))
		} else {
			print pre "_n=" ; print pre "_err=" ; print pre "_min=" ; print pre "_p99="
		}
		# the brake figures: the object of this op type, up to its
		# histogram or, should that be missing, the other op type
		part = from_last(sum, "\"" o "\": [{]")
		if (part != "") {
			part = substr(part, length(o) + 6)
			if (match(part, /"log2_hist_|"(online|offline)": [{]/))
				part = substr(part, 1, RSTART - 1)
		}
		print pre "_bn=" num(last(part, "brake_count", "[0-9]*"))
		print pre "_blo=" num(last(part, "brake_min_us", "[0-9.]*"))
		print pre "_bmean=" num(last(part, "brake_mean_us", "[0-9.]*"))
		print pre "_bhi=" num(last(part, "brake_max_us", "[0-9.]*"))
	}
	BEGIN {
		hj = ENVIRON["GATE_HJ"]
		lj = ENVIRON["GATE_LJ"]
		# getline: a file that cannot be read is one without lines
		while ((getline line < hj) > 0) {
			if (line ~ /"event": "summary"/)
				sum = line
			if (index(line, "\"brake_event\": true"))
				bev = 1
		}
		while ((getline line < lj) > 0) {
			s = line
			while (match(s, /"errors_by_errno": [{][^}]*[}]/)) {
				maps++
				if (substr(s, RSTART, RLENGTH) !~ /[{][}]$/)
					errs++
				s = substr(s, RSTART + RLENGTH)
			}
			if (match(line, /"restore_failed_cpus": [0-9]*/)) {
				rf_lines++
				rf = last(line, "restore_failed_cpus", "[0-9]*")
			}
		}
		op("offline", "off")
		op("online", "on")
		print "ops_s=" num(last(sum, "ops_per_s", "[0-9.]*"))
		print "inflight=" num(last(sum, "max_in_flight", "[0-9.]*"))
		print "brake_ev=" bev
		print "l_maps=" maps + 0
		print "l_err=" errs + 0
		# one value per line of the file, as sed printed them: two
		# lines with the key are no number
		print "l_rf=" (rf_lines == 1 ? num(rf) : "")
	}'
}

# gate_judge EXPECT_MS HPLAT_JSON HPLOAD_JSON HI_OFF_MS HI_ON_MS: seven KTAP
# lines, numbered on from ktap_n. HI_*: the highest p99 of each op type.
gate_judge() {
	expect=$1 hj=$2 lj=$3 hi_off=$4 hi_on=$5
	# none of a previous verdict's figures, should awk fail
	off_n= off_err= off_min= off_p99= off_bn= off_blo= off_bmean= off_bhi=
	on_n= on_err= on_min= on_p99= on_bn= on_blo= on_bmean= on_bhi=
	ops_s= inflight= brake_ev= l_maps= l_err= l_rf=
	eval "$(gate_figs "$hj" "$lj")"

	# 1. every latency >= the brake, over the op types that had ops
	if [ -z "$off_n" ] || [ -z "$on_n" ] || [ $((off_n + on_n)) = 0 ]; then
		not_ok "every latency >= brake: no op counts from hplat (offline '$off_n', online '$on_n')"
	elif [ "$expect" = 0 ]; then
		ok "every latency >= brake # SKIP no brake expected"
	elif { [ "$off_n" -gt 0 ] && [ -z "$off_min" ]; } ||
	     { [ "$on_n" -gt 0 ] && [ -z "$on_min" ]; }; then
		not_ok "every latency >= brake: a minimum is missing (offline '$off_min', online '$on_min')"
	else
		min=$(awk -v a="$off_min" -v b="$on_min" -v n="$off_n" -v m="$on_n" 'BEGIN {
			if (!n) a = b; if (!m) b = a; print (a < b ? a : b) }')
		if awk -v m="$min" -v e="$expect" 'BEGIN { exit !(m >= e * 1000) }'; then
			ok "every latency >= brake: min $(us_to_ms "${min%.*}") ms >= $expect ms"
		else
			not_ok "every latency >= brake: min $(us_to_ms "${min%.*}") ms < $expect ms"
		fi
	fi

	# 2. p99 of each op type within the brake + the unbraked p99 + 20 ms
	if [ -z "$off_p99" ] || [ -z "$on_p99" ]; then
		not_ok "p99 bound: a p99 is missing (offline '$off_p99', online '$on_p99')"
	elif awk -v a="$off_p99" -v b="$on_p99" -v x="$hi_off" -v y="$hi_on" 'BEGIN {
		exit !(a <= x * 1000 && b <= y * 1000) }'; then
		ok "p99 offline $(us_to_ms "${off_p99%.*}") ms <= $hi_off ms, online $(us_to_ms "${on_p99%.*}") ms <= $hi_on ms"
	else
		not_ok "p99 offline $(us_to_ms "${off_p99%.*}") ms (bound $hi_off), online $(us_to_ms "${on_p99%.*}") ms (bound $hi_on): over"
	fi

	# 3. the brake itself, from the kernel's cpuhp_brake event: never
	# short, none over 20 ms, and the brakes but the longest 2 ms over at
	# most on average. The gate runs under load (writers spinning on the
	# hotplug lock, hplat): there a late wakeup of the vCPU has been
	# measured at 8.8 ms (CI run, 2026-12-03; 0.4-2.9 ms in local runs)
	# and at 11.7 ms (arm64, make check of 2026-12-05: one of 6 online
	# brakes, the other five 0.5 ms over on average), so the bound on the
	# longest brake is the 20 ms noise allowance the op bound (check 2)
	# uses too, and with 3 brakes or more that one brake, late only
	# upwards, is left out of the mean: (mean * n - max) / (n - 1), exact
	# from hplat's exact mean and max (the gate makes 6-7 a direction).
	# The [brake, brake + 5 ms] goal is precision.sh's, on a quiet lane,
	# where one late op may be measured again. The mean overshoot of all
	# brakes was 0.1-0.7 ms in the gate runs of make check; a brake that
	# sleeps in jiffies (overshoot up to a 32 ms wheel granule, 16 ms on
	# average) or with a few ms of slack fails it. What passes beside the
	# longest: the others' overshoots may add up to 2 ms each, so of 6
	# brakes, 4 at 0.5 ms, a second one up to 8 ms late.
	if [ -n "$brake_ev" ]; then
		bok=1 bmiss="" bfig=""
		for op in offline online; do
			# this op's object only (gate_figs): up to its histogram
			if [ $op = offline ]; then
				n=$off_bn lo=$off_blo med=$off_bmean hi=$off_bhi
			else
				n=$on_bn lo=$on_blo med=$on_bmean hi=$on_bhi
			fi
			bfig="$bfig $op ${n:-?} braked, min ${lo:-?} mean ${med:-?} max ${hi:-?} us;"
			[ -n "$n" ] || { bok=0 bmiss=1; continue; }
			if [ "$expect" = 0 ]; then
				[ "$n" = 0 ] || bok=0
			elif [ -z "$lo" ] || [ -z "$med" ] || [ -z "$hi" ]; then
				bok=0 bmiss=1
			elif ! awk -v n="$n" -v a="$lo" -v m="$med" -v b="$hi" -v e="$expect" 'BEGIN {
				t = n >= 3 ? (m * n - b) / (n - 1) : m
				exit !(a >= e * 1000 && t <= e * 1000 + 2000 && b <= e * 1000 + 20000) }'; then
				bok=0
			fi
		done
		if [ "$bok" = 1 ]; then
			ok "every brake in [$expect, $expect + 20] ms, mean of all but the longest <= $expect + 2 ms (cpuhp_brake):$bfig"
		elif [ -n "$bmiss" ]; then
			not_ok "brakes (cpuhp_brake): a figure is missing:$bfig"
		else
			not_ok "brakes (cpuhp_brake) outside [$expect, $expect + 20] ms or mean of all but the longest over $expect + 2 ms:$bfig"
		fi
	elif [ "$expect" = 0 ]; then
		ok "brake precision # SKIP no brake expected, and no cpuhp_brake event"
	else
		not_ok "brake precision: the kernel has no cpuhp_brake event to check it with"
	fi

	# 4. the device hotplug lock serialises the operations
	check_eq "max_in_flight is 1" "${inflight:-missing}" 1

	# 5. kernel-side throughput <= 1000 / brake, with no allowance: hplat
	# counts only the ops whose entry it saw (its entry programs attach
	# last, just before its interval starts) and that ended before it
	# took the counters (just after the interval ends), so the counted
	# ops lie within the interval but for the few us at either end. Held
	# one at a time (check 4) and each at least the brake plus its own
	# work (3 ms and more under TCG), n ops need n * (brake + 3 ms) of
	# the interval: more than 1000 / brake ops/s means ops shorter than
	# the brake, or overlapping ones, that checks 1 and 4 did not see.
	# Gate runs of make check (10 s, 3 writers, 1000 ms): 0.955-0.967.
	if [ -z "$ops_s" ]; then
		not_ok "kernel-side ops/s: missing"
	elif [ "$expect" = 0 ]; then
		ok "ops/s $ops_s <= 1000 / brake # SKIP no brake expected"
	else
		cap=$(awk -v e="$expect" 'BEGIN { printf "%.3f", 1000 / e }')
		if awk -v o="$ops_s" -v c="$cap" 'BEGIN { exit !(o <= c) }'; then
			ok "kernel-side ops/s $ops_s <= $cap"
		else
			not_ok "kernel-side ops/s $ops_s over the cap $cap (1000 / $expect)"
		fi
	fi

	# 6. nothing lost: hpload's successes (+ its restores) are hplat's ops
	check_load "hpload's successful ops equal hplat's (offline online)" "$lj" "$hj"

	# 7. nothing failed: no op with an error, as hplat and hpload saw
	# them, and every CPU hpload took offline brought back (a kernel
	# whose ops fail after their brake passes checks 1-6)
	k_err="$off_err $on_err"
	check_eq "no failed op (hplat errors offline online, hpload errno maps with an error of 2, CPUs not restored)" \
		"$k_err $l_err of $l_maps, ${l_rf:-missing}" "0 0 0 of 2, 0"
}
