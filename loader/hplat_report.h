/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hplat's user-space half that needs no BPF: turning the histograms and
 * counters of bpf/hplat.h into figures, text and JSON. Unit-tested on the
 * host (tests/unit/test_hplat_report.c).
 */
#ifndef HPLAT_REPORT_H
#define HPLAT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "hplat.h"

struct hplat_figures {
	unsigned long long count;
	unsigned long long errors;
	double min_us, mean_us, p50_us, p90_us, p99_us, max_us;
};

/* Everything one report prints, as read from the BPF side. */
struct hplat_snapshot {
	double interval_s;
	const char *attach_mode;	/* "fentry" or "kprobe" */
	bool per_cpu, linear, steps;
	unsigned long long lin_width_us;
	struct hplat_op_stats ops[HPLAT_NR_OPS];
	struct hplat_cpu_stats cpus[HPLAT_NR_OPS][HPLAT_MAX_CPUS];
	struct hplat_state_stats states[HPLAT_NR_OPS][HPLAT_MAX_STATES];
	const char *state_names[HPLAT_MAX_STATES]; /* NULL: unknown */
	unsigned long long max_in_flight;
	unsigned long long lock_restarts;
	unsigned long long lock_wait_ns;
	unsigned long long lock_waits_done;
	unsigned long long dropped_events;
	unsigned long long missed_starts;	/* exits without an entry */
};

extern const char *const hplat_op_names[HPLAT_NR_OPS];

/* Value (us) below which pct percent of the fine histogram lies, taken as
 * the middle of its slot and clamped to [min_us, max_us]; 0 if empty.
 */
double hplat_percentile(const unsigned long long *fine, unsigned long long count,
			double pct, double min_us, double max_us);
void hplat_figures(const struct hplat_op_stats *st, struct hplat_figures *f);

/* Sum of all ops' latencies over the interval: Little's law gives the
 * time-weighted mean number of operations in flight.
 */
double hplat_mean_in_flight(const struct hplat_snapshot *s);
double hplat_ops_per_s(const struct hplat_snapshot *s);
double hplat_ceiling_ops_per_s(const struct hplat_snapshot *s);

void hplat_print_log2_hist(FILE *out, const unsigned long long *vals,
			   int nr, const char *unit);
void hplat_print_lin_hist(FILE *out, const unsigned long long *vals, int nr,
			  unsigned long long width_us);
void hplat_print_text(FILE *out, const struct hplat_snapshot *s);
void hplat_print_json(FILE *out, const struct hplat_snapshot *s);
/* The members of an errors_by_errno object: "EAGAIN": 1, "200": 2 */
void hplat_json_errnos(FILE *out, const unsigned long long *err, int nr);
/* {"error": "..."} with the message escaped. */
void hplat_print_json_error(FILE *out, const char *msg);
void hplat_json_string(FILE *out, const char *s);
const char *hplat_errno_name(int err);

#endif /* HPLAT_REPORT_H */
