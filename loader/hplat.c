// SPDX-License-Identifier: GPL-2.0
/*
 * hplat: latency histograms, concurrency, lock contention and per-step
 * breakdown of CPU hotplug operations (cpu_subsys_online/offline), with
 * the brake (the cpuhp_brake event) split out.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "hplat.h"
#include "hpop.h"
#include "hplat.skel.h"
#include "hplat_kprobe.h"
#include "hplat_opts.h"
#include "hplat_report.h"

#define EXIT_USAGE 64
#define SYS_BTF "/sys/kernel/btf/vmlinux"
#define STAGE_LOAD "failed to load the BPF programs"
/* the kernel's bound on a kretprobe's instances (KRETPROBE_MAXACTIVE_MAX) */
#define MAXACTIVE_MAX 4096

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

/* The BPF object as loaded, and what it is attached with. */
struct tracer {
	struct hplat_bpf *skel;
	struct hplat_kretprobe kret[3];
	bool kprobes;
	int steps;	/* 0 off, 1 tp_btf, 2 raw_tp */
	int brake;	/* 0 no event, 1 tp_btf, 2 raw_tp */
};

static struct btf *vmlinux_btf;

static bool btf_has(const char *name, int kind)
{
	return vmlinux_btf && btf__find_by_name_kind(vmlinux_btf, name, kind) > 0;
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

/*
 * Does the kernel have a tracepoint, and how can hplat attach to it: 1
 * tp_btf (its BTF has btf_trace_NAME and the kernel's own BTF is there),
 * 2 raw_tp (the tracepoint exists), 0 not at all.
 */
static int tracepoint_mode(const char *tp)
{
	char name[96];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	if (!access(SYS_BTF, R_OK) && btf_has(name, BTF_KIND_TYPEDEF))
		return 1;
	snprintf(name, sizeof(name), "__tracepoint_%s", tp);
	return kallsyms_has(name) ? 2 : 0;
}

/* Does this process have CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN? */
static bool have_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };
	unsigned long long eff;

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
	eff = data[0].effective | (unsigned long long)data[1].effective << 32;
	return (eff >> 21 & 1) ||			/* CAP_SYS_ADMIN */
	       ((eff >> 39 & 1) && (eff >> 38 & 1));	/* CAP_BPF, CAP_PERFMON */
}

/* strerror() for the kernel's own codes too (ENOTSUPP is 524). */
static const char *errstr(int err)
{
	const char *name = err >= 512 ? hplat_errno_name(err) : NULL;

	return name ? name : strerror(err);
}

/* Does the kernel take BPF atomics with fetch (Linux 5.12)? A tiny
 * socket filter that does one atomic_fetch_add on its stack.
 */
static bool kernel_has_atomics(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1 },
		{ .code = BPF_STX | BPF_DW | BPF_MEM, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "hplat_probe", "GPL",
			   insns, sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Say what is missing when loading or attaching failed. */
static void explain_failure(const char *what, int err, bool loading)
{
	if (err == -EPERM && !have_caps())
		fail("%s: %s: run as root or with CAP_BPF and CAP_PERFMON "
		     "(or CAP_SYS_ADMIN)", what, strerror(-err));
	else if (err == -EPERM)
		fail("%s: %s (as root: kernel lockdown, or "
		     "kernel.unprivileged_bpf_disabled with a seccomp filter?)",
		     what, strerror(-err));
	else if (access(SYS_BTF, R_OK) && !opts.btf_path)
		fail("%s: %s: the kernel has no BTF (%s); enable "
		     "CONFIG_DEBUG_INFO_BTF or give --btf FILE", what,
		     strerror(-err), SYS_BTF);
	else if (!kallsyms_has("cpu_subsys_online"))
		fail("%s: %s: cpu_subsys_online is absent or inlined in this "
		     "kernel (not in /proc/kallsyms)", what, strerror(-err));
	else if (loading && (err == -EINVAL || err == -EACCES) &&
		 !kernel_has_atomics())
		fail("%s: %s: this kernel has no BPF atomics; hplat needs "
		     "Linux 5.12 or later", what, strerror(-err));
	else if (loading && (err == -EINVAL || err == -EACCES || err == -E2BIG))
		fail("%s: %s: the verifier rejected a program; run with -v "
		     "for its log", what, strerror(-err));
	else
		fail("%s: %s", what, errstr(-err));
}

static void read_state_names(struct hplat_snapshot *s, char **store)
{
	char line[160], name[128];
	int idx;
	FILE *f;

	*store = NULL;
	f = fopen("/sys/devices/system/cpu/hotplug/states", "r");
	if (!f)
		return;
	*store = calloc(HPLAT_MAX_STATES, sizeof(name));
	while (*store && fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %d: %127[^\n]", &idx, name) != 2 ||
		    idx < 0 || idx >= HPLAT_MAX_STATES)
			continue;
		memcpy(*store + idx * sizeof(name), name, sizeof(name));
		s->state_names[idx] = *store + idx * sizeof(name);
	}
	fclose(f);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct hplat_event *e = data;
	const char *name, *op;
	char buf[16];

	(void)ctx;
	if (size < sizeof(*e))
		return 0;
	name = e->ret ? hplat_errno_label(hplat_errno_slot(-(long long)e->ret),
					  buf, sizeof(buf)) : "";
	op = hplat_op_names[e->op < HPLAT_NR_OPS ? e->op : 0];
	if (opts.json) {
		printf("{\"event\": \"op\", \"ts_us\": %llu, \"op\": \"%s\", "
		       "\"cpu\": %u, \"latency_us\": %.1f, \"brake_us\": %.1f, "
		       "\"ret\": %d, \"pid\": %u, \"tid\": %u, \"comm\": ",
		       e->ts_ns / 1000, op, e->cpu, e->lat_ns / 1e3,
		       e->brake_ns / 1e3, e->ret, e->pid, e->tid);
		hplat_json_string(stdout, e->comm);
		printf("}\n");
	} else {
		printf("%-14.6f %-7s cpu%-3u %10.2f %10.2f  %4d %-8s %s[%u]\n",
		       e->ts_ns / 1e9, op, e->cpu, e->lat_ns / 1e6,
		       e->brake_ns / 1e6, e->ret, name, e->comm, e->pid);
	}
	return 0;
}

static void choose_programs(struct tracer *t)
{
	struct hplat_bpf *skel = t->skel;
	struct bpf_program *fentry[] = {
		skel->progs.online_entry, skel->progs.online_exit,
		skel->progs.offline_entry, skel->progs.offline_exit,
		skel->progs.lock_fentry, skel->progs.lock_fexit,
	};
	struct bpf_program *kp[] = {
		skel->progs.online_kprobe, skel->progs.online_kretprobe,
		skel->progs.offline_kprobe, skel->progs.offline_kretprobe,
		skel->progs.lock_kprobe, skel->progs.lock_kretprobe,
	};
	size_t i;

	for (i = 0; i < sizeof(fentry) / sizeof(fentry[0]); i++) {
		bpf_program__set_autoload(fentry[i], !t->kprobes);
		bpf_program__set_autoload(kp[i], t->kprobes);
	}
	bpf_program__set_autoload(skel->progs.cpuhp_enter_btf, t->steps == 1);
	bpf_program__set_autoload(skel->progs.cpuhp_multi_enter_btf, t->steps == 1);
	bpf_program__set_autoload(skel->progs.cpuhp_exit_btf, t->steps == 1);
	bpf_program__set_autoload(skel->progs.cpuhp_enter_raw, t->steps == 2);
	bpf_program__set_autoload(skel->progs.cpuhp_multi_enter_raw, t->steps == 2);
	bpf_program__set_autoload(skel->progs.cpuhp_exit_raw, t->steps == 2);
	bpf_program__set_autoload(skel->progs.cpuhp_brake_btf, t->brake == 1);
	bpf_program__set_autoload(skel->progs.cpuhp_brake_raw, t->brake == 2);
}

static void set_rodata(struct hplat_bpf *skel)
{
	int i;

	skel->rodata->per_cpu = opts.per_cpu;
	skel->rodata->steps_on = opts.steps;
	skel->rodata->trace_ops = opts.events;
	skel->rodata->hist_ms = !opts.usecs;
	skel->rodata->lin_width_us = opts.lin_width_ms * 1000ULL;
	skel->rodata->filter_tgid = opts.pid;
	if (opts.nr_cpus) {
		skel->rodata->filter_cpus = true;
		for (i = 0; i < CPULIST_MAX && i < HPLAT_CPU_WORDS * 64; i++)
			if (opts.cpus[i])
				skel->rodata->cpu_mask[i / 64] |= 1ULL << (i % 64);
	}
	if (opts.comm) {
		skel->rodata->filter_comm = true;
		strncpy((char *)skel->rodata->comm_want, opts.comm,
			sizeof(skel->rodata->comm_want) - 1);
	}
}

/* Attach one program into *link; 0 or -errno. */
static int attach(struct bpf_program *prog, struct bpf_link **link)
{
	*link = bpf_program__attach(prog);
	return *link ? 0 : -errno;
}

/*
 * Attach every exit before any entry: an operation that enters while the
 * tracer is being attached is then never seen entering without being
 * seen leaving (it counts as an exit without entry), so in_flight cannot
 * stay one too high. kretprobes go through tracefs, with room for the
 * writers of -w at once.
 */
static int attach_all(struct tracer *t, const char **what)
{
	struct hplat_bpf *s = t->skel;
	struct bpf_program *later[] = {
		s->progs.cpuhp_brake_btf, s->progs.cpuhp_brake_raw,
		s->progs.cpuhp_enter_btf, s->progs.cpuhp_multi_enter_btf,
		s->progs.cpuhp_exit_btf, s->progs.cpuhp_enter_raw,
		s->progs.cpuhp_multi_enter_raw, s->progs.cpuhp_exit_raw,
		s->progs.task_exit,
	};
	struct bpf_link **later_links[] = {
		&s->links.cpuhp_brake_btf, &s->links.cpuhp_brake_raw,
		&s->links.cpuhp_enter_btf, &s->links.cpuhp_multi_enter_btf,
		&s->links.cpuhp_exit_btf, &s->links.cpuhp_enter_raw,
		&s->links.cpuhp_multi_enter_raw, &s->links.cpuhp_exit_raw,
		&s->links.task_exit,
	};
	int maxactive = opts.writers + libbpf_num_possible_cpus();
	size_t i;
	int err;

	if (t->kprobes && maxactive > MAXACTIVE_MAX) {
		fprintf(stderr, "hplat: kretprobes hold at most %d writers at "
			"once, not %d: more are counted as kprobe misses\n",
			MAXACTIVE_MAX, maxactive);
		maxactive = MAXACTIVE_MAX;
	}
	if (t->kprobes) {
		*what = "kretprobe/cpu_subsys_online";
		err = hplat_kretprobe_attach(s->progs.online_kretprobe,
					     "cpu_subsys_online", maxactive, &t->kret[0]);
		if (!err) {
			*what = "kretprobe/cpu_subsys_offline";
			err = hplat_kretprobe_attach(s->progs.offline_kretprobe,
						     "cpu_subsys_offline", maxactive,
						     &t->kret[1]);
		}
		if (!err) {
			*what = "kretprobe/lock_device_hotplug_sysfs";
			err = hplat_kretprobe_attach(s->progs.lock_kretprobe,
						     "lock_device_hotplug_sysfs",
						     maxactive, &t->kret[2]);
		}
	} else {
		*what = "fexit/cpu_subsys_online";
		err = attach(s->progs.online_exit, &s->links.online_exit);
		if (!err) {
			*what = "fexit/cpu_subsys_offline";
			err = attach(s->progs.offline_exit, &s->links.offline_exit);
		}
		if (!err) {
			*what = "fexit/lock_device_hotplug_sysfs";
			err = attach(s->progs.lock_fexit, &s->links.lock_fexit);
		}
	}
	for (i = 0; !err && i < sizeof(later) / sizeof(later[0]); i++) {
		if (!bpf_program__autoload(later[i]))
			continue;
		*what = bpf_program__section_name(later[i]);
		err = attach(later[i], later_links[i]);
	}
	if (err)
		return err;
	if (opts.pause_ms) {
		struct timespec d = {
			.tv_sec = opts.pause_ms / 1000,
			.tv_nsec = opts.pause_ms % 1000 * 1000000L,
		};

		fprintf(stderr, "hplat: test: exits attached, entries in %ld ms\n",
			opts.pause_ms);
		nanosleep(&d, NULL);
	}
	if (t->kprobes) {
		*what = "kprobe/cpu_subsys_online";
		err = attach(s->progs.online_kprobe, &s->links.online_kprobe);
		if (!err) {
			*what = "kprobe/cpu_subsys_offline";
			err = attach(s->progs.offline_kprobe, &s->links.offline_kprobe);
		}
		if (!err) {
			*what = "kprobe/lock_device_hotplug_sysfs";
			err = attach(s->progs.lock_kprobe, &s->links.lock_kprobe);
		}
	} else {
		*what = "fentry/cpu_subsys_online";
		err = attach(s->progs.online_entry, &s->links.online_entry);
		if (!err) {
			*what = "fentry/cpu_subsys_offline";
			err = attach(s->progs.offline_entry, &s->links.offline_entry);
		}
		if (!err) {
			*what = "fentry/lock_device_hotplug_sysfs";
			err = attach(s->progs.lock_fentry, &s->links.lock_fentry);
		}
	}
	return err;
}

static void stop_bpf(struct tracer *t)
{
	size_t i;

	/* the tracefs kretprobes go first: their events are removed after */
	for (i = 0; i < sizeof(t->kret) / sizeof(t->kret[0]); i++)
		hplat_kretprobe_detach(&t->kret[i]);
	hplat_bpf__destroy(t->skel);
	t->skel = NULL;
}

/*
 * Open, configure, load and attach in one mode. Attaching the real
 * programs is the exact probe of fentry: no test program is attached and
 * torn down first (each teardown of a trampoline waits for an RCU-tasks
 * grace period, about 90 ms under TCG). *stage says what failed.
 */
static int start_bpf(struct tracer *t, const char **stage)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .btf_custom_path = opts.btf_path);
	int err;

	*stage = "failed to open the BPF object";
	t->skel = hplat_bpf__open_opts(&oopts);
	if (!t->skel)
		return -errno;
	set_rodata(t->skel);
	choose_programs(t);
	if (opts.ring_kb) {
		err = bpf_map__set_max_entries(t->skel->maps.events,
					       opts.ring_kb * 1024);
		if (err)
			goto fail;
	}
	/* room for every writer of -w to wait for the lock at once */
	if (opts.writers > 512) {
		err = bpf_map__set_max_entries(t->skel->maps.lock_waits,
					       2 * opts.writers);
		if (err)
			goto fail;
	}
	*stage = STAGE_LOAD;
	err = hplat_bpf__load(t->skel);
	if (err)
		goto fail;
	err = attach_all(t, stage);
	if (err)
		goto fail;
	return 0;
fail:
	stop_bpf(t);
	return err;
}

/* The kernel's bpf_prog_info of a loaded program; -1 if it has none. */
static int prog_info(const struct bpf_program *prog, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	if (bpf_program__fd(prog) < 0)
		return -1;
	return bpf_obj_get_info_by_fd(bpf_program__fd(prog), info, &len) ? -1 : 0;
}

/* Misses of the kretprobes (-1ULL: unknown) and of the BPF programs. */
static void count_misses(const struct tracer *t, struct hplat_snapshot *s)
{
	struct bpf_program *prog;
	struct bpf_prog_info info;
	size_t i;
	long long m;

	s->kprobe_misses = t->kprobes ? 0 : -1ULL;
	for (i = 0; t->kprobes && i < sizeof(t->kret) / sizeof(t->kret[0]); i++) {
		m = hplat_kretprobe_misses(&t->kret[i]);
		if (m < 0) {
			s->kprobe_misses = -1ULL;
			break;
		}
		s->kprobe_misses += m;
	}
	s->bpf_misses = 0;
	bpf_object__for_each_program(prog, t->skel->obj) {
		if (!prog_info(prog, &info))
			s->bpf_misses += info.recursion_misses;
	}
}

/*
 * -v: what the verifier walked for each loaded program; "?" where the
 * kernel does not say (before Linux 5.16) or the information is missing.
 */
static void print_verified(const struct tracer *t)
{
	struct bpf_program *prog;
	struct bpf_prog_info info;

	fprintf(stderr, "hplat: instructions the verifier walked:");
	bpf_object__for_each_program(prog, t->skel->obj) {
		if (bpf_program__fd(prog) < 0)
			continue;	/* not loaded: not chosen for this run */
		if (!prog_info(prog, &info) && info.verified_insns)
			fprintf(stderr, " %s %u", bpf_program__name(prog),
				info.verified_insns);
		else
			fprintf(stderr, " %s ?", bpf_program__name(prog));
	}
	fputc('\n', stderr);
}

/* -v: what each program cost, from kernel.bpf_stats (run_time_ns). */
static void print_bpf_cost(const struct tracer *t, unsigned long long ops,
			   double mean_op_us)
{
	unsigned long long ns = 0;
	struct bpf_program *prog;
	struct bpf_prog_info info;
	bool first = true;

	if (opts.json)
		printf("{\"event\": \"bpf_stats\", \"ops\": %llu, \"programs\": {",
		       ops);
	else
		fprintf(stderr, "hplat: BPF run time (kernel.bpf_stats):\n");
	bpf_object__for_each_program(prog, t->skel->obj) {
		if (prog_info(prog, &info))
			continue;
		if (opts.json)
			printf("%s\"%s\": {\"run_cnt\": %llu, \"run_time_ns\": %llu}",
			       first ? "" : ", ", bpf_program__name(prog),
			       (unsigned long long)info.run_cnt,
			       (unsigned long long)info.run_time_ns);
		else
			fprintf(stderr, "  %-24s %8llu runs %12llu ns\n",
				bpf_program__name(prog),
				(unsigned long long)info.run_cnt,
				(unsigned long long)info.run_time_ns);
		ns += info.run_time_ns;
		first = false;
	}
	if (opts.json) {
		printf("}, \"run_time_ns\": %llu, \"ns_per_op\": %.1f, "
		       "\"mean_op_us\": %.1f}\n", ns, ops ? (double)ns / ops : 0,
		       mean_op_us);
	} else {
		fprintf(stderr, "  total %llu ns over %llu ops: %.0f ns per op",
			ns, ops, ops ? (double)ns / ops : 0);
		if (ops && mean_op_us > 0)
			fprintf(stderr, ", %.4f%% of the mean op (%.1f ms)",
				100.0 * ns / ops / (mean_op_us * 1e3),
				mean_op_us / 1e3);
		fprintf(stderr, "\n");
	}
}

static void set_wall(struct hplat_snapshot *s, char *hms, char *iso)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(hms, 16, "%H:%M:%S", &tm);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(iso, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(iso + strlen(iso), 32 - strlen(iso), ".%03ldZ",
		 ts.tv_nsec / 1000000);
	s->wall = hms;
	s->wall_iso = iso;
}

/* One summary: take the counters of the interval that ends now. */
static void summary(struct tracer *t, struct hplat_snapshot *s, double secs)
{
	struct hplat_bpf__bss *bss = t->skel->bss;
	char hms[16], iso[32];

	if (hplat_stats_take(bss->stats, &bss->gen, bss->busy, &bss->in_flight,
			     &s->st, 1000000))
		fprintf(stderr, "hplat: a BPF program held its counters for "
			"more than a second; this summary may miss some\n");
	s->lost_updates = __atomic_load_n(&bss->lost_updates, __ATOMIC_RELAXED);
	s->interval_s = secs;
	count_misses(t, s);
	set_wall(s, hms, iso);
	if (opts.json)
		hplat_print_json(stdout, s);
	else
		hplat_print_text(stdout, s);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct tracer t = { 0 };
	struct hplat_snapshot *snap = NULL;
	struct ring_buffer *rb = NULL;
	unsigned long long total_ops = 0, total_ns = 0;
	const char *stage = "";
	char *names = NULL;
	double t_open, t_last, t_end, t_now;
	long printed = 0;
	int err, stats_fd = -1, op;

	err = hplat_parse_opts(argc, argv, &opts);
	if (err)
		return err == HPLAT_OPTS_HELP ? 0 : EXIT_USAGE;
	if (!opts.force && access(HPBRAKE_GUEST_MARKER, F_OK)) {
		fail("refusing to attach outside an hpbrake guest (no %s); "
		     "--force overrides", HPBRAKE_GUEST_MARKER);
		return 1;
	}
	if (opts.btf_path && access(opts.btf_path, R_OK)) {
		fail("cannot read BTF file %s: %s", opts.btf_path, strerror(errno));
		return 1;
	}

	libbpf_set_print(libbpf_print_fn);
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);

	t_open = now_s();
	vmlinux_btf = opts.btf_path ? btf__parse(opts.btf_path, NULL) :
				      btf__load_vmlinux_btf();
	if (opts.btf_path && !vmlinux_btf) {
		fail("cannot parse BTF file %s: %s", opts.btf_path, strerror(errno));
		return 1;
	}
	/* fentry and tp_btf need the running kernel's own BTF */
	t.kprobes = opts.kprobes || access(SYS_BTF, R_OK);
	t.steps = opts.steps ? tracepoint_mode("cpuhp_enter") : 0;
	if (opts.steps && !t.steps) {
		fail("-S: this kernel has no cpuhp_enter tracepoint");
		err = 1;
		goto cleanup;
	}
	t.brake = tracepoint_mode("cpuhp_brake");
	if (t.kprobes && t.steps == 1)
		t.steps = 2;
	if (t.kprobes && t.brake == 1)
		t.brake = 2;
	if (t.kprobes)
		hplat_kprobe_remove_stale();
	if (opts.verbose) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0)
			fprintf(stderr, "hplat: cannot enable kernel.bpf_stats: %s\n",
				strerror(errno));
	}

	err = start_bpf(&t, &stage);
	/*
	 * Fall back to kprobes only where fentry itself is what failed: an
	 * fexit/fentry attach, or a load that found no BTF target for it.
	 * A privilege error or a program the verifier rejects would fail the
	 * same way with kprobes, and its message would then mislead.
	 */
	if (err && !t.kprobes &&
	    (!strncmp(stage, "fentry/", 7) || !strncmp(stage, "fexit/", 6) ||
	     err == -ESRCH || err == -ENOENT || err == -EOPNOTSUPP ||
	     err == -524 /* ENOTSUPP */)) {
		fprintf(stderr, "hplat: fentry/fexit: %s: %s; trying kprobes\n",
			stage, errstr(-err));
		t.kprobes = true;
		if (t.steps == 1)
			t.steps = 2;
		if (t.brake == 1)
			t.brake = 2;
		hplat_kprobe_remove_stale();
		err = start_bpf(&t, &stage);
	}
	if (err) {
		explain_failure(stage, err, !strcmp(stage, STAGE_LOAD));
		err = 1;
		goto cleanup;
	}
	if (!t.brake)
		fprintf(stderr, "hplat: this kernel has no cpuhp_brake event: "
			"latencies include any brake\n");
	if (opts.verbose) {
		fprintf(stderr, "hplat: attached (%s, steps %s, brake %s) in %.1f ms\n",
			t.kprobes ? "kprobe" : "fentry",
			t.steps == 1 ? "tp_btf" : t.steps == 2 ? "raw_tp" : "off",
			t.brake == 1 ? "tp_btf" : t.brake == 2 ? "raw_tp" : "none",
			(now_s() - t_open) * 1000);
		print_verified(&t);
	}

	if (opts.events) {
		rb = ring_buffer__new(bpf_map__fd(t.skel->maps.events),
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
	snap->attach_mode = t.kprobes ? "kprobe" : "fentry";
	snap->per_cpu = opts.per_cpu;
	snap->linear = opts.linear;
	snap->steps = opts.steps;
	snap->usecs = opts.usecs;
	snap->timestamp = opts.timestamp;
	snap->brake_event = t.brake != 0;
	snap->lin_width_us = opts.lin_width_ms * 1000ULL;
	if (opts.steps)
		read_state_names(snap, &names);

	if (opts.json)
		printf("{\"event\": \"attached\", \"attach_mode\": \"%s\", "
		       "\"brake_event\": %s, \"attach_ms\": %.1f}\n",
		       snap->attach_mode, t.brake ? "true" : "false",
		       (now_s() - t_open) * 1000);
	else if (!opts.events)
		fprintf(stderr, "Tracing CPU hotplug operations (%s)... "
			"Hit Ctrl-C to end.\n", snap->attach_mode);
	else
		printf("%-14s %-7s %-6s %10s %10s  %s\n", "TIME(s)", "OP", "CPU",
		       "LAT(ms)", "BRAKE(ms)", "RET");
	fflush(stdout);

	t_last = now_s();
	t_end = opts.duration_s ? t_last + opts.duration_s : 0;
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
			/* each event as it comes, also into a pipe or a file */
			if (err > 0)
				fflush(stdout);
			err = 0;
		} else {
			usleep(100000);
		}
		t_now = now_s();
		if (t_end && t_now >= t_end)
			break;
		if (opts.interval_s && t_now - t_last >= opts.interval_s) {
			if (rb)
				ring_buffer__consume(rb);
			summary(&t, snap, t_now - t_last);
			t_last = t_now;
			for (op = 0; op < HPLAT_NR_OPS; op++) {
				total_ops += snap->st.ops[op].lat.count;
				total_ns += snap->st.ops[op].lat.sum_ns;
			}
			if (opts.count && ++printed >= opts.count)
				goto done;
		}
	}
	/* The final summary: what is left of the last interval. */
	if (rb)
		ring_buffer__consume(rb);
	summary(&t, snap, now_s() - t_last);
	for (op = 0; op < HPLAT_NR_OPS; op++) {
		total_ops += snap->st.ops[op].lat.count;
		total_ns += snap->st.ops[op].lat.sum_ns;
	}
done:
	if (opts.verbose && stats_fd >= 0)
		print_bpf_cost(&t, total_ops, total_ops ? total_ns / 1e3 / total_ops : 0);
	fflush(stdout);

cleanup:
	ring_buffer__free(rb);
	if (t.skel)
		stop_bpf(&t);
	if (stats_fd >= 0)
		close(stats_fd);
	btf__free(vmlinux_btf);
	free(names);
	free(snap);
	return err;
}
