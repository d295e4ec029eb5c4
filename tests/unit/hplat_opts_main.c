// SPDX-License-Identifier: GPL-2.0
/* Parse hplat's options and print the result, for tests/unit/hplat-cli.sh. */
#include <stdio.h>

#include "hplat_opts.h"

int main(int argc, char **argv)
{
	struct hplat_opts o;
	int err = hplat_parse_opts(argc, argv, &o);

	if (err)
		return err == HPLAT_OPTS_HELP ? 0 : 64;
	printf("d=%ld i=%ld c=%ld w=%ld B=%ld j=%d C=%d L=%d S=%d T=%d k=%d "
	       "v=%d f=%d\n",
	       o.duration_s, o.interval_s, o.count, o.lin_width_ms, o.ring_kb, o.json,
	       o.per_cpu, o.linear, o.steps, o.trace, o.kprobes, o.verbose,
	       o.force);
	return 0;
}
