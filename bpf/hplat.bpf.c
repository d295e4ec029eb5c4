// SPDX-License-Identifier: GPL-2.0
/*
 * hplat: latency, concurrency and lock contention of CPU hotplug
 * operations, measured at cpu_subsys_online() and cpu_subsys_offline(),
 * with the brake (the cpuhp_brake event) and the cpuhp callbacks
 * (cpuhp_enter, cpuhp_exit) split out.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "hplat.h"

#define READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))

/* Set by the loader between open and load. */
const volatile bool per_cpu = false;		/* -C */
const volatile bool trace_ops = false;		/* -e */
const volatile bool hist_ms = false;		/* -m: log2 histogram in ms */
const volatile unsigned long long lin_width_us = 10000; /* -L width */
const volatile bool filter_cpus = false;	/* --cpus */
const volatile __u64 cpu_mask[HPLAT_CPU_WORDS] = {};
const volatile __u32 filter_tgid = 0;		/* -p */
const volatile bool filter_comm = false;	/* --comm */
const volatile char comm_want[16] = {};

/* An operation in flight, by writer thread. */
struct start {
	unsigned long long ts;
	unsigned long long brake_ns;
	unsigned int cpu;
	unsigned int op;
	unsigned int skip;	/* left out by a filter */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

/* First failed attempt at the device hotplug lock, by writer thread. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} lock_waits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Read by user space straight from the mmap()ed .bss; see hplat.h. */
struct hplat_stats stats[2];
unsigned int gen;
long long busy[2];
long long in_flight;

/* -S: the cpuhp callbacks running for each target CPU, innermost last,
 * while an operation hplat traces is in flight for it (op + 1, else 0).
 */
struct hplat_step_stack step_stacks[HPLAT_MAX_CPUS];

/*
 * Take the current generation's counters: busy[g] up first, then gen
 * read again, so that user space, which flips gen before it waits for
 * busy[old] to drain, never reads a generation a program still adds to.
 * The fetch forms of the atomics are fully ordered on every JIT.
 */
static __always_inline struct hplat_stats *stats_get(unsigned int *gp)
{
	unsigned int g = READ_ONCE(gen) & 1, i;
	long long prev;

	/* gen flips at most once a second: a third try never happens */
	for (i = 0; i < 3; i++) {
		prev = __sync_fetch_and_add(&busy[g], 1);
		barrier_var(prev);
		if ((READ_ONCE(gen) & 1) == g)
			break;
		prev = __sync_fetch_and_add(&busy[g], -1);
		barrier_var(prev);
		g = READ_ONCE(gen) & 1;
	}
	if (i == 3) {
		prev = __sync_fetch_and_add(&busy[g], 1);
		barrier_var(prev);
	}
	*gp = g;
	return &stats[g];
}

static __always_inline void stats_put(unsigned int g)
{
	long long prev = __sync_fetch_and_add(&busy[g & 1], -1);

	barrier_var(prev);
}

static __always_inline void min_max(unsigned long long *min,
				    unsigned long long *max,
				    unsigned long long v)
{
	/* Operations serialise on the device hotplug lock: no CAS needed. */
	if (!*min || v < *min)
		*min = v;
	if (v > *max)
		*max = v;
}

static __always_inline void dist_add(struct hplat_dist *d, unsigned long long ns)
{
	unsigned long long i = hplat_fine_slot(ns / 1000);

	__sync_fetch_and_add(&d->count, 1);
	__sync_fetch_and_add(&d->sum_ns, ns);
	min_max(&d->min_ns, &d->max_ns, ns);
	barrier_var(i);
	if (i < HPLAT_FINE_SLOTS)
		__sync_fetch_and_add(&d->fine[i], 1);
}

/* -p and --comm: is the current writer left out? */
static __always_inline bool task_filtered_out(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	char comm[16];
	int i;

	if (filter_tgid && (__u32)(id >> 32) != filter_tgid)
		return true;
	if (filter_comm) {
		bpf_get_current_comm(comm, sizeof(comm));
		for (i = 0; i < 16; i++) {
			if (comm[i] != comm_want[i])
				return true;
			if (!comm[i])
				break;
		}
	}
	return false;
}

/* ... and --cpus: is this operation left out? */
static __always_inline bool filtered_out(unsigned int cpu)
{
	unsigned long long w = cpu / 64;

	barrier_var(w);
	if (filter_cpus && (w >= HPLAT_CPU_WORDS ||
			    !(cpu_mask[w] & (1ULL << (cpu % 64)))))
		return true;
	return task_filtered_out();
}

static __always_inline int op_enter(struct device *dev, unsigned int op)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct start s = {
		.ts = bpf_ktime_get_ns(),
		.cpu = BPF_CORE_READ(dev, id),
		.op = op,
	};
	unsigned long long cpu = s.cpu, old;
	struct hplat_stats *st;
	long long now_in;
	unsigned int g;

	s.skip = filtered_out(s.cpu);
	if (bpf_map_update_elem(&starts, &tid, &s, BPF_ANY)) {
		st = stats_get(&g);
		__sync_fetch_and_add(&st->start_drops, 1);
		stats_put(g);
		return 0;
	}
	if (s.skip)
		return 0;
	barrier_var(cpu);
	if (cpu < HPLAT_MAX_CPUS) {
		step_stacks[cpu].depth = 0;
		step_stacks[cpu].op = op + 1;
	}
	now_in = __sync_add_and_fetch(&in_flight, 1);
	st = stats_get(&g);
	old = st->max_in_flight;
	if (now_in > 0 && (unsigned long long)now_in > old)
		__sync_val_compare_and_swap(&st->max_in_flight, old, now_in);
	stats_put(g);
	return 0;
}

static __always_inline int op_exit(int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	unsigned long long lat, brake, us, op, cpu, i;
	struct hplat_op_stats *os;
	struct hplat_stats *st;
	struct hplat_event *e;
	struct start *sp, s;
	unsigned int g;

	sp = bpf_map_lookup_elem(&starts, &tid);
	if (!sp) {
		/* entered before hplat attached */
		st = stats_get(&g);
		__sync_fetch_and_add(&st->missed_starts, 1);
		stats_put(g);
		return 0;
	}
	s = *sp;
	bpf_map_delete_elem(&starts, &tid);
	st = stats_get(&g);
	if (s.skip) {
		__sync_fetch_and_add(&st->filtered, 1);
		goto out;
	}
	__sync_fetch_and_add(&in_flight, -1);
	lat = bpf_ktime_get_ns() - s.ts;
	brake = s.brake_ns < lat ? s.brake_ns : lat;
	us = lat / 1000;
	/* bounds the verifier keeps: checked in the register it indexes with */
	op = s.op;
	cpu = s.cpu;
	barrier_var(op);
	if (op >= HPLAT_NR_OPS)
		goto out;
	barrier_var(cpu);
	if (cpu < HPLAT_MAX_CPUS)
		step_stacks[cpu].op = 0;
	os = &st->ops[op];
	dist_add(&os->lat, lat);
	dist_add(&os->own, lat - brake);
	if (s.brake_ns)
		dist_add(&os->brake, brake);
	if (ret) {
		__sync_fetch_and_add(&os->errors, 1);
		i = hplat_errno_slot(ret < 0 ? -(long long)ret : ret);
		barrier_var(i);
		if (i < HPLAT_ERRNO_SLOTS)
			__sync_fetch_and_add(&os->err[i], 1);
	}
	i = hplat_log2_slot(hist_ms ? us / 1000 : us);
	barrier_var(i);
	if (i < HPLAT_LOG2_SLOTS)
		__sync_fetch_and_add(&os->log2[i], 1);
	i = lin_width_us ? us / lin_width_us : 0;
	barrier_var(i);
	if (i >= HPLAT_LIN_SLOTS)
		i = HPLAT_LIN_SLOTS - 1;
	__sync_fetch_and_add(&os->lin[i], 1);

	if (per_cpu && cpu < HPLAT_MAX_CPUS) {
		struct hplat_cpu_stats *cs = &st->cpus[op][cpu];

		__sync_fetch_and_add(&cs->count, 1);
		__sync_fetch_and_add(&cs->sum_ns, lat);
		min_max(&cs->min_ns, &cs->max_ns, lat);
		if (ret)
			__sync_fetch_and_add(&cs->errors, 1);
		i = hplat_log2_slot(hist_ms ? us / 1000 : us);
		barrier_var(i);
		if (i < HPLAT_LOG2_SLOTS)
			__sync_fetch_and_add(&cs->log2[i], 1);
	}

	if (trace_ops) {
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e) {
			__sync_fetch_and_add(&st->dropped_events, 1);
			goto out;
		}
		e->ts_ns = s.ts;
		e->lat_ns = lat;
		e->brake_ns = s.brake_ns;
		e->ret = ret;
		e->cpu = s.cpu;
		e->op = s.op;
		e->pid = tid;
		bpf_get_current_comm(e->comm, sizeof(e->comm));
		bpf_ringbuf_submit(e, 0);
	}
out:
	stats_put(g);
	return 0;
}

SEC("fentry/cpu_subsys_online")
int BPF_PROG(online_entry, struct device *dev)
{
	return op_enter(dev, HPLAT_ONLINE);
}

SEC("fexit/cpu_subsys_online")
int BPF_PROG(online_exit, struct device *dev, int ret)
{
	return op_exit(ret);
}

SEC("fentry/cpu_subsys_offline")
int BPF_PROG(offline_entry, struct device *dev)
{
	return op_enter(dev, HPLAT_OFFLINE);
}

SEC("fexit/cpu_subsys_offline")
int BPF_PROG(offline_exit, struct device *dev, int ret)
{
	return op_exit(ret);
}

SEC("kprobe/cpu_subsys_online")
int BPF_KPROBE(online_kprobe, struct device *dev)
{
	return op_enter(dev, HPLAT_ONLINE);
}

SEC("kretprobe/cpu_subsys_online")
int BPF_KRETPROBE(online_kretprobe, int ret)
{
	return op_exit(ret);
}

SEC("kprobe/cpu_subsys_offline")
int BPF_KPROBE(offline_kprobe, struct device *dev)
{
	return op_enter(dev, HPLAT_OFFLINE);
}

SEC("kretprobe/cpu_subsys_offline")
int BPF_KRETPROBE(offline_kretprobe, int ret)
{
	return op_exit(ret);
}

/* The brake of the operation this writer has in flight (the event is
 * emitted in the writer's context, inside cpu_subsys_online/offline()).
 */
static __always_inline int brake_end(unsigned long long slept_ns)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct start *sp;

	sp = bpf_map_lookup_elem(&starts, &tid);
	if (sp)
		sp->brake_ns = slept_ns;
	return 0;
}

SEC("tp_btf/cpuhp_brake")
int BPF_PROG(cpuhp_brake_btf, unsigned int cpu, bool online,
	     unsigned int brake_ms, u64 slept_ns, int ret)
{
	return brake_end(slept_ns);
}

SEC("raw_tp/cpuhp_brake")
int BPF_PROG(cpuhp_brake_raw, unsigned int cpu, bool online,
	     unsigned int brake_ms, u64 slept_ns, int ret)
{
	return brake_end(slept_ns);
}

/*
 * lock_device_hotplug_sysfs() either takes device_hotplug_lock or sleeps
 * 5 ms and returns -ERESTARTSYS, so that the writer restarts its write.
 * Count the restarts and the time from a writer's first failed attempt to
 * the one that gets the lock.
 */
static __always_inline int lock_exit(int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	unsigned long long now = bpf_ktime_get_ns();
	struct hplat_stats *st;
	unsigned int g;
	__u64 *first;

	/* which CPU the writer wants is not known yet: --cpus cannot apply */
	if (task_filtered_out())
		return 0;
	first = bpf_map_lookup_elem(&lock_waits, &tid);
	if (ret) {
		st = stats_get(&g);
		__sync_fetch_and_add(&st->lock_restarts, 1);
		stats_put(g);
		if (!first)
			bpf_map_update_elem(&lock_waits, &tid, &now, BPF_ANY);
		return 0;
	}
	if (first) {
		st = stats_get(&g);
		__sync_fetch_and_add(&st->lock_wait_ns, now - *first);
		__sync_fetch_and_add(&st->lock_waits_done, 1);
		stats_put(g);
		bpf_map_delete_elem(&lock_waits, &tid);
	}
	return 0;
}

SEC("fexit/lock_device_hotplug_sysfs")
int BPF_PROG(lock_fexit, int ret)
{
	return lock_exit(ret);
}

SEC("kretprobe/lock_device_hotplug_sysfs")
int BPF_KRETPROBE(lock_kretprobe, int ret)
{
	return lock_exit(ret);
}

/* A writer that dies while it waits for the lock (only a fatal signal
 * ends that wait) leaves an entry whose thread id may come back: drop it.
 */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(task_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&lock_waits, &tid);
	return 0;
}

/* -S: time per cpuhp state callback of traced operations, nested. */
static __always_inline int step_enter(unsigned long long cpu, int idx)
{
	struct hplat_step_stack *sk;
	unsigned long long d;
	struct hplat_stats *st;
	unsigned int g;

	barrier_var(cpu);
	if (cpu >= HPLAT_MAX_CPUS)
		return 0;
	sk = &step_stacks[cpu];
	if (!sk->op)
		return 0;
	d = sk->depth;
	barrier_var(d);
	if (d >= HPLAT_STEP_DEPTH) {
		st = stats_get(&g);
		if (sk->op <= HPLAT_NR_OPS)
			__sync_fetch_and_add(&st->ops[(sk->op - 1) & 1].step_overflows, 1);
		stats_put(g);
		return 0;
	}
	sk->f[d].ts = bpf_ktime_get_ns();
	sk->f[d].child_ns = 0;
	sk->f[d].idx = idx;
	sk->depth = d + 1;
	return 0;
}

static __always_inline int step_exit(unsigned long long cpu, long long idx)
{
	unsigned long long d, op, incl, excl, now = bpf_ktime_get_ns();
	struct hplat_step_stats *ss;
	struct hplat_step_stack *sk;
	struct hplat_stats *st;
	unsigned int g;

	barrier_var(cpu);
	if (cpu >= HPLAT_MAX_CPUS)
		return 0;
	sk = &step_stacks[cpu];
	op = sk->op;
	d = sk->depth;
	barrier_var(d);
	if (!op || !d)
		return 0;
	d--;
	barrier_var(d);
	if (d >= HPLAT_STEP_DEPTH || sk->f[d].idx != idx)
		return 0;
	sk->depth = d;
	incl = now - sk->f[d].ts;
	excl = incl > sk->f[d].child_ns ? incl - sk->f[d].child_ns : 0;
	if (d && d - 1 < HPLAT_STEP_DEPTH)
		sk->f[d - 1].child_ns += incl;
	op--;
	barrier_var(op);
	barrier_var(idx);
	if (op >= HPLAT_NR_OPS || idx < 0 || idx >= HPLAT_MAX_STATES)
		return 0;
	st = stats_get(&g);
	if (!d)
		__sync_fetch_and_add(&st->ops[op].steps_ns, incl);
	ss = &st->steps[op][idx];
	__sync_fetch_and_add(&ss->count, 1);
	__sync_fetch_and_add(&ss->incl_ns, incl);
	__sync_fetch_and_add(&ss->excl_ns, excl);
	if (incl > ss->max_ns)
		ss->max_ns = incl;
	ss->depth = d + 1;
	stats_put(g);
	return 0;
}

SEC("tp_btf/cpuhp_enter")
int BPF_PROG(cpuhp_enter_btf, unsigned int cpu, int target, int idx)
{
	return step_enter(cpu, idx);
}

SEC("tp_btf/cpuhp_multi_enter")
int BPF_PROG(cpuhp_multi_enter_btf, unsigned int cpu, int target, int idx)
{
	return step_enter(cpu, idx);
}

SEC("tp_btf/cpuhp_exit")
int BPF_PROG(cpuhp_exit_btf, unsigned int cpu, int state, int idx)
{
	return step_exit(cpu, idx);
}

SEC("raw_tp/cpuhp_enter")
int BPF_PROG(cpuhp_enter_raw, unsigned int cpu, int target, int idx)
{
	return step_enter(cpu, idx);
}

SEC("raw_tp/cpuhp_multi_enter")
int BPF_PROG(cpuhp_multi_enter_raw, unsigned int cpu, int target, int idx)
{
	return step_enter(cpu, idx);
}

SEC("raw_tp/cpuhp_exit")
int BPF_PROG(cpuhp_exit_raw, unsigned int cpu, int state, int idx)
{
	return step_exit(cpu, idx);
}

char LICENSE[] SEC("license") = "GPL";
