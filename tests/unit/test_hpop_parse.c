// SPDX-License-Identifier: GPL-2.0
/* Unit tests of hpop_parse_long() and hpop_pct(), KTAP output. */
#include <limits.h>
#include <stdio.h>

#include "hpop.h"

static int n, failed;

static void expect(const char *s, long min, long max, int want_rc, long want)
{
	long v = -12345;
	int rc = hpop_parse_long(s, min, max, &v);
	int good = rc == want_rc && (rc ? v == -12345 : v == want);

	n++;
	if (!good)
		failed++;
	printf("%sok %d parse \"%s\" in [%ld, %ld] -> rc %d value %ld\n",
	       good ? "" : "not ", n, s ? s : "(null)", min, max, rc, v);
}

/*
 * hpop_pct() of 1..n (sorted), against the rank worked out by hand
 * (mutant: the index n * p / 100, one rank too high, fails 3 of them)
 */
static void expect_pct(size_t count, int p, unsigned long long want)
{
	unsigned long long v[100];
	size_t i;

	for (i = 0; i < count; i++)
		v[i] = i + 1;
	n++;
	if (hpop_pct(v, count, p) != want)
		failed++;
	printf("%sok %d p%d of 1..%zu -> %llu (want %llu)\n",
	       hpop_pct(v, count, p) == want ? "" : "not ", n, p, count,
	       hpop_pct(v, count, p), want);
}

int main(void)
{
	printf("KTAP version 1\n1..25\n");
	/* the smallest sample at least p % of them are at or below */
	expect_pct(2, 50, 1);
	expect_pct(3, 50, 2);
	expect_pct(4, 50, 2);
	expect_pct(100, 99, 99);
	expect_pct(100, 100, 100);
	expect_pct(6, 90, 6);
	expect_pct(1, 99, 1);
	expect_pct(0, 50, 0);
	expect("0", 0, 10, 0, 0);
	expect("10", 0, 10, 0, 10);
	expect("11", 0, 10, -1, 0);
	expect("", 0, 10, -1, 0);
	expect(NULL, 0, 10, -1, 0);
	expect("-1", 0, 10, -1, 0);
	expect("+1", 0, 10, -1, 0);
	expect(" 1", 0, 10, -1, 0);
	expect("1 ", 0, 10, -1, 0);
	expect("0x10", 0, 100, -1, 0);
	expect("1a", 0, 100, -1, 0);
	expect("a", 0, 100, -1, 0);
	expect("99999999999999999999", 0, LONG_MAX, -1, 0);
	expect("2147483647", 0, INT_MAX, 0, INT_MAX);
	expect("2147483648", 0, INT_MAX, -1, 0);
	expect("-5", -10, 10, 0, -5);
	expect("-", -10, 10, -1, 0);
	return failed ? 1 : 0;
}
