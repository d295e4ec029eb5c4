// SPDX-License-Identifier: GPL-2.0
/* hplat: figures, text and JSON from the BPF side's counters. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hplat_report.h"

const char *const hplat_op_names[HPLAT_NR_OPS] = {
	[HPLAT_ONLINE] = "online",
	[HPLAT_OFFLINE] = "offline",
};

double hplat_percentile(const unsigned long long *fine, unsigned long long count,
			double pct, double min_us, double max_us)
{
	unsigned long long rank, seen = 0;
	double v;
	int i;

	if (!count)
		return 0;
	rank = (unsigned long long)ceil(pct / 100.0 * (double)count);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HPLAT_FINE_SLOTS; i++) {
		seen += fine[i];
		if (seen >= rank)
			break;
	}
	if (i == HPLAT_FINE_SLOTS)
		return max_us;
	v = (double)hplat_fine_low(i) + (double)(hplat_fine_width(i) - 1) / 2.0;
	if (v < min_us)
		v = min_us;
	if (v > max_us)
		v = max_us;
	return v;
}

void hplat_figures(const struct hplat_dist *d, struct hplat_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->count = d->count;
	if (!d->count)
		return;
	f->min_us = d->min_ns / 1000.0;
	f->max_us = d->max_ns / 1000.0;
	f->mean_us = d->sum_ns / 1000.0 / d->count;
	f->p50_us = hplat_percentile(d->fine, d->count, 50, f->min_us, f->max_us);
	f->p90_us = hplat_percentile(d->fine, d->count, 90, f->min_us, f->max_us);
	f->p99_us = hplat_percentile(d->fine, d->count, 99, f->min_us, f->max_us);
}

static unsigned long long total_count(const struct hplat_snapshot *s)
{
	unsigned long long n = 0;
	int op;

	for (op = 0; op < HPLAT_NR_OPS; op++)
		n += s->st.ops[op].lat.count;
	return n;
}

static unsigned long long total_ns(const struct hplat_snapshot *s)
{
	unsigned long long ns = 0;
	int op;

	for (op = 0; op < HPLAT_NR_OPS; op++)
		ns += s->st.ops[op].lat.sum_ns;
	return ns;
}

double hplat_mean_in_flight(const struct hplat_snapshot *s)
{
	if (s->interval_s <= 0)
		return 0;
	return total_ns(s) / 1e9 / s->interval_s;
}

double hplat_ops_per_s(const struct hplat_snapshot *s)
{
	return s->interval_s > 0 ? total_count(s) / s->interval_s : 0;
}

double hplat_ceiling_ops_per_s(const struct hplat_snapshot *s)
{
	unsigned long long n = total_count(s), ns = total_ns(s);

	return ns ? n / (ns / 1e9) : 0;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait until no program works on generation g; false at the deadline. */
static bool drained(long long busy[2], unsigned int g, double deadline)
{
	struct timespec tick = { .tv_nsec = 10000 };

	while (__atomic_load_n(&busy[g], __ATOMIC_SEQ_CST)) {
		if (mono_s() >= deadline)
			return false;
		nanosleep(&tick, NULL);
	}
	return true;
}

int hplat_stats_take(struct hplat_stats gens[2], unsigned int *gen,
		     long long busy[2], const long long *in_flight,
		     struct hplat_stats *out, long timeout_us)
{
	double deadline = mono_s() + timeout_us / 1e6;
	unsigned int old = __atomic_load_n(gen, __ATOMIC_SEQ_CST) & 1;
	long long now_in = __atomic_load_n(in_flight, __ATOMIC_SEQ_CST);
	int ret = 0;

	/*
	 * The generation to switch to was cleared when it was taken, unless
	 * that take timed out: clear it now, once nothing works on it.
	 */
	if (!drained(busy, old ^ 1, deadline))
		ret = -1;
	memset(&gens[old ^ 1], 0, sizeof(gens[old ^ 1]));
	gens[old ^ 1].max_in_flight = now_in > 0 ? (unsigned long long)now_in : 0;
	__atomic_store_n(gen, old ^ 1, __ATOMIC_SEQ_CST);
	if (!drained(busy, old, deadline)) {
		/* a program still adds to it: copy, and clear it next time */
		memcpy(out, &gens[old], sizeof(*out));
		return -1;
	}
	memcpy(out, &gens[old], sizeof(*out));
	memset(&gens[old], 0, sizeof(gens[old]));
	return ret;
}

/* The kernel's own codes above the errno range of user space. */
static const char *const kern_errnos[] = {
	[512 - HPLAT_ERRNO_KERN_MIN] = "ERESTARTSYS",
	[513 - HPLAT_ERRNO_KERN_MIN] = "ERESTARTNOINTR",
	[514 - HPLAT_ERRNO_KERN_MIN] = "ERESTARTNOHAND",
	[515 - HPLAT_ERRNO_KERN_MIN] = "ENOIOCTLCMD",
	[516 - HPLAT_ERRNO_KERN_MIN] = "ERESTART_RESTARTBLOCK",
	[517 - HPLAT_ERRNO_KERN_MIN] = "EPROBE_DEFER",
	[518 - HPLAT_ERRNO_KERN_MIN] = "EOPENSTALEDATA",
	[519 - HPLAT_ERRNO_KERN_MIN] = "ENOPARAM",
	[521 - HPLAT_ERRNO_KERN_MIN] = "EBADHANDLE",
	[522 - HPLAT_ERRNO_KERN_MIN] = "ENOTSYNC",
	[523 - HPLAT_ERRNO_KERN_MIN] = "EBADCOOKIE",
	[524 - HPLAT_ERRNO_KERN_MIN] = "ENOTSUPP",
	[525 - HPLAT_ERRNO_KERN_MIN] = "ETOOSMALL",
	[526 - HPLAT_ERRNO_KERN_MIN] = "ESERVERFAULT",
	[527 - HPLAT_ERRNO_KERN_MIN] = "EBADTYPE",
	[528 - HPLAT_ERRNO_KERN_MIN] = "EJUKEBOX",
	[529 - HPLAT_ERRNO_KERN_MIN] = "EIOCBQUEUED",
	[530 - HPLAT_ERRNO_KERN_MIN] = "ERECALLCONFLICT",
	[531 - HPLAT_ERRNO_KERN_MIN] = "ENOGRACE",
};

const char *hplat_errno_name(int err)
{
	if (err >= HPLAT_ERRNO_KERN_MIN && err <= HPLAT_ERRNO_KERN_MAX)
		return kern_errnos[err - HPLAT_ERRNO_KERN_MIN];
	if (err <= 0 || err >= HPLAT_ERRNO_KERN_MIN)
		return NULL;
	return strerrorname_np(err);
}

const char *hplat_errno_label(unsigned int slot, char *buf, size_t len)
{
	int err = hplat_slot_errno(slot);
	const char *name;

	if (err < 0)
		return "other";
	name = hplat_errno_name(err);
	if (name)
		return name;
	snprintf(buf, len, "%d", err);
	return buf;
}

static void stars(FILE *out, unsigned long long val, unsigned long long max,
		  int width)
{
	int n = max ? (int)((double)val / (double)max * width) : 0, i;

	for (i = 0; i < width; i++)
		fputc(i < n ? '*' : ' ', out);
}

/* First and last non-empty slot and the largest count; false if empty. */
static bool hist_range(const unsigned long long *vals, int nr, int *first,
		       int *last, unsigned long long *max)
{
	int i;

	*first = *last = -1;
	*max = 0;
	for (i = 0; i < nr; i++) {
		if (vals[i] > *max)
			*max = vals[i];
		if (vals[i]) {
			if (*first < 0)
				*first = i;
			*last = i;
		}
	}
	return *last >= 0;
}

/* The libbpf-tools print_log2_hist() shape: empty slots at both ends are
 * skipped, bars are 40 stars wide; the last slot is open-ended.
 */
void hplat_print_log2_hist(FILE *out, const unsigned long long *vals, int nr,
			   const char *unit)
{
	unsigned long long max, low, high;
	int i, first, last;

	if (!hist_range(vals, nr, &first, &last, &max))
		return;
	fprintf(out, "%*s%-*s : count    distribution\n", 9, "", 15, unit);
	for (i = first; i <= last; i++) {
		low = i ? 1ULL << i : 0;
		high = (1ULL << (i + 1)) - 1;
		if (i == nr - 1)
			fprintf(out, "%10llu -> %-10s : %-8llu |", low, "...", vals[i]);
		else
			fprintf(out, "%10llu -> %-10llu : %-8llu |", low, high,
				vals[i]);
		stars(out, vals[i], max, 40);
		fprintf(out, "|\n");
	}
}

void hplat_print_lin_hist(FILE *out, const unsigned long long *vals, int nr,
			  unsigned long long width_us)
{
	unsigned long long max;
	int i, first, last;
	double w = width_us / 1000.0;

	if (!hist_range(vals, nr, &first, &last, &max))
		return;
	fprintf(out, "%*s%-*s : count    distribution\n", 9, "", 15, "msecs");
	for (i = first; i <= last; i++) {
		if (i == nr - 1)
			fprintf(out, "%10.0f -> %-10s : %-8llu |",
				i * w, "...", vals[i]);
		else
			fprintf(out, "%10.0f -> %-10.0f : %-8llu |",
				i * w, (i + 1) * w, vals[i]);
		stars(out, vals[i], max, 40);
		fprintf(out, "|\n");
	}
}

static void print_errors(FILE *out, const struct hplat_op_stats *os)
{
	char buf[16];
	int i;

	for (i = 1; i < HPLAT_ERRNO_SLOTS; i++)
		if (os->err[i])
			fprintf(out, " %s:%llu",
				hplat_errno_label(i, buf, sizeof(buf)), os->err[i]);
}

/* The time unit of the text output. */
static double unit_div(const struct hplat_snapshot *s)
{
	return s->usecs ? 1.0 : 1000.0;
}

static const char *unit_name(const struct hplat_snapshot *s)
{
	return s->usecs ? "us" : "ms";
}

static void print_dist_text(FILE *out, const struct hplat_snapshot *s,
			    const char *what, const struct hplat_dist *d)
{
	struct hplat_figures f;
	double u = unit_div(s);

	/* whole microseconds: a 1 s figure in us stays under 80 columns */
	int prec = s->usecs ? 0 : 1;

	hplat_figures(d, &f);
	fprintf(out, "  %s%s: min %.*f mean %.*f p50 %.*f p90 %.*f p99 %.*f "
		"max %.*f\n", what, unit_name(s), prec, f.min_us / u, prec,
		f.mean_us / u, prec, f.p50_us / u, prec, f.p90_us / u, prec,
		f.p99_us / u, prec, f.max_us / u);
}

/* Time outside the brake that the operations took: what -S explains. */
static unsigned long long own_ns(const struct hplat_op_stats *os)
{
	return os->own.sum_ns;
}

static void print_steps_text(FILE *out, const struct hplat_snapshot *s, int op)
{
	const struct hplat_op_stats *os = &s->st.ops[op];
	const struct hplat_step_stats *ss;
	double u = unit_div(s) * 1000;
	const char *name;
	int i, depth;

	fprintf(out, "  cpuhp steps, %s:\n  count     incl     excl      max  "
		"state\n", unit_name(s));
	for (i = 0; i < HPLAT_MAX_STATES; i++) {
		ss = &s->st.steps[op][i];
		if (!ss->count)
			continue;
		name = s->state_names[i] ? s->state_names[i] : "?";
		depth = ss->depth > 1 ? (int)ss->depth - 1 : 0;
		if (depth > HPLAT_STEP_DEPTH)
			depth = HPLAT_STEP_DEPTH;
		fprintf(out, "  %5llu %8.2f %8.2f %8.2f  %*s%d %s\n", ss->count,
			ss->incl_ns / u, ss->excl_ns / u, ss->max_ns / u,
			2 * depth, "", i, name);
	}
	if (own_ns(os))
		fprintf(out, "  in cpuhp steps: %.1f of %.1f %s outside the brake "
			"(%.1f%%)\n", os->steps_ns / u, own_ns(os) / u,
			unit_name(s), 100.0 * os->steps_ns / own_ns(os));
	if (os->step_overflows)
		fprintf(out, "  steps nested deeper than %d: %llu not counted\n",
			HPLAT_STEP_DEPTH, os->step_overflows);
}

void hplat_print_text(FILE *out, const struct hplat_snapshot *s)
{
	const struct hplat_stats *st = &s->st;
	double u = unit_div(s) * 1000;
	const char *hist_unit = s->usecs ? "usecs" : "msecs";
	int op, cpu;

	if (s->timestamp && s->wall)
		fprintf(out, "%s\n", s->wall);
	for (op = 0; op < HPLAT_NR_OPS; op++) {
		const struct hplat_op_stats *os = &st->ops[op];

		fprintf(out, "%s: %llu ops, %llu errors", hplat_op_names[op],
			os->lat.count, os->errors);
		print_errors(out, os);
		fprintf(out, "\n");
		if (!os->lat.count)
			continue;
		print_dist_text(out, s, "", &os->lat);
		if (s->brake_event) {
			if (os->brake.count) {
				fprintf(out, "  braked: %llu\n", os->brake.count);
				print_dist_text(out, s, "brake ", &os->brake);
			}
			print_dist_text(out, s, "own ", &os->own);
		}
		hplat_print_log2_hist(out, os->log2, HPLAT_LOG2_SLOTS, hist_unit);
		if (s->linear)
			hplat_print_lin_hist(out, os->lin, HPLAT_LIN_SLOTS,
					     s->lin_width_us);
		if (s->per_cpu) {
			for (cpu = 0; cpu < HPLAT_MAX_CPUS; cpu++) {
				const struct hplat_cpu_stats *cs = &st->cpus[op][cpu];

				if (!cs->count)
					continue;
				fprintf(out, "  cpu%d: %llu ops, %llu errors, %s: "
					"min %.2f mean %.2f max %.2f\n", cpu,
					cs->count, cs->errors, unit_name(s),
					cs->min_ns / u, cs->sum_ns / u / cs->count,
					cs->max_ns / u);
			}
		}
		if (s->steps)
			print_steps_text(out, s, op);
	}
	fprintf(out, "in flight: max %llu, mean %.2f\n", st->max_in_flight,
		hplat_mean_in_flight(s));
	fprintf(out, "lock: %llu restarts, %.1f ms waited by %llu writers\n",
		st->lock_restarts, st->lock_wait_ns / 1e6, st->lock_waits_done);
	fprintf(out, "throughput: %.2f ops/s over %.1f s, ceiling 1/mean %.2f ops/s\n",
		hplat_ops_per_s(s), s->interval_s, hplat_ceiling_ops_per_s(s));
	if (st->dropped_events || st->filtered)
		fprintf(out, "dropped events: %llu, filtered out: %llu\n",
			st->dropped_events, st->filtered);
	if (st->missed_starts || st->start_drops)
		fprintf(out, "exits without entry: %llu (%llu entries without "
			"room)\n", st->missed_starts, st->start_drops);
	if (st->missed_exits)
		fprintf(out, "entries without exit: %llu\n", st->missed_exits);
	if (s->bpf_misses || s->lost_updates ||
	    (s->kprobe_misses && s->kprobe_misses != -1ULL))
		fprintf(out, "missed: %llu by kprobes, %llu by BPF, %llu updates "
			"given up (since attach)\n",
			s->kprobe_misses == -1ULL ? 0 : s->kprobe_misses,
			s->bpf_misses, s->lost_updates);
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if it is not one
 * (overlong forms, surrogates and values past U+10FFFF are not).
 */
static int utf8_len(const unsigned char *p)
{
	unsigned int c = p[0], cp;
	int n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

void hplat_json_string(FILE *out, const char *str)
{
	const unsigned char *p = (const unsigned char *)str;
	int n;

	fputc('"', out);
	while (*p) {
		switch (*p) {
		case '"': fputs("\\\"", out); p++; continue;
		case '\\': fputs("\\\\", out); p++; continue;
		case '\n': fputs("\\n", out); p++; continue;
		case '\t': fputs("\\t", out); p++; continue;
		case '\r': fputs("\\r", out); p++; continue;
		}
		if (*p < 0x20) {
			fprintf(out, "\\u%04x", *p++);
			continue;
		}
		n = utf8_len(p);
		if (!n) {
			fputs("\\ufffd", out);
			p++;
			continue;
		}
		fwrite(p, 1, n, out);
		p += n;
	}
	fputc('"', out);
}

void hplat_json_errnos(FILE *out, const unsigned long long *slots, int nr)
{
	bool first = true;
	char buf[16];
	int i;

	for (i = 1; i < nr; i++) {
		if (!slots[i])
			continue;
		fprintf(out, "%s\"%s\": %llu", first ? "" : ", ",
			hplat_errno_label(i, buf, sizeof(buf)), slots[i]);
		first = false;
	}
}

void hplat_print_json_error(FILE *out, const char *msg)
{
	fputs("{\"error\": ", out);
	hplat_json_string(out, msg);
	fputs("}\n", out);
	fflush(out);
}

/* Buckets as {"min", "max", "count"}; the last one is open: "max": null. */
static void json_buckets(FILE *out, const unsigned long long *vals, int nr,
			 bool log2, unsigned long long width_us)
{
	bool first = true;
	int i;

	fputc('[', out);
	for (i = 0; i < nr; i++) {
		unsigned long long lo, hi;

		if (!vals[i])
			continue;
		if (log2) {
			lo = i ? 1ULL << i : 0;
			hi = (1ULL << (i + 1)) - 1;
		} else {
			lo = i * width_us / 1000;
			hi = (i + 1) * width_us / 1000;
		}
		fprintf(out, "%s{\"min\": %llu, ", first ? "" : ", ", lo);
		if (i == nr - 1)
			fprintf(out, "\"max\": null, ");
		else
			fprintf(out, "\"max\": %llu, ", hi);
		fprintf(out, "\"count\": %llu}", vals[i]);
		first = false;
	}
	fputc(']', out);
}

/* "PREFIXmin_us": .., "PREFIXp50_us": .., ... of one distribution */
static void json_dist(FILE *out, const char *prefix, const struct hplat_dist *d,
		      bool all)
{
	struct hplat_figures f;

	hplat_figures(d, &f);
	fprintf(out, ", \"%smin_us\": %.1f, \"%smean_us\": %.1f, "
		"\"%sp50_us\": %.1f", prefix, f.min_us, prefix, f.mean_us,
		prefix, f.p50_us);
	if (all)
		fprintf(out, ", \"%sp90_us\": %.1f, \"%sp99_us\": %.1f", prefix,
			f.p90_us, prefix, f.p99_us);
	fprintf(out, ", \"%smax_us\": %.1f", prefix, f.max_us);
}

static void json_steps(FILE *out, const struct hplat_snapshot *s, int op)
{
	const struct hplat_op_stats *os = &s->st.ops[op];
	bool first = true;
	int i;

	fprintf(out, ", \"steps\": [");
	for (i = 0; i < HPLAT_MAX_STATES; i++) {
		const struct hplat_step_stats *ss = &s->st.steps[op][i];

		if (!ss->count)
			continue;
		fprintf(out, "%s{\"state\": %d, \"name\": ", first ? "" : ", ", i);
		hplat_json_string(out, s->state_names[i] ? s->state_names[i] : "");
		fprintf(out, ", \"depth\": %llu, \"count\": %llu, "
			"\"incl_us\": %.1f, \"excl_us\": %.1f, \"max_us\": %.1f}",
			ss->depth ? ss->depth - 1 : 0, ss->count, ss->incl_ns / 1e3,
			ss->excl_ns / 1e3, ss->max_ns / 1e3);
		first = false;
	}
	fprintf(out, "], \"in_steps_us\": %.1f, \"own_total_us\": %.1f, "
		"\"outside_steps_us\": %.1f, \"step_overflows\": %llu",
		os->steps_ns / 1e3, own_ns(os) / 1e3,
		(own_ns(os) > os->steps_ns ? own_ns(os) - os->steps_ns : 0) / 1e3,
		os->step_overflows);
}

void hplat_print_json(FILE *out, const struct hplat_snapshot *s)
{
	const struct hplat_stats *st = &s->st;
	bool first;
	int op, i;

	fprintf(out, "{\"event\": \"summary\", \"ts\": \"%s\", "
		"\"attach_mode\": \"%s\", \"brake_event\": %s, "
		"\"interval_s\": %.3f, \"ops_per_s\": %.3f, "
		"\"ceiling_ops_per_s\": %.3f, \"max_in_flight\": %llu, "
		"\"mean_in_flight\": %.3f, \"lock_restarts\": %llu, "
		"\"lock_wait_ms\": %.3f, \"lock_waits\": %llu, "
		"\"dropped_events\": %llu, \"missed_starts\": %llu, "
		"\"start_drops\": %llu, \"missed_exits\": %llu, "
		"\"filtered\": %llu, \"lost_updates\": %llu, ",
		s->wall_iso ? s->wall_iso : "", s->attach_mode,
		s->brake_event ? "true" : "false", s->interval_s,
		hplat_ops_per_s(s), hplat_ceiling_ops_per_s(s),
		st->max_in_flight, hplat_mean_in_flight(s), st->lock_restarts,
		st->lock_wait_ns / 1e6, st->lock_waits_done, st->dropped_events,
		st->missed_starts, st->start_drops, st->missed_exits,
		st->filtered, s->lost_updates);
	if (s->kprobe_misses == -1ULL)
		fprintf(out, "\"kprobe_misses\": null, ");
	else
		fprintf(out, "\"kprobe_misses\": %llu, ", s->kprobe_misses);
	fprintf(out, "\"bpf_misses\": %llu", s->bpf_misses);
	for (op = 0; op < HPLAT_NR_OPS; op++) {
		const struct hplat_op_stats *os = &st->ops[op];

		fprintf(out, ", \"%s\": {\"count\": %llu, \"errors\": %llu, "
			"\"errors_by_errno\": {", hplat_op_names[op],
			os->lat.count, os->errors);
		hplat_json_errnos(out, os->err, HPLAT_ERRNO_SLOTS);
		fputc('}', out);
		json_dist(out, "", &os->lat, true);
		if (s->brake_event) {
			fprintf(out, ", \"brake_count\": %llu", os->brake.count);
			json_dist(out, "brake_", &os->brake, false);
			json_dist(out, "own_", &os->own, false);
		}
		fprintf(out, ", \"log2_hist_%s\": ", s->usecs ? "us" : "ms");
		json_buckets(out, os->log2, HPLAT_LOG2_SLOTS, true, 0);
		if (s->linear) {
			fprintf(out, ", \"linear_hist_ms\": ");
			json_buckets(out, os->lin, HPLAT_LIN_SLOTS, false,
				     s->lin_width_us);
		}
		if (s->per_cpu) {
			fprintf(out, ", \"per_cpu\": {");
			first = true;
			for (i = 0; i < HPLAT_MAX_CPUS; i++) {
				const struct hplat_cpu_stats *cs = &st->cpus[op][i];

				if (!cs->count)
					continue;
				fprintf(out, "%s\"%d\": {\"count\": %llu, "
					"\"errors\": %llu, \"min_us\": %.1f, "
					"\"mean_us\": %.1f, \"max_us\": %.1f}",
					first ? "" : ", ", i, cs->count,
					cs->errors, cs->min_ns / 1e3,
					cs->sum_ns / 1e3 / cs->count,
					cs->max_ns / 1e3);
				first = false;
			}
			fputc('}', out);
		}
		if (s->steps)
			json_steps(out, s, op);
		fputc('}', out);
	}
	fputs("}\n", out);
	fflush(out);
}
