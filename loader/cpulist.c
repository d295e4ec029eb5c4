// SPDX-License-Identifier: GPL-2.0
/* CPU list parsing ("1-3,5"), shared by hpload and its unit tests. */
#include <stdio.h>
#include <string.h>

#include "cpulist.h"
#include "hpop.h"

/*
 * Quote at most 40 bytes of s[0..len) into dst, non-printable bytes as
 * '?', so that a reason stays on one line whatever it was given.
 */
static const char *quote(char *dst, size_t dstlen, const char *s, size_t len)
{
	size_t i, n = len > 40 ? 40 : len;

	if (n >= dstlen)
		n = dstlen - 1;
	for (i = 0; i < n; i++)
		dst[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	dst[i] = '\0';
	if (n < len && dstlen > 4 && n >= 3)
		memcpy(dst + n - 3, "...", 3);
	return dst;
}

static int parse_cpu(const char *s, size_t len, long *out)
{
	char buf[16];

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return hpop_parse_long(buf, 0, CPULIST_MAX - 1, out);
}

int cpulist_parse(const char *s, bool *set, int *nr, char *why, size_t whylen)
{
	const char *p = s, *end, *dash;
	char q1[48], q2[48];
	long lo, hi, c;

	memset(set, 0, CPULIST_MAX * sizeof(*set));
	*nr = 0;
	if (!s || !*s) {
		snprintf(why, whylen, "empty CPU list");
		return -1;
	}
	while (*p) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		dash = memchr(p, '-', end - p);
		if (dash) {
			if (parse_cpu(p, dash - p, &lo) ||
			    parse_cpu(dash + 1, end - dash - 1, &hi)) {
				snprintf(why, whylen, "bad range '%s' in CPU list '%s'",
					 quote(q1, sizeof(q1), p, end - p),
					 quote(q2, sizeof(q2), s, strlen(s)));
				return -1;
			}
			if (lo > hi) {
				snprintf(why, whylen, "descending range '%s' in CPU list '%s'",
					 quote(q1, sizeof(q1), p, end - p),
					 quote(q2, sizeof(q2), s, strlen(s)));
				return -1;
			}
		} else {
			if (parse_cpu(p, end - p, &lo)) {
				snprintf(why, whylen, "bad CPU '%s' in CPU list '%s'",
					 quote(q1, sizeof(q1), p, end - p),
					 quote(q2, sizeof(q2), s, strlen(s)));
				return -1;
			}
			hi = lo;
		}
		for (c = lo; c <= hi; c++) {
			if (!set[c])
				(*nr)++;
			set[c] = true;
		}
		if (!*end)
			break;
		p = end + 1;
		if (!*p) {
			snprintf(why, whylen, "trailing comma in CPU list '%s'",
				 quote(q2, sizeof(q2), s, strlen(s)));
			return -1;
		}
	}
	return 0;
}
