// SPDX-License-Identifier: GPL-2.0
/* hplat: figures, text and JSON from the BPF side's counters. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

void hplat_figures(const struct hplat_op_stats *st, struct hplat_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->count = st->count;
	f->errors = st->errors;
	if (!st->count)
		return;
	f->min_us = st->min_ns / 1000.0;
	f->max_us = st->max_ns / 1000.0;
	f->mean_us = st->sum_ns / 1000.0 / st->count;
	f->p50_us = hplat_percentile(st->fine, st->count, 50, f->min_us, f->max_us);
	f->p90_us = hplat_percentile(st->fine, st->count, 90, f->min_us, f->max_us);
	f->p99_us = hplat_percentile(st->fine, st->count, 99, f->min_us, f->max_us);
}

static unsigned long long total_count(const struct hplat_snapshot *s)
{
	unsigned long long n = 0;
	int op;

	for (op = 0; op < HPLAT_NR_OPS; op++)
		n += s->ops[op].count;
	return n;
}

static unsigned long long total_ns(const struct hplat_snapshot *s)
{
	unsigned long long ns = 0;
	int op;

	for (op = 0; op < HPLAT_NR_OPS; op++)
		ns += s->ops[op].sum_ns;
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

const char *hplat_errno_name(int err)
{
	switch (err) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case ENOSYS: return "ENOSYS";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECANCELED: return "ECANCELED";
	case 512: return "ERESTARTSYS";
	default: return NULL;
	}
}

static void stars(FILE *out, unsigned long long val, unsigned long long max,
		  int width)
{
	int n = max ? (int)((double)val / (double)max * width) : 0, i;

	for (i = 0; i < width; i++)
		fputc(i < n ? '*' : ' ', out);
}

/* The libbpf-tools print_log2_hist() shape: empty slots at both ends are
 * skipped, bars are 40 stars wide.
 */
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
		fprintf(out, "%10llu -> %-10llu : %-8llu |", low, high, vals[i]);
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

static void print_errors(FILE *out, const struct hplat_op_stats *st)
{
	const char *name;
	int i;

	for (i = 1; i < HPLAT_MAX_ERRNO; i++) {
		if (!st->err[i])
			continue;
		name = hplat_errno_name(i);
		if (name)
			fprintf(out, " %s:%llu", name, st->err[i]);
		else
			fprintf(out, " %s%d:%llu",
				i == HPLAT_MAX_ERRNO - 1 ? ">=" : "errno", i,
				st->err[i]);
	}
}

static void print_steps_text(FILE *out, const struct hplat_snapshot *s, int op)
{
	unsigned long long in_states = 0;
	const struct hplat_state_stats *ss;
	const char *name;
	int i;

	fprintf(out, "  cpuhp steps        count  total ms    max ms\n");
	for (i = 0; i < HPLAT_MAX_STATES; i++) {
		ss = &s->states[op][i];
		if (!ss->count)
			continue;
		in_states += ss->sum_ns;
		name = s->state_names[i];
		if (name)
			fprintf(out, "  %3d %-14.14s %6llu %9.2f %9.2f\n", i, name,
				ss->count, ss->sum_ns / 1e6, ss->max_ns / 1e6);
		else
			fprintf(out, "  %3d %-14s %6llu %9.2f %9.2f\n", i, "?",
				ss->count, ss->sum_ns / 1e6, ss->max_ns / 1e6);
	}
	if (s->ops[op].sum_ns) {
		fprintf(out, "  in cpuhp callbacks: %.1f ms (%.1f%% of %s time),"
			" outside: %.1f ms\n", in_states / 1e6,
			100.0 * in_states / s->ops[op].sum_ns, hplat_op_names[op],
			(s->ops[op].sum_ns - (in_states < s->ops[op].sum_ns ?
					       in_states : s->ops[op].sum_ns)) / 1e6);
	}
}

void hplat_print_text(FILE *out, const struct hplat_snapshot *s)
{
	struct hplat_figures f;
	int op, cpu;

	for (op = 0; op < HPLAT_NR_OPS; op++) {
		const struct hplat_op_stats *st = &s->ops[op];

		hplat_figures(st, &f);
		fprintf(out, "%s: %llu ops, %llu errors", hplat_op_names[op],
			f.count, f.errors);
		print_errors(out, st);
		fprintf(out, "\n");
		if (!f.count)
			continue;
		fprintf(out, "  ms: min %.1f mean %.1f p50 %.1f p90 %.1f "
			"p99 %.1f max %.1f\n", f.min_us / 1000, f.mean_us / 1000,
			f.p50_us / 1000, f.p90_us / 1000, f.p99_us / 1000,
			f.max_us / 1000);
		hplat_print_log2_hist(out, st->log2, HPLAT_LOG2_SLOTS, "usecs");
		if (s->linear)
			hplat_print_lin_hist(out, st->lin, HPLAT_LIN_SLOTS,
					     s->lin_width_us);
		if (s->per_cpu) {
			for (cpu = 0; cpu < HPLAT_MAX_CPUS; cpu++) {
				const struct hplat_cpu_stats *cs = &s->cpus[op][cpu];

				if (!cs->count)
					continue;
				fprintf(out, "  cpu%d: %llu ops, %llu errors, ms: "
					"min %.2f mean %.2f max %.2f\n", cpu,
					cs->count, cs->errors, cs->min_ns / 1e6,
					cs->sum_ns / 1e6 / cs->count,
					cs->max_ns / 1e6);
			}
		}
		if (s->steps)
			print_steps_text(out, s, op);
	}
	fprintf(out, "in flight: max %llu, mean %.2f\n", s->max_in_flight,
		hplat_mean_in_flight(s));
	fprintf(out, "lock: %llu restarts, %.1f ms waited by %llu writers\n",
		s->lock_restarts, s->lock_wait_ns / 1e6, s->lock_waits_done);
	fprintf(out, "throughput: %.2f ops/s over %.1f s, ceiling 1/mean %.2f ops/s\n",
		hplat_ops_per_s(s), s->interval_s, hplat_ceiling_ops_per_s(s));
	if (s->dropped_events || s->missed_starts)
		fprintf(out, "dropped events: %llu, exits without entry: %llu\n",
			s->dropped_events, s->missed_starts);
}

void hplat_json_string(FILE *out, const char *str)
{
	const unsigned char *p = (const unsigned char *)str;

	fputc('"', out);
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void hplat_json_errnos(FILE *out, const unsigned long long *err, int nr)
{
	const char *name;
	bool first = true;
	int i;

	for (i = 1; i < nr; i++) {
		if (!err[i])
			continue;
		name = hplat_errno_name(i);
		if (name)
			fprintf(out, "%s\"%s\": %llu", first ? "" : ", ", name,
				err[i]);
		else
			fprintf(out, "%s\"%d\": %llu", first ? "" : ", ", i,
				err[i]);
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
		fprintf(out, "%s{\"min\": %llu, \"max\": %llu, \"count\": %llu}",
			first ? "" : ", ", lo, hi, vals[i]);
		first = false;
	}
	fputc(']', out);
}

void hplat_print_json(FILE *out, const struct hplat_snapshot *s)
{
	struct hplat_figures f;
	bool first;
	int op, i;

	fprintf(out, "{\"attach_mode\": \"%s\", \"interval_s\": %.3f, "
		"\"ops_per_s\": %.3f, \"ceiling_ops_per_s\": %.3f, "
		"\"max_in_flight\": %llu, \"mean_in_flight\": %.3f, "
		"\"lock_restarts\": %llu, \"lock_wait_ms\": %.3f, "
		"\"lock_waits\": %llu, \"dropped_events\": %llu, "
		"\"missed_starts\": %llu",
		s->attach_mode, s->interval_s, hplat_ops_per_s(s),
		hplat_ceiling_ops_per_s(s), s->max_in_flight,
		hplat_mean_in_flight(s), s->lock_restarts,
		s->lock_wait_ns / 1e6, s->lock_waits_done, s->dropped_events,
		s->missed_starts);
	for (op = 0; op < HPLAT_NR_OPS; op++) {
		const struct hplat_op_stats *st = &s->ops[op];

		hplat_figures(st, &f);
		fprintf(out, ", \"%s\": {\"count\": %llu, \"errors\": %llu, "
			"\"errors_by_errno\": {", hplat_op_names[op], f.count,
			f.errors);
		hplat_json_errnos(out, st->err, HPLAT_MAX_ERRNO);
		fprintf(out, "}, \"min_us\": %.1f, \"mean_us\": %.1f, "
			"\"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, "
			"\"max_us\": %.1f, \"log2_hist_us\": ", f.min_us,
			f.mean_us, f.p50_us, f.p90_us, f.p99_us, f.max_us);
		json_buckets(out, st->log2, HPLAT_LOG2_SLOTS, true, 0);
		if (s->linear) {
			fprintf(out, ", \"linear_hist_ms\": ");
			json_buckets(out, st->lin, HPLAT_LIN_SLOTS, false,
				     s->lin_width_us);
		}
		if (s->per_cpu) {
			fprintf(out, ", \"per_cpu\": {");
			first = true;
			for (i = 0; i < HPLAT_MAX_CPUS; i++) {
				const struct hplat_cpu_stats *cs = &s->cpus[op][i];

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
		if (s->steps) {
			unsigned long long in_states = 0;

			fprintf(out, ", \"steps\": [");
			first = true;
			for (i = 0; i < HPLAT_MAX_STATES; i++) {
				const struct hplat_state_stats *ss = &s->states[op][i];

				if (!ss->count)
					continue;
				in_states += ss->sum_ns;
				fprintf(out, "%s{\"state\": %d, \"name\": ",
					first ? "" : ", ", i);
				hplat_json_string(out, s->state_names[i] ?
						  s->state_names[i] : "");
				fprintf(out, ", \"count\": %llu, \"total_us\": %.1f, "
					"\"max_us\": %.1f}", ss->count,
					ss->sum_ns / 1e3, ss->max_ns / 1e3);
				first = false;
			}
			fprintf(out, "], \"in_steps_us\": %.1f, "
				"\"outside_steps_us\": %.1f", in_states / 1e3,
				(st->sum_ns > in_states ? st->sum_ns - in_states : 0)
				/ 1e3);
		}
		fputc('}', out);
	}
	fputs("}\n", out);
	fflush(out);
}
