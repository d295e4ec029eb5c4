// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of hplat's bucket math, percentile estimation and output,
 * KTAP. "test_hplat_report json" prints a sample JSON summary instead, for
 * tests/unit/hplat-json.sh to parse back with python3.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hplat_report.h"

static int n, failed;

static void check(int good, const char *fmt, double a, double b)
{
	n++;
	if (!good)
		failed++;
	printf("%sok %d ", good ? "" : "not ", n);
	printf(fmt, a, b);
	printf("\n");
}

static void add(struct hplat_op_stats *st, unsigned long long us, int err)
{
	unsigned long long ns = us * 1000;

	st->count++;
	st->sum_ns += ns;
	if (!st->min_ns || ns < st->min_ns)
		st->min_ns = ns;
	if (ns > st->max_ns)
		st->max_ns = ns;
	st->log2[hplat_log2_slot(us)]++;
	st->fine[hplat_fine_slot(us)]++;
	if (err) {
		st->errors++;
		st->err[err]++;
	}
}

static void test_buckets(void)
{
	unsigned long long v, worst = 0;
	unsigned int i, prev = 0;
	int bad = 0;

	check(hplat_log2_slot(0) == 0 && hplat_log2_slot(1) == 0 &&
	      hplat_log2_slot(2) == 1 && hplat_log2_slot(3) == 1 &&
	      hplat_log2_slot(1024) == 10, "log2 slots of 0 1 2 3 1024%.0s%.0s",
	      0, 0);
	check(hplat_log2_slot(64000000) < HPLAT_LOG2_SLOTS &&
	      hplat_log2_slot(64000000) == 25,
	      "64 s lands in log2 slot %.0f of %.0f, unclamped",
	      hplat_log2_slot(64000000), HPLAT_LOG2_SLOTS);
	check(hplat_log2_slot(~0ULL) == HPLAT_LOG2_SLOTS - 1,
	      "huge values clamp to the last log2 slot %.0f (%.0f)",
	      hplat_log2_slot(~0ULL), HPLAT_LOG2_SLOTS - 1);
	for (v = 0; v <= HPLAT_MAX_US; v += v < 5000 ? 1 : 4999) {
		i = hplat_fine_slot(v);
		if (i >= HPLAT_FINE_SLOTS || i < prev || v < hplat_fine_low(i) ||
		    v >= hplat_fine_low(i) + hplat_fine_width(i))
			bad++;
		if (v && (double)hplat_fine_width(i) / v > (double)worst / 1e6)
			worst = (unsigned long long)((double)hplat_fine_width(i) / v * 1e6);
		prev = i;
	}
	check(!bad, "every value 0..2^27 us in its fine slot, slots ascending "
	      "(%.0f misplaced)%.0s", bad, 0);
	check(hplat_fine_width(hplat_fine_slot(1000000)) <= 4096,
	      "fine slot width at 1 s is %.0f us (<= %.0f)",
	      hplat_fine_width(hplat_fine_slot(1000000)), 4096);
}

static void test_percentiles(void)
{
	struct hplat_op_stats *st = calloc(1, sizeof(*st));
	struct hplat_figures f;
	unsigned long long i;

	/* 1..1000 ms, uniform */
	for (i = 1; i <= 1000; i++)
		add(st, i * 1000, 0);
	hplat_figures(st, &f);
	check(fabs(f.p50_us - 500000) <= 2048, "uniform 1..1000 ms: p50 %.0f us "
	      "(500000 +- 2048)%.0s", f.p50_us, 0);
	check(fabs(f.p90_us - 900000) <= 2048, "p90 %.0f us (900000 +- 2048)%.0s",
	      f.p90_us, 0);
	check(fabs(f.p99_us - 990000) <= 2048, "p99 %.0f us (990000 +- 2048)%.0s",
	      f.p99_us, 0);
	check(f.min_us == 1000 && f.max_us == 1000000, "min %.0f max %.0f",
	      f.min_us, f.max_us);
	check(fabs(f.mean_us - 500500) < 1, "mean %.0f (500500)%.0s", f.mean_us, 0);

	/* one value: every percentile is that value (clamped to min/max) */
	memset(st, 0, sizeof(*st));
	add(st, 1003921, 0);
	hplat_figures(st, &f);
	check(f.p50_us == 1003921 && f.p99_us == 1003921,
	      "single sample: p50 %.0f p99 %.0f (1003921)", f.p50_us, f.p99_us);

	/* empty */
	memset(st, 0, sizeof(*st));
	hplat_figures(st, &f);
	check(f.count == 0 && f.p50_us == 0, "empty: count %.0f p50 %.0f",
	      f.count, f.p50_us);
	free(st);
}

static void test_rates(void)
{
	struct hplat_snapshot *s = calloc(1, sizeof(*s));

	/* 10 ops of 1.05 s in 25 s */
	s->interval_s = 25;
	s->ops[HPLAT_OFFLINE].count = 10;
	s->ops[HPLAT_OFFLINE].sum_ns = 10 * 1050000000ULL;
	check(fabs(hplat_ops_per_s(s) - 0.4) < 1e-9, "ops/s %.3f (0.4)%.0s",
	      hplat_ops_per_s(s), 0);
	check(fabs(hplat_ceiling_ops_per_s(s) - 1 / 1.05) < 1e-9,
	      "ceiling %.4f ops/s (%.4f)", hplat_ceiling_ops_per_s(s), 1 / 1.05);
	check(fabs(hplat_mean_in_flight(s) - 0.42) < 1e-9,
	      "mean in flight %.3f (0.42)%.0s", hplat_mean_in_flight(s), 0);
	free(s);
}

static struct hplat_snapshot *sample(void)
{
	struct hplat_snapshot *s = calloc(1, sizeof(*s));
	static const char *names[] = { "offline", "sched:active \"x\"\t\\" };

	s->interval_s = 12.5;
	s->attach_mode = "fentry";
	s->per_cpu = s->linear = s->steps = 1;
	s->lin_width_us = 10000;
	add(&s->ops[HPLAT_OFFLINE], 1030000, 0);
	add(&s->ops[HPLAT_OFFLINE], 1029000, 11);
	add(&s->ops[HPLAT_ONLINE], 1005000, 0);
	s->ops[HPLAT_OFFLINE].lin[103] = 2;
	s->ops[HPLAT_ONLINE].lin[100] = 1;
	s->cpus[HPLAT_OFFLINE][1].count = 2;
	s->cpus[HPLAT_OFFLINE][1].sum_ns = 2059000000ULL;
	s->cpus[HPLAT_ONLINE][3].count = 1;
	s->cpus[HPLAT_ONLINE][3].sum_ns = 1005000000ULL;
	s->states[HPLAT_OFFLINE][0].count = 1;
	s->states[HPLAT_OFFLINE][0].sum_ns = 20000000;
	s->states[HPLAT_OFFLINE][1].count = 1;
	s->states[HPLAT_OFFLINE][1].sum_ns = 5000000;
	s->state_names[0] = names[0];
	s->state_names[1] = names[1];
	s->max_in_flight = 1;
	s->lock_restarts = 1234;
	s->lock_wait_ns = 6000000000ULL;
	s->lock_waits_done = 2;
	return s;
}

static void test_text(void)
{
	struct hplat_snapshot *s = sample();
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, longest = 0;
	FILE *f = open_memstream(&buf, &len);

	hplat_print_text(f, s);
	fclose(f);
	check(strstr(buf, "offline: 2 ops, 1 errors EAGAIN:1") != NULL,
	      "text names the error by errno%.0s%.0s", 0, 0);
	check(strstr(buf, "|****************************************|") != NULL,
	      "text histogram has a 40-star bar%.0s%.0s", 0, 0);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strlen(line) > longest)
			longest = strlen(line);
	check(longest < 80, "text lines are under 80 columns (longest %.0f)%.0s",
	      longest, 0);
	free(buf);
	free(s);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "json")) {
		struct hplat_snapshot *s = sample();

		hplat_print_json(stdout, s);
		hplat_print_json_error(stdout, "bad \"thing\"\n\x01");
		free(s);
		return 0;
	}
	printf("KTAP version 1\n1..18\n");
	test_buckets();
	test_percentiles();
	test_rates();
	test_text();
	return failed ? 1 : 0;
}
