// SPDX-License-Identifier: GPL-2.0
/* Unit tests of cpulist_parse(), KTAP output. */
#include <stdio.h>
#include <string.h>

#include "cpulist.h"

static int n, failed;
static bool set[CPULIST_MAX];

static void expect(const char *s, int want_rc, const char *want)
{
	char why[160] = "", got[256] = "";
	int rc, nr, i;
	size_t len = 0;

	rc = cpulist_parse(s, set, &nr, why, sizeof(why));
	if (!rc)
		for (i = 0; i < CPULIST_MAX && len < sizeof(got) - 8; i++)
			if (set[i])
				len += snprintf(got + len, sizeof(got) - len, "%d ", i);
	n++;
	if ((rc == 0) != (want_rc == 0) || (!rc && strcmp(got, want)) ||
	    (rc && !why[0])) {
		failed++;
		printf("not ok %d \"%s\": rc %d, cpus '%s', why '%s'\n", n,
		       s ? s : "(null)", rc, got, why);
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
	expect("1-", -1, NULL);
	expect("-1", -1, NULL);
	expect("3-1", -1, NULL);
	expect("a", -1, NULL);
	expect("1,,2", -1, NULL);
	expect("1,", -1, NULL);
	expect("", -1, NULL);
	expect(NULL, -1, NULL);
	expect("1024", -1, NULL);
	expect("1-2-3", -1, NULL);
	expect("99999999999999999999", -1, NULL);
	return failed ? 1 : 0;
}
