// SPDX-License-Identifier: GPL-2.0
/*
 * hplat: latency histograms, concurrency, lock contention and per-step
 * breakdown of CPU hotplug operations (cpu_subsys_online/offline).
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "hplat.h"
#include "hpop.h"
#include "hplat.skel.h"
#include "hplat_opts.h"
#include "hplat_report.h"

#define EXIT_USAGE 64

static volatile sig_atomic_t exiting;
static struct hplat_opts opts;

static void sig_handler(int sig)
{
	(void)sig;
	exiting = 1;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *format,
			   va_list args)
{
	if (level == LIBBPF_DEBUG && !opts.verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Report an error on stderr, and as {"error": ...} on stdout with -j. */
static void fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "hplat: %s\n", msg);
	if (opts.json)
		hplat_print_json_error(stdout, msg);
}

static struct btf *vmlinux_btf;

static bool tp_btf_can_attach(const char *tp)
{
	char name[64];

	if (!vmlinux_btf)
		return false;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf__find_by_name_kind(vmlinux_btf, name, BTF_KIND_TYPEDEF) > 0;
}

static bool kallsyms_has(const char *sym)
{
	char line[256], name[128];
	bool found = false;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %127s", name) == 1 &&
		    !strcmp(name, sym))
			found = true;
	}
	fclose(f);
	return found;
}

/* Say which piece is missing when neither fentry nor kprobe attached. */
static void explain_attach_failure(const char *func, int err)
{
	if (err == -EPERM || err == -EACCES)
		fail("failed to attach to %s: %s: run as root or with "
		     "CAP_BPF and CAP_PERFMON", func, strerror(-err));
	else if (access("/sys/kernel/btf/vmlinux", R_OK))
		fail("failed to attach to %s: %s: the kernel has no BTF "
		     "(/sys/kernel/btf/vmlinux); enable CONFIG_DEBUG_INFO_BTF",
		     func, strerror(-err));
	else if (!kallsyms_has(func))
		fail("failed to attach to %s: %s: the symbol is absent or "
		     "inlined in this kernel (not in /proc/kallsyms)", func,
		     strerror(-err));
	else
		fail("failed to attach to %s: %s", func, strerror(-err));
}

static void read_state_names(struct hplat_snapshot *s, char **store)
{
	char line[128], name[96];
	int idx;
	FILE *f;

	*store = NULL;
	f = fopen("/sys/devices/system/cpu/hotplug/states", "r");
	if (!f)
		return;
	*store = calloc(HPLAT_MAX_STATES, 96);
	while (*store && fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %d: %95[^\n]", &idx, name) != 2 ||
		    idx < 0 || idx >= HPLAT_MAX_STATES)
			continue;
		memcpy(*store + idx * 96, name, sizeof(name));
		s->state_names[idx] = *store + idx * 96;
	}
	fclose(f);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct hplat_event *e = data;
	const char *name;

	(void)ctx;
	if (size < sizeof(*e))
		return 0;
	name = e->ret ? hplat_errno_name(-e->ret) : "0";
	if (opts.json) {
		printf("{\"event\": \"op\", \"ts_us\": %llu, \"op\": \"%s\", "
		       "\"cpu\": %u, \"latency_us\": %.1f, \"ret\": %d, "
		       "\"pid\": %u, \"comm\": ", e->ts_ns / 1000,
		       hplat_op_names[e->op < HPLAT_NR_OPS ? e->op : 0], e->cpu,
		       e->lat_ns / 1e3, e->ret, e->pid);
		hplat_json_string(stdout, e->comm);
		printf("}\n");
	} else {
		printf("%-14.6f %-7s cpu%-3u %10.2f ms  ret %d%s%s  %s[%u]\n",
		       e->ts_ns / 1e9, hplat_op_names[e->op < HPLAT_NR_OPS ?
						      e->op : 0], e->cpu,
		       e->lat_ns / 1e6, e->ret, name ? " " : "",
		       name && e->ret ? name : "", e->comm, e->pid);
	}
	return 0;
}

/* Copy the BPF side's counters into a snapshot, resetting them if asked. */
static void take_snapshot(struct hplat_bpf *skel, struct hplat_snapshot *s,
			  bool reset)
{
	struct hplat_bpf__bss *bss = skel->bss;

	memcpy(s->ops, bss->op_stats, sizeof(s->ops));
	memcpy(s->cpus, bss->cpu_stats, sizeof(s->cpus));
	memcpy(s->states, bss->state_stats, sizeof(s->states));
	s->max_in_flight = bss->max_in_flight;
	s->lock_restarts = bss->lock_restarts;
	s->lock_wait_ns = bss->lock_wait_ns;
	s->lock_waits_done = bss->lock_waits_done;
	s->dropped_events = bss->dropped_events;
	s->missed_starts = bss->missed_starts;
	if (!reset)
		return;
	memset(bss->op_stats, 0, sizeof(bss->op_stats));
	memset(bss->cpu_stats, 0, sizeof(bss->cpu_stats));
	memset(bss->state_stats, 0, sizeof(bss->state_stats));
	bss->max_in_flight = bss->in_flight > 0 ? bss->in_flight : 0;
	bss->lock_restarts = 0;
	bss->lock_wait_ns = 0;
	bss->lock_waits_done = 0;
	bss->dropped_events = 0;
	bss->missed_starts = 0;
}

static void choose_programs(struct hplat_bpf *skel, bool kprobes, int steps)
{
	struct bpf_program *fentry[] = {
		skel->progs.online_entry, skel->progs.online_exit,
		skel->progs.offline_entry, skel->progs.offline_exit,
	};
	struct bpf_program *kp[] = {
		skel->progs.online_kprobe, skel->progs.online_kretprobe,
		skel->progs.offline_kprobe, skel->progs.offline_kretprobe,
	};
	size_t i;

	for (i = 0; i < 4; i++) {
		bpf_program__set_autoload(fentry[i], !kprobes);
		bpf_program__set_autoload(kp[i], kprobes);
	}
	bpf_program__set_autoload(skel->progs.lock_fexit, !kprobes);
	bpf_program__set_autoload(skel->progs.lock_kretprobe, kprobes);
	/* steps: 0 off, 1 tp_btf, 2 raw_tp */
	bpf_program__set_autoload(skel->progs.cpuhp_enter_btf, steps == 1);
	bpf_program__set_autoload(skel->progs.cpuhp_multi_enter_btf, steps == 1);
	bpf_program__set_autoload(skel->progs.cpuhp_exit_btf, steps == 1);
	bpf_program__set_autoload(skel->progs.cpuhp_enter_raw, steps == 2);
	bpf_program__set_autoload(skel->progs.cpuhp_multi_enter_raw, steps == 2);
	bpf_program__set_autoload(skel->progs.cpuhp_exit_raw, steps == 2);
}

/*
 * Open, configure, load and attach in one mode. Attaching the real
 * programs is the exact probe: no test program is attached and torn down
 * first (each teardown of a trampoline waits for an RCU-tasks grace
 * period, about 90 ms under TCG).
 */
static struct hplat_bpf *start_bpf(bool kprobes, int steps, int *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .btf_custom_path = opts.btf_path);
	struct hplat_bpf *skel;

	skel = hplat_bpf__open_opts(&oopts);
	if (!skel) {
		*err = -errno;
		return NULL;
	}
	skel->rodata->per_cpu = opts.per_cpu;
	skel->rodata->trace_ops = opts.trace;
	skel->rodata->lin_width_us = opts.lin_width_ms * 1000ULL;
	choose_programs(skel, kprobes, steps);
	if (opts.ring_kb) {
		*err = bpf_map__set_max_entries(skel->maps.events,
						opts.ring_kb * 1024);
		if (*err) {
			hplat_bpf__destroy(skel);
			return NULL;
		}
	}
	*err = hplat_bpf__load(skel);
	if (!*err)
		*err = hplat_bpf__attach(skel);
	if (*err) {
		hplat_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

int main(int argc, char **argv)
{
	struct hplat_snapshot *snap = NULL;
	struct ring_buffer *rb = NULL;
	struct hplat_bpf *skel = NULL;
	char *names = NULL;
	bool kprobes;
	double t_open, t_start, t_last, t_end, t;
	long printed = 0;
	int steps = 0, err;

	err = hplat_parse_opts(argc, argv, &opts);
	if (err)
		return err == HPLAT_OPTS_HELP ? 0 : EXIT_USAGE;
	if (!opts.force && access(HPBRAKE_GUEST_MARKER, F_OK)) {
		fail("refusing to attach outside an hpbrake guest (no %s); "
		     "--force overrides", HPBRAKE_GUEST_MARKER);
		return 1;
	}

	libbpf_set_print(libbpf_print_fn);
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);

	t_open = now_s();
	kprobes = opts.kprobes;
	if (opts.steps) {
		/* libbpf loads it again: only -S pays for a second parse */
		vmlinux_btf = btf__load_vmlinux_btf();
		steps = tp_btf_can_attach("cpuhp_enter") ? 1 : 2;
	}

	skel = start_bpf(kprobes, steps, &err);
	if (!skel && !kprobes) {
		if (opts.verbose)
			fprintf(stderr, "hplat: fentry/fexit failed (%s), "
				"trying kprobes\n", strerror(-err));
		kprobes = true;
		skel = start_bpf(kprobes, steps, &err);
	}
	if (!skel) {
		explain_attach_failure("cpu_subsys_online", err);
		err = 1;
		goto cleanup;
	}
	if (opts.verbose)
		fprintf(stderr, "hplat: attached (%s, steps %s) in %.1f ms\n",
			kprobes ? "kprobe" : "fentry",
			steps == 1 ? "tp_btf" : steps == 2 ? "raw_tp" : "off",
			(now_s() - t_open) * 1000);

	if (opts.trace) {
		rb = ring_buffer__new(bpf_map__fd(skel->maps.events),
				      handle_event, NULL, NULL);
		if (!rb) {
			fail("failed to create ring buffer: %s", strerror(errno));
			err = 1;
			goto cleanup;
		}
	}

	snap = calloc(1, sizeof(*snap));
	if (!snap) {
		fail("out of memory");
		err = 1;
		goto cleanup;
	}
	snap->attach_mode = kprobes ? "kprobe" : "fentry";
	snap->per_cpu = opts.per_cpu;
	snap->linear = opts.linear;
	snap->steps = opts.steps;
	snap->lin_width_us = opts.lin_width_ms * 1000ULL;
	if (opts.steps)
		read_state_names(snap, &names);

	if (opts.json)
		printf("{\"event\": \"attached\", \"attach_mode\": \"%s\", "
		       "\"attach_ms\": %.1f}\n", snap->attach_mode,
		       (now_s() - t_open) * 1000);
	else if (!opts.trace)
		fprintf(stderr, "Tracing CPU hotplug operations (%s)... "
			"Hit Ctrl-C to end.\n", snap->attach_mode);
	else
		printf("%-14s %-7s %-6s %13s  %s\n", "TIME(s)", "OP", "CPU",
		       "LATENCY", "RET");
	fflush(stdout);

	t_start = t_last = now_s();
	t_end = opts.duration_s ? t_start + opts.duration_s : 0;
	err = 0;
	while (!exiting) {
		if (rb) {
			err = ring_buffer__poll(rb, 100);
			if (err < 0 && err != -EINTR) {
				fail("failed to poll ring buffer: %s",
				     strerror(-err));
				err = 1;
				break;
			}
			err = 0;
		} else {
			usleep(100000);
		}
		t = now_s();
		if (t_end && t >= t_end)
			break;
		if (opts.interval_s && t - t_last >= opts.interval_s) {
			if (rb)
				ring_buffer__consume(rb);
			take_snapshot(skel, snap, true);
			snap->interval_s = t - t_last;
			t_last = t;
			if (opts.json)
				hplat_print_json(stdout, snap);
			else
				hplat_print_text(stdout, snap);
			fflush(stdout);
			if (opts.count && ++printed >= opts.count)
				goto cleanup;
		}
	}
	/* The final summary: what is left of the last interval. */
	if (rb)
		ring_buffer__consume(rb);
	take_snapshot(skel, snap, false);
	snap->interval_s = now_s() - t_last;
	if (opts.json)
		hplat_print_json(stdout, snap);
	else
		hplat_print_text(stdout, snap);
	fflush(stdout);

cleanup:
	ring_buffer__free(rb);
	hplat_bpf__destroy(skel);
	btf__free(vmlinux_btf);
	free(names);
	free(snap);
	return err;
}
