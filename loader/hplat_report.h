/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hplat's user-space half that needs no BPF: turning the histograms and
 * counters of bpf/hplat.h into figures, text and JSON, and taking a
 * summary's counters from the BPF side without losing any. Unit-tested on
 * the host (tests/unit/test_hplat_report.c).
 */
#ifndef HPLAT_REPORT_H
#define HPLAT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "hplat.h"

struct hplat_figures {
	unsigned long long count;
	double min_us, mean_us, p50_us, p90_us, p99_us, max_us;
};

/* Everything one report prints. */
struct hplat_snapshot {
	double interval_s;
	const char *attach_mode;	/* "fentry" or "kprobe" */
	const char *wall;		/* local time of the summary, HH:MM:SS */
	const char *wall_iso;		/* the same in UTC, ISO 8601 */
	bool per_cpu, linear, steps, usecs, timestamp;
	bool brake_event;		/* the kernel has cpuhp_brake */
	unsigned long long lin_width_us;
	unsigned long long kprobe_misses;	/* since attach; -1ULL: unknown */
	unsigned long long bpf_misses;		/* since attach */
	unsigned long long lost_updates;	/* since attach: see stats_get() */
	struct hplat_stats st;
	const char *state_names[HPLAT_MAX_STATES]; /* NULL: unknown */
};

extern const char *const hplat_op_names[HPLAT_NR_OPS];

/* Value (us) below which pct percent of the fine histogram lies, taken as
 * the middle of its slot and clamped to [min_us, max_us]; 0 if empty.
 */
double hplat_percentile(const unsigned long long *fine, unsigned long long count,
			double pct, double min_us, double max_us);
void hplat_figures(const struct hplat_dist *d, struct hplat_figures *f);

/* The summed latencies of the operations that ended in the interval,
 * divided by its length: the time-weighted mean number of operations in
 * flight (Little's law) when no operation straddles the interval's ends;
 * an operation is counted wholly in the interval it ends in.
 */
double hplat_mean_in_flight(const struct hplat_snapshot *s);
double hplat_ops_per_s(const struct hplat_snapshot *s);
double hplat_ceiling_ops_per_s(const struct hplat_snapshot *s);

/*
 * Take one summary's counters: clear the other generation, flip *gen so
 * that the BPF side adds to it, wait until no program still works on the
 * old one (busy[old] back to 0), copy it to out and clear it. The new
 * generation's max_in_flight starts at in_flight. Returns 0, or -1 if a
 * generation did not drain within timeout_us (CLOCK_MONOTONIC): out is
 * then the copy, possibly incomplete, and the old generation is left as
 * it is, to be cleared by the next take once it has drained.
 */
int hplat_stats_take(struct hplat_stats gens[2], unsigned int *gen,
		     long long busy[2], const long long *in_flight,
		     struct hplat_stats *out, long timeout_us);

/* The label of an error slot: "EAGAIN", "ERESTARTNOINTR", "140", "other". */
const char *hplat_errno_label(unsigned int slot, char *buf, size_t len);
/* Name of a positive errno value, kernel-internal ones included; NULL if
 * it has none.
 */
const char *hplat_errno_name(int err);

void hplat_print_log2_hist(FILE *out, const unsigned long long *vals,
			   int nr, const char *unit);
void hplat_print_lin_hist(FILE *out, const unsigned long long *vals, int nr,
			  unsigned long long width_us);
void hplat_print_text(FILE *out, const struct hplat_snapshot *s);
void hplat_print_json(FILE *out, const struct hplat_snapshot *s);
/* The members of an errors_by_errno object from error slots:
 * "EAGAIN": 1, "140": 2, "other": 1
 */
void hplat_json_errnos(FILE *out, const unsigned long long *slots, int nr);
/* {"error": "..."} with the message escaped. */
void hplat_print_json_error(FILE *out, const char *msg);
/* A JSON string: control characters escaped, and every byte that is not
 * part of valid UTF-8 written as U+FFFD, so any comm gives valid JSON.
 */
void hplat_json_string(FILE *out, const char *s);

#endif /* HPLAT_REPORT_H */
