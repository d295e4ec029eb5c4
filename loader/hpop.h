/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HPOP_H
#define HPOP_H

#include <errno.h>
#include <stdlib.h>

/* Present only in the initramfs that vm/mkinitramfs builds. */
#define HPBRAKE_GUEST_MARKER "/etc/hpbrake-guest"

/*
 * Parse a whole decimal number in [min, max]: no sign unless min < 0, no
 * blanks, no trailing characters. 0 on success, -1 on any error with *out
 * untouched.
 */
static inline int hpop_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || (min >= 0 && (*s < '0' || *s > '9')))
		return -1;
	if (min < 0 && *s != '-' && (*s < '0' || *s > '9'))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * Nearest-rank percentile of n sorted samples (hpload's p50 and p99), p
 * in 1..100: the smallest sample that at least p percent of them are at
 * or below; 0 for no sample.
 */
static inline unsigned long long hpop_pct(const unsigned long long *sorted,
					size_t n, int p)
{
	return n ? sorted[(n * p + 99) / 100 - 1] : 0;
}

#endif /* HPOP_H */
