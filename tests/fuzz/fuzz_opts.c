// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: hplat's command line. The input is argv, its words split at
 * NUL bytes. Parsed options are always within their documented bounds
 * (-B only with -e, -p and -w and the attach pause in range, --comm 1..15
 * bytes, --cpus a set of the size the parser says); errors, --help and
 * --version return (ARGP_NO_EXIT) instead of exiting.
 */
#include <argp.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hplat_opts.h"

#define MAX_ARGS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 2], *p, *end;
	struct hplat_opts o;
	int argc = 0;

	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "hplat";
	for (p = buf, end = buf + size; p <= end && argc <= MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	/* glibc argp's own --HANG[=SECS] sleeps, by design: not a finding */
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--H", 3)) {
			free(buf);
			return 0;
		}
	}

	if (hplat_parse_opts_flags(argc, argv, &o, ARGP_NO_EXIT) == 0) {
		int n = 0;

		for (int i = 0; i < CPULIST_MAX; i++)
			n += o.cpus[i];
		if (o.duration_s < 0 || o.duration_s > 86400 ||
		    o.interval_s < 0 || o.interval_s > 86400 || o.count < 0 ||
		    o.lin_width_ms < 1 || o.lin_width_ms > 60000 ||
		    (o.ring_kb && (o.ring_kb < 4 || o.ring_kb > 65536 ||
				   (o.ring_kb & (o.ring_kb - 1)) || !o.events)) ||
		    o.writers < 1 || o.writers > 4000 ||
		    o.pid < 0 || o.pid > INT_MAX ||
		    o.pause_ms < 0 || o.pause_ms > 60000 ||
		    (o.comm && (!*o.comm || strlen(o.comm) > 15)) ||
		    n != o.nr_cpus || o.nr_cpus < 0 || o.nr_cpus > CPULIST_MAX ||
		    (o.btf_path && !*o.btf_path))
			abort();
	}
	free(buf);
	return 0;
}
