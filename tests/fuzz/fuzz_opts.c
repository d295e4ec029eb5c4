// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: hplat's command line. The input is argv, its words split at
 * NUL bytes. Parsed options are always within their documented bounds;
 * errors, --help and --version return (ARGP_NO_EXIT) instead of exiting.
 */
#include <argp.h>
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
		if (o.duration_s < 0 || o.duration_s > 86400 ||
		    o.interval_s < 0 || o.interval_s > 86400 || o.count < 0 ||
		    o.lin_width_ms < 1 || o.lin_width_ms > 60000 ||
		    (o.ring_kb && (o.ring_kb < 4 || o.ring_kb > 65536 ||
				   (o.ring_kb & (o.ring_kb - 1)) || !o.trace)) ||
		    (o.btf_path && !*o.btf_path))
			abort();
	}
	free(buf);
	return 0;
}
