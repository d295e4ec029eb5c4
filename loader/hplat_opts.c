// SPDX-License-Identifier: GPL-2.0
/* hplat's command line. */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hpop.h"
#include "hplat_opts.h"

const char *argp_program_version = "hplat 2.0";
const char argp_program_doc[] =
"Trace CPU hotplug operations: latency (the brake and the operation apart),\n"
"concurrency, lock contention, time per cpuhp step. Linux 5.12 or later.\n"
"\n"
"USAGE: hplat [-jCSeTkmuv] [-L[MS]] [-B KB] [-d SECONDS] [-i SECONDS]\n"
"             [--cpus LIST] [-p PID] [--comm COMM] [-w WRITERS]\n"
"             [interval] [count]\n"
"\n"
"EXAMPLES:\n"
"    hplat                 # summarise until Ctrl-C\n"
"    hplat -d 10           # summarise 10 seconds of operations\n"
"    hplat -T 1 5          # five 1-second summaries with their times\n"
"    hplat -L10            # also a linear histogram, 10 ms buckets\n"
"    hplat -C              # also per target CPU\n"
"    hplat -S              # also time per cpuhp state callback\n"
"    hplat -e              # one line per operation\n"
"    hplat --cpus 1-3 -p 1234  # operations on cpu1..3 by process 1234\n"
"    hplat -j -d 10        # JSON, one object per summary\n"
"    hplat -k              # kprobes instead of fentry/fexit\n";

enum { OPT_FORCE = 0x100, OPT_BTF, OPT_CPUS, OPT_COMM, OPT_PAUSE };

static const struct argp_option options[] = {
	{ "duration", 'd', "SECONDS", 0, "Trace for this long, then summarise", 0 },
	{ "interval", 'i', "SECONDS", 0, "Summarise every SECONDS, resetting", 0 },
	{ "json", 'j', NULL, 0, "JSON output, one object per line", 0 },
	{ "timestamp", 'T', NULL, 0, "Print the time (HH:MM:SS) over each summary", 0 },
	{ "milliseconds", 'm', NULL, 0, "Figures and histograms in ms (default)", 0 },
	{ "microseconds", 'u', NULL, 0, "Figures and histograms in us", 0 },
	{ "per-cpu", 'C', NULL, 0, "Also show figures per target CPU", 0 },
	{ "linear", 'L', "MS", OPTION_ARG_OPTIONAL,
	  "Also a linear histogram with MS-wide buckets (default 10)", 0 },
	{ "steps", 'S', NULL, 0, "Also time per cpuhp state callback", 0 },
	{ "events", 'e', NULL, 0, "Print one line per operation", 0 },
	{ "ring-kb", 'B', "KB", 0,
	  "Ring buffer for -e: a power of two from 4 to 65536 KiB (default 256)",
	  0 },
	{ "cpus", OPT_CPUS, "LIST", 0,
	  "Only operations on these target CPUs, e.g. 1-3,5", 0 },
	{ "pid", 'p', "PID", 0, "Only operations by this process", 0 },
	{ "comm", OPT_COMM, "COMM", 0,
	  "Only operations by tasks of this name (15 characters at most)", 0 },
	{ "writers", 'w', "WRITERS", 0,
	  "Writers at once that kretprobes must hold (1..4000, default 64)", 0 },
	{ "kprobes", 'k', NULL, 0, "Use kprobes instead of fentry/fexit", 0 },
	{ "verbose", 'v', NULL, 0,
	  "libbpf debug output, attach time, BPF run time per operation", 0 },
	{ "btf", OPT_BTF, "FILE", 0,
	  "Kernel BTF for CO-RE when /sys/kernel/btf/vmlinux is missing", 0 },
	{ "force", OPT_FORCE, NULL, 0,
	  "Run outside an hpbrake guest (traces this machine's kernel)", 0 },
	{ "test-attach-pause", OPT_PAUSE, "MS", OPTION_HIDDEN,
	  "Wait MS ms between attaching the exits and the entries (tests)", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{ 0 },
};

/* A number in [min, max] into *out, or a usage error (EINVAL). */
static int parse_num(struct argp_state *state, const char *what,
		     const char *arg, long min, long max, long *out)
{
	if (hpop_parse_long(arg, min, max, out)) {
		argp_error(state, "invalid %s '%s' (a whole number from %ld to %ld)",
			   what, arg ? arg : "", min, max);
		return EINVAL;
	}
	return 0;
}

/*
 * Every error is argp_error(), which exits 64, and then EINVAL, which
 * argp_parse() returns instead when ARGP_NO_EXIT is set (the fuzzer).
 */
static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct hplat_opts *o = state->input;

	switch (key) {
	case 'd':
		return parse_num(state, "duration", arg, 1, 86400, &o->duration_s);
	case 'i':
		return parse_num(state, "interval", arg, 1, 86400, &o->interval_s);
	case 'j':
		o->json = true;
		break;
	case 'C':
		o->per_cpu = true;
		break;
	case 'L':
		o->linear = true;
		if (arg)
			return parse_num(state, "bucket width", arg, 1, 60000,
					 &o->lin_width_ms);
		break;
	case 'S':
		o->steps = true;
		break;
	case 'e':
		o->events = true;
		break;
	case 'T':
		o->timestamp = true;
		break;
	case 'm':
		o->usecs = false;
		break;
	case 'u':
		o->usecs = true;
		break;
	case 'p':
		return parse_num(state, "pid", arg, 1, INT_MAX, &o->pid);
	case 'w':
		return parse_num(state, "writer count", arg, 1, 4000, &o->writers);
	case OPT_PAUSE:
		return parse_num(state, "pause", arg, 1, 60000, &o->pause_ms);
	case OPT_CPUS: {
		char why[160];

		if (cpulist_parse(arg ? arg : "", o->cpus, &o->nr_cpus, why,
				  sizeof(why))) {
			argp_error(state, "%s", why);
			return EINVAL;
		}
		break;
	}
	case OPT_COMM:
		if (!arg || !*arg || strlen(arg) > 15) {
			char shown[41];
			size_t i;

			/* one line, whatever was given */
			for (i = 0; arg && arg[i] && i < sizeof(shown) - 1; i++)
				shown[i] = arg[i] >= 0x20 && arg[i] < 0x7f ? arg[i] : '?';
			shown[i] = '\0';
			argp_error(state, "invalid command name '%s' (1 to 15 "
				   "characters, as in /proc/PID/comm)", shown);
			return EINVAL;
		}
		o->comm = arg;
		break;
	case 'B':
		if (parse_num(state, "ring buffer size", arg, 4, 65536, &o->ring_kb))
			return EINVAL;
		if (o->ring_kb & (o->ring_kb - 1)) {
			argp_error(state, "invalid ring buffer size '%s' (a power "
				   "of two from 4 to 65536 KiB)", arg);
			return EINVAL;
		}
		break;
	case 'k':
		o->kprobes = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	case OPT_BTF:
		if (!arg || !*arg) {
			argp_error(state, "--btf needs a file");
			return EINVAL;
		}
		o->btf_path = arg;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_END:
		if (o->ring_kb && !o->events) {
			argp_error(state, "-B sizes the ring buffer of -e: give -e too");
			return EINVAL;
		}
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0) {
			if (o->interval_s) {
				argp_error(state, "interval given twice");
				return EINVAL;
			}
			return parse_num(state, "interval", arg, 1, 86400,
					 &o->interval_s);
		} else if (state->arg_num == 1) {
			return parse_num(state, "count", arg, 1, LONG_MAX, &o->count);
		}
		argp_error(state, "unexpected argument '%s'", arg);
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int hplat_parse_opts_flags(int argc, char **argv, struct hplat_opts *o,
			   unsigned int flags)
{
	static const struct argp argp = {
		.options = options,
		.parser = parse_arg,
		.doc = argp_program_doc,
	};

	memset(o, 0, sizeof(*o));
	o->lin_width_ms = 10;
	o->writers = 64;
	argp_err_exit_status = 64;
	if (argp_parse(&argp, argc, argv, flags, NULL, o))
		return 64;
	return 0;
}

int hplat_parse_opts(int argc, char **argv, struct hplat_opts *o)
{
	return hplat_parse_opts_flags(argc, argv, o, 0);
}
