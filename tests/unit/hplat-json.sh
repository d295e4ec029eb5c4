#!/bin/bash
# hplat's JSON, parsed back by python3's json module: the sample summaries
# of "test_hplat_report json" (ms with the brake event; -u without it; the
# first again without it; an error object), and "test_hplat_report
# strings": hplat_json_string() of many byte strings, each decoded by
# python and compared with an oracle that decodes the same bytes with
# python's strict UTF-8 codec, one U+FFFD per byte it rejects. KTAP output.
set -u
bin=${1:?usage: tests/unit/hplat-json.sh PATH/TO/test_hplat_report}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (their exit status is a check too: a sanitizer's report exits 1)
"$bin" json > "$tmp/json" 2> "$tmp/json.err"
rc_json=$?
"$bin" strings > "$tmp/strings" 2> "$tmp/strings.err"
rc_strings=$?
python3 - "$tmp/json" "$tmp/strings" "$rc_json" "$rc_strings" "$tmp/json.err" "$tmp/strings.err" <<'EOF'
import json, re, sys

tests = []
def t(name, cond):
    tests.append((name, bool(cond)))

for what, rc, err in (("json", sys.argv[3], sys.argv[5]),
                      ("strings", sys.argv[4], sys.argv[6])):
    lines = [l for l in open(err, "rb").read().decode("utf-8", "replace").split("\n")
             if l.strip() and not l.startswith("====")]
    first = next((l for l in lines if re.search("ERROR|SUMMARY|runtime error", l)),
                 lines[0] if lines else "")
    t("test_hplat_report %s: exit %s%s" % (what, rc, ", " + first if first else ""),
      rc == "0" and not first)

def lines_of(path, what):
    raw = open(path, "rb").read()
    try:
        text = raw.decode("utf-8")
        t("%s: the output is strict UTF-8 (%d bytes)" % (what, len(raw)), True)
    except UnicodeDecodeError as e:
        text = raw.decode("utf-8", "replace")
        t("%s: the output is strict UTF-8: %s" % (what, e), False)
    # one object per "\n": str.splitlines() would also split at the raw
    # U+0085 and U+2028 that valid UTF-8 strings may hold
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    try:
        objs = [json.loads(l) for l in lines]
        t("%s: every line is one JSON object (%d lines)" % (what, len(lines)),
          lines and all(isinstance(o, dict) for o in objs))
    except ValueError as e:
        objs = []
        t("%s: every line is one JSON object: %s" % (what, e), False)
    return objs

objs = lines_of(sys.argv[1], "summaries")
s1, s2, s3, err = (objs + [{}] * 4)[:4]
off, on = s1.get("offline", {}), s1.get("online", {})
on2 = s2.get("online", {})
iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

t("summaries start with \"event\": \"summary\" and an ISO 8601 UTC ts",
  all(list(s)[:2] == ["event", "ts"] and s["event"] == "summary" and
      iso.match(s["ts"]) for s in (s1, s2, s3)))
t("top-level keys with unit suffixes",
  all(k in s1 for k in ("ops_per_s", "ceiling_ops_per_s", "max_in_flight",
                        "mean_in_flight", "lock_restarts", "lock_wait_ms",
                        "lock_waits", "dropped_events", "missed_starts",
                        "start_drops", "filtered", "attach_mode",
                        "interval_s", "kprobe_misses", "bpf_misses",
                        "brake_event")))
t("offline count 2, errors 1, EAGAIN 1",
  (off.get("count"), off.get("errors"), off.get("errors_by_errno")) == (2, 1, {"EAGAIN": 1}))
fig = ("min_us", "p50_us", "p90_us", "p99_us", "max_us")
t("percentiles in us, min <= p50 <= p90 <= p99 <= max",
  all(all(k in o for k in fig + ("mean_us",)) and
      [o[k] for k in fig] == sorted(o[k] for k in fig)
      for o in (off, on, on2)))
t("log2 buckets are {min,max,count}, in ms by default: log2_hist_ms",
  "log2_hist_us" not in off and off.get("log2_hist_ms") and
  all(set(b) == {"min", "max", "count"} for b in off["log2_hist_ms"]) and
  off["log2_hist_ms"] == [{"min": 256, "max": 511, "count": 2}])
t("log2 buckets in us with -u: log2_hist_us",
  "log2_hist_ms" not in on2 and on2.get("log2_hist_us") and
  all(set(b) == {"min", "max", "count"} for b in on2["log2_hist_us"]))
t("linear buckets in ms: 260..270 and 270..280 hold 1 each",
  off.get("linear_hist_ms") == [{"min": 260, "max": 270, "count": 1},
                                {"min": 270, "max": 280, "count": 1}])
t("per_cpu keyed by cpu", off.get("per_cpu", {}).get("1", {}).get("count") == 2)
steps = off.get("steps", [])
t("step names escaped and read back",
  [x.get("name") for x in steps] ==
  ["threads:prepare", "cpu:bringup", "sched:starting", "x86/apic \"x\"\t\\"])
t("steps are {state,name,depth,count,incl_us,excl_us,max_us}, nested depths 0 0 1 2",
  steps and all(set(x) == {"state", "name", "depth", "count", "incl_us",
                           "excl_us", "max_us"} for x in steps) and
  [(x["state"], x["depth"]) for x in steps] == [(3, 0), (40, 0), (90, 1), (95, 2)])
t("steps: excl <= incl, and incl of a parent holds its child",
  steps and all(x["excl_us"] <= x["incl_us"] for x in steps) and
  steps[1]["incl_us"] - steps[1]["excl_us"] == steps[2]["incl_us"] and
  steps[2]["incl_us"] - steps[2]["excl_us"] == steps[3]["incl_us"])
t("in_steps_us (sum of outermost incl) + outside_steps_us = own_total_us "
  "= own_mean_us * count, step_overflows 2",
  off.get("in_steps_us") == sum(x["incl_us"] for x in steps if x["depth"] == 0) and
  off.get("in_steps_us", 0) + off.get("outside_steps_us", 0) == off.get("own_total_us") and
  off.get("own_total_us") == off.get("own_mean_us", 0) * off.get("count", 0) and
  off.get("step_overflows") == 2)
t("with the brake event: brake_count 2, brake_min/mean/p50/max_us 250000",
  {k: v for k, v in off.items() if k.startswith("brake_")} ==
  {"brake_count": 2, "brake_min_us": 250000.0, "brake_mean_us": 250000.0,
   "brake_p50_us": 250000.0, "brake_max_us": 250000.0} and
  on.get("brake_count") == 0)
t("with the brake event: own_min/mean/p50/max_us, min <= p50 <= max",
  {k for k in off if k.startswith("own_")} ==
  {"own_min_us", "own_mean_us", "own_p50_us", "own_max_us", "own_total_us"} and
  off["own_min_us"] <= off["own_p50_us"] <= off["own_max_us"] and
  off["own_max_us"] == off["max_us"] - off["brake_max_us"])
t("without the brake event: no brake_ or own_ figures (own_total_us of -S stays)",
  s1.get("brake_event") is True and s2.get("brake_event") is False and
  s3.get("brake_event") is False and
  all(not k.startswith("brake_") and (not k.startswith("own_") or k == "own_total_us")
      for s in (s2, s3) for op in ("online", "offline") for k in s.get(op, {})))
t("error slots: EAGAIN, EHWPOISON (133), ERESTARTNOINTR (513), other (600)",
  on2.get("errors_by_errno") == {"EAGAIN": 1, "EHWPOISON": 1,
                                 "ERESTARTNOINTR": 1, "other": 1} and
  on2.get("errors") == 4)
lg, ln = on2.get("log2_hist_us", []), on2.get("linear_hist_ms", [])
t("the last log2 bucket is open: {min 67108864, max null}, no other one",
  lg and lg[-1] == {"min": 67108864, "max": None, "count": 1} and
  all(isinstance(b["max"], int) and b["max"] >= b["min"] for b in lg[:-1]))
t("the last linear bucket is open: {min 2550, max null}, no other one",
  ln and ln[-1] == {"min": 2550, "max": None, "count": 2} and
  all(isinstance(b["max"], int) and b["max"] > b["min"] for b in ln[:-1]))
t("ops_per_s 3 ops / 12.5 s", abs(s1.get("ops_per_s", 0) - 0.24) < 1e-3)
t("kprobe_misses null when unknown, else a count",
  "kprobe_misses" in s1 and s1["kprobe_misses"] is None and
  s2.get("kprobe_misses") == 4 and s2.get("bpf_misses") == 5)
t("error object with control characters escaped, a bad byte as U+FFFD",
  err == {"error": "bad \"thing\"\n\x01 \ufffd"})

def oracle(b):
    """One code point per valid UTF-8 sequence, U+FFFD per other byte."""
    out, i = [], 0
    while i < len(b):
        for n in (1, 2, 3, 4):
            try:
                ch = b[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(ch) == 1:
                out.append(ch)
                i += n
                break
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)

strs = lines_of(sys.argv[2], "strings")
def differs(o):
    try:
        return oracle(bytes.fromhex(o["hex"])) != o["s"]
    except (KeyError, TypeError, ValueError):
        return True
bad = [o for o in strs if differs(o)]
t("strings: %d byte strings decode to their UTF-8 with one U+FFFD per bad "
  "byte (%d differ%s)" % (len(strs), len(bad), ": first %s -> %r" %
                          (bad[0].get("hex"), bad[0].get("s")) if bad else ""),
  strs and not bad)
nosur = True
for o in strs:
    try:
        o.get("s", "").encode("utf-8")
    except UnicodeEncodeError:
        nosur = False
t("strings: no lone surrogate after decoding", strs and nosur)

print("KTAP version 1")
print("1..%d" % len(tests))
for i, (name, good) in enumerate(tests, 1):
    print("%sok %d %s" % ("" if good else "not ", i, name))
sys.exit(0 if all(g for _, g in tests) else 1)
EOF
