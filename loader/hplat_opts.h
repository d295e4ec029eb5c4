/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HPLAT_OPTS_H
#define HPLAT_OPTS_H

#include <stdbool.h>

#include "cpulist.h"

#define HPLAT_OPTS_HELP 1

struct hplat_opts {
	long duration_s;	/* -d: 0 = until Ctrl-C */
	long interval_s;	/* -i or first positional: 0 = one summary */
	long count;		/* second positional: 0 = unlimited */
	long lin_width_ms;	/* -L width */
	long ring_kb;		/* -B: ring buffer for -e, KiB */
	long writers;		/* -w: writers at once, sizes kretprobes */
	long pid;		/* -p: 0 = every process */
	long pause_ms;		/* --test-attach-pause (hidden) */
	const char *btf_path;	/* --btf: kernel BTF when not in sysfs */
	const char *comm;	/* --comm: NULL = every command */
	bool cpus[CPULIST_MAX];	/* --cpus */
	int nr_cpus;		/* 0 = every CPU */
	bool json, per_cpu, linear, steps, events, timestamp, kprobes;
	bool usecs, verbose, force;
};

/*
 * Parse argv into *o. Bad input prints a one-line reason with the usage and
 * exits 64 (argp_usage); --help prints the help and exits 0; returns 0.
 */
int hplat_parse_opts(int argc, char **argv, struct hplat_opts *o);
/* The same with argp_parse() flags: ARGP_NO_EXIT returns 64 instead. */
int hplat_parse_opts_flags(int argc, char **argv, struct hplat_opts *o,
			   unsigned int flags);

#endif /* HPLAT_OPTS_H */
