// SPDX-License-Identifier: GPL-2.0
/*
 * hplat: latency, concurrency and lock contention of CPU hotplug
 * operations, measured at cpu_subsys_online() and cpu_subsys_offline().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "hplat.h"

/* Set by the loader between open and load. */
const volatile bool per_cpu = false;		/* -C */
const volatile bool trace_ops = false;		/* -T */
const volatile unsigned long long lin_width_us = 100000; /* -L width */

/* An operation in flight, by writer thread. */
struct start {
	unsigned long long ts;
	unsigned int cpu;
	unsigned int op;
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

/* Read by user space straight from the mmap()ed .bss. */
struct hplat_op_stats op_stats[HPLAT_NR_OPS];
struct hplat_cpu_stats cpu_stats[HPLAT_NR_OPS][HPLAT_MAX_CPUS];
struct hplat_state_stats state_stats[HPLAT_NR_OPS][HPLAT_MAX_STATES];
long long in_flight;
unsigned long long max_in_flight;
unsigned long long lock_restarts;
unsigned long long lock_wait_ns;
unsigned long long lock_waits_done;
unsigned long long dropped_events;
unsigned long long missed_starts;

/* -S: the cpuhp callback running on each target CPU, and the operation
 * type that target is going through.
 */
struct hplat_state_start state_starts[HPLAT_MAX_CPUS];
unsigned int cpu_op[HPLAT_MAX_CPUS];

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

static __always_inline int op_enter(struct device *dev, unsigned int op)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct start s = {
		.ts = bpf_ktime_get_ns(),
		.cpu = BPF_CORE_READ(dev, id),
		.op = op,
	};
	long long now_in;
	unsigned long long old;

	unsigned long long cpu = s.cpu;

	bpf_map_update_elem(&starts, &tid, &s, BPF_ANY);
	barrier_var(cpu);
	if (cpu < HPLAT_MAX_CPUS)
		cpu_op[cpu] = op;
	now_in = __sync_add_and_fetch(&in_flight, 1);
	old = max_in_flight;
	if (now_in > 0 && (unsigned long long)now_in > old)
		__sync_val_compare_and_swap(&max_in_flight, old, now_in);
	return 0;
}

static __always_inline int op_exit(int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	unsigned long long lat, us, op, cpu;
	struct hplat_op_stats *st;
	struct hplat_event *e;
	struct start *sp, s;
	unsigned long long i;

	sp = bpf_map_lookup_elem(&starts, &tid);
	if (!sp) {
		/* entered before we attached */
		__sync_fetch_and_add(&missed_starts, 1);
		return 0;
	}
	s = *sp;
	bpf_map_delete_elem(&starts, &tid);
	__sync_fetch_and_add(&in_flight, -1);
	lat = bpf_ktime_get_ns() - s.ts;
	us = lat / 1000;
	/* bounds the verifier keeps: checked in the register it indexes with */
	op = s.op;
	cpu = s.cpu;
	barrier_var(op);
	if (op >= HPLAT_NR_OPS)
		return 0;
	barrier_var(cpu);
	st = &op_stats[op];
	__sync_fetch_and_add(&st->count, 1);
	__sync_fetch_and_add(&st->sum_ns, lat);
	min_max(&st->min_ns, &st->max_ns, lat);
	if (ret) {
		__sync_fetch_and_add(&st->errors, 1);
		i = ret < 0 ? -(long long)ret : ret;
		barrier_var(i);
		if (i >= HPLAT_MAX_ERRNO)
			i = HPLAT_MAX_ERRNO - 1;
		__sync_fetch_and_add(&st->err[i], 1);
	}
	i = hplat_log2_slot(us);
	barrier_var(i);
	if (i < HPLAT_LOG2_SLOTS)
		__sync_fetch_and_add(&st->log2[i], 1);
	i = hplat_fine_slot(us);
	barrier_var(i);
	if (i < HPLAT_FINE_SLOTS)
		__sync_fetch_and_add(&st->fine[i], 1);
	i = lin_width_us ? us / lin_width_us : 0;
	barrier_var(i);
	if (i >= HPLAT_LIN_SLOTS)
		i = HPLAT_LIN_SLOTS - 1;
	__sync_fetch_and_add(&st->lin[i], 1);

	if (per_cpu && cpu < HPLAT_MAX_CPUS) {
		struct hplat_cpu_stats *cs = &cpu_stats[op][cpu];

		__sync_fetch_and_add(&cs->count, 1);
		__sync_fetch_and_add(&cs->sum_ns, lat);
		min_max(&cs->min_ns, &cs->max_ns, lat);
		if (ret)
			__sync_fetch_and_add(&cs->errors, 1);
		i = hplat_log2_slot(us);
		barrier_var(i);
		if (i < HPLAT_LOG2_SLOTS)
			__sync_fetch_and_add(&cs->log2[i], 1);
	}

	if (trace_ops) {
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e) {
			__sync_fetch_and_add(&dropped_events, 1);
			return 0;
		}
		e->ts_ns = s.ts;
		e->lat_ns = lat;
		e->ret = ret;
		e->cpu = s.cpu;
		e->op = s.op;
		e->pid = tid;
		bpf_get_current_comm(e->comm, sizeof(e->comm));
		bpf_ringbuf_submit(e, 0);
	}
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
	__u64 *first;

	first = bpf_map_lookup_elem(&lock_waits, &tid);
	if (ret) {
		__sync_fetch_and_add(&lock_restarts, 1);
		if (!first)
			bpf_map_update_elem(&lock_waits, &tid, &now, BPF_ANY);
		return 0;
	}
	if (first) {
		__sync_fetch_and_add(&lock_wait_ns, now - *first);
		__sync_fetch_and_add(&lock_waits_done, 1);
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

/* -S: time per cpuhp state callback, by the target CPU's operation. */
static __always_inline int step_enter(unsigned long long cpu, int idx)
{
	barrier_var(cpu);
	if (cpu >= HPLAT_MAX_CPUS)
		return 0;
	state_starts[cpu].ts = bpf_ktime_get_ns();
	state_starts[cpu].idx = idx;
	return 0;
}

static __always_inline int step_exit(unsigned long long cpu, long long idx)
{
	struct hplat_state_stats *ss;
	unsigned long long d, op;

	barrier_var(cpu);
	if (cpu >= HPLAT_MAX_CPUS || !state_starts[cpu].ts ||
	    state_starts[cpu].idx != idx)
		return 0;
	op = cpu_op[cpu];
	barrier_var(op);
	barrier_var(idx);
	if (op >= HPLAT_NR_OPS || idx < 0 || idx >= HPLAT_MAX_STATES)
		return 0;
	d = bpf_ktime_get_ns() - state_starts[cpu].ts;
	state_starts[cpu].ts = 0;
	ss = &state_stats[op][idx];
	__sync_fetch_and_add(&ss->count, 1);
	__sync_fetch_and_add(&ss->sum_ns, d);
	if (d > ss->max_ns)
		ss->max_ns = d;
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
