// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the CPU-list parser (hpload -c) and the number parser every
 * tool uses. A list either parses into a set whose size is what the
 * parser says, or fails with a one-line printable reason.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "hpop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool set[CPULIST_MAX];
	char why[160], *s, *end;
	long v, want;
	int nr, i, n = 0;

	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	why[0] = '\0';
	if (cpulist_parse(s, set, &nr, why, sizeof(why)) == 0) {
		for (i = 0; i < CPULIST_MAX; i++)
			n += set[i];
		if (n != nr || nr < 1)
			abort();
	} else {
		if (!why[0])
			abort();
		for (i = 0; why[i]; i++)
			if (why[i] < 0x20 || why[i] == 0x7f)
				abort();
	}

	/* accepted numbers are decimal, whole, in range, and what strtol says */
	if (hpop_parse_long(s, 1, 86400, &v) == 0) {
		want = strtol(s, &end, 10);
		if (v != want || *end || v < 1 || v > 86400 || s[0] < '0' || s[0] > '9')
			abort();
	}
	if (hpop_parse_long(s, -5, 5, &v) == 0 && (v < -5 || v > 5))
		abort();
	free(s);
	return 0;
}
