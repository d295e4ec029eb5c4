// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cpulist_parse(), KTAP output. */
#include <stdio.h>
#include <string.h>

#include "cpulist.h"

static int n, failed;
static bool set[CPULIST_MAX];

/*
 * s parsed: rc 0 with the CPUs in want (and nr their number, counted
 * here from the set), or an error whose reason starts with want
 */
static void expect(const char *s, int want_rc, const char *want)
{
	char why[160] = "", got[256] = "";
	int rc, nr, i, k = 0;
	size_t len = 0;

	rc = cpulist_parse(s, set, &nr, why, sizeof(why));
	if (!rc) {
		for (i = 0; i < CPULIST_MAX && len < sizeof(got) - 8; i++)
			if (set[i])
				len += snprintf(got + len, sizeof(got) - len, "%d ", i);
		for (i = 0; i < CPULIST_MAX; i++)
			k += set[i];
	}
	n++;
	if ((rc == 0) != (want_rc == 0) || (!rc && (strcmp(got, want) || nr != k)) ||
	    (rc && strncmp(why, want, strlen(want)))) {
		failed++;
		printf("not ok %d \"%s\": rc %d, cpus '%s' (nr %d), why '%s'\n", n,
		       s ? s : "(null)", rc, got, nr, why);
	} else {
		printf("ok %d \"%s\" -> %s\n", n, s ? s : "(null)",
		       rc ? why : got);
	}
}

int main(void)
{
	printf("KTAP version 1\n1..16\n");
	expect("1", 0, "1 ");
	expect("1-3", 0, "1 2 3 ");
	expect("1-3,5", 0, "1 2 3 5 ");
	expect("3,1,3", 0, "1 3 ");
	expect("0-0", 0, "0 ");
	expect("1-", -1, "bad range '1-'");
	expect("-1", -1, "bad range '-1'");
	expect("3-1", -1, "descending range '3-1'");
	expect("a", -1, "bad CPU 'a'");
	expect("1,,2", -1, "bad CPU ''");
	expect("1,", -1, "trailing comma");
	expect("", -1, "empty CPU list");
	expect(NULL, -1, "empty CPU list");
	expect("1024", -1, "bad CPU '1024'");
	expect("1-2-3", -1, "bad range '1-2-3'");
	expect("99999999999999999999", -1, "bad CPU '99999999999999999999'");
	return failed ? 1 : 0;
}
