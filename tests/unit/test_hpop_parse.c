// SPDX-License-Identifier: GPL-2.0
/* Unit tests of hpop_parse_long(), KTAP output. */
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

int main(void)
{
	printf("KTAP version 1\n1..17\n");
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
