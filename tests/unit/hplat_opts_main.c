// SPDX-License-Identifier: GPL-2.0
/* Parse hplat's options and print the result, for tests/unit/hplat-cli.sh. */
#include <stdio.h>
#include <string.h>

#include "hplat_opts.h"

/* The --cpus set as ranges, "1-3,5", "-" if empty; "BAD" if its size is
 * not nr_cpus.
 */
static const char *cpus_str(const struct hplat_opts *o, char *buf, size_t len)
{
	size_t used = 0;
	int i, j, n = 0;

	buf[0] = '\0';
	for (i = 0; i < CPULIST_MAX; i = j) {
		if (!o->cpus[i]) {
			j = i + 1;
			continue;
		}
		for (j = i; j < CPULIST_MAX && o->cpus[j]; j++)
			n++;
		if (j - 1 > i)
			used += snprintf(buf + used, len - used, "%s%d-%d",
					 used ? "," : "", i, j - 1);
		else
			used += snprintf(buf + used, len - used, "%s%d",
					 used ? "," : "", i);
		if (used >= len)
			return "TOO-LONG";
	}
	if (n != o->nr_cpus)
		return "BAD";
	return n ? buf : "-";
}

int main(int argc, char **argv)
{
	struct hplat_opts o;
	char cpus[4096];
	int err = hplat_parse_opts(argc, argv, &o);

	if (err)
		return err == HPLAT_OPTS_HELP ? 0 : 64;
	printf("d=%ld i=%ld c=%ld L=%d/%ld B=%ld w=%ld p=%ld comm=%s cpus=%s/%d "
	       "pause=%ld j=%d C=%d S=%d e=%d T=%d u=%d k=%d v=%d f=%d btf=%s\n",
	       o.duration_s, o.interval_s, o.count, o.linear, o.lin_width_ms,
	       o.ring_kb, o.writers, o.pid, o.comm ? o.comm : "-",
	       cpus_str(&o, cpus, sizeof(cpus)), o.nr_cpus, o.pause_ms, o.json,
	       o.per_cpu, o.steps, o.events, o.timestamp, o.usecs, o.kprobes,
	       o.verbose, o.force, o.btf_path ? o.btf_path : "-");
	return 0;
}
