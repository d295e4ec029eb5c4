#!/bin/bash
# hplat's JSON, parsed back by python3's json module. KTAP output.
set -u
bin=${1:?usage: tests/unit/hplat-json.sh PATH/TO/test_hplat_report}
"$bin" json | python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
tests = []
def t(name, cond):
    tests.append((name, bool(cond)))
try:
    objs = [json.loads(l) for l in lines]
    t("every line is one JSON object (%d lines)" % len(lines), all(isinstance(o, dict) for o in objs))
except ValueError as e:
    objs = []
    t("every line is one JSON object: %s" % e, False)
s = objs[0] if objs else {}
off = s.get("offline", {})
t("top-level keys with unit suffixes", all(k in s for k in ("ops_per_s", "max_in_flight", "lock_restarts", "lock_wait_ms", "dropped_events", "attach_mode", "interval_s")))
t("offline count 2, errors 1, EAGAIN 1", (off.get("count"), off.get("errors"), off.get("errors_by_errno")) == (2, 1, {"EAGAIN": 1}))
t("percentiles in us", all(k in off for k in ("min_us", "mean_us", "p50_us", "p90_us", "p99_us", "max_us")))
t("log2 buckets are {min,max,count}", off.get("log2_hist_us") and all(set(b) == {"min", "max", "count"} for b in off["log2_hist_us"]))
t("linear buckets in ms: 1030..1040 holds 2", {"min": 1030, "max": 1040, "count": 2} in off.get("linear_hist_ms", []))
t("per_cpu keyed by cpu", off.get("per_cpu", {}).get("1", {}).get("count") == 2)
t("step names escaped and read back", [x.get("name") for x in off.get("steps", [])] == ["offline", "sched:active \"x\"\t\\"])
t("ops_per_s 3 ops / 12.5 s", abs(s.get("ops_per_s", 0) - 0.24) < 1e-3)
e = objs[1] if len(objs) > 1 else {}
t("error object with control characters escaped", e == {"error": "bad \"thing\"\n\x01"})
print("KTAP version 1")
print("1..%d" % len(tests))
for i, (name, good) in enumerate(tests, 1):
    print("%sok %d %s" % ("" if good else "not ", i, name))
sys.exit(0 if all(g for _, g in tests) else 1)
'
