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
const volatile bool steps_on = false;		/* -S */
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

/* A writer's attempts at the device hotplug lock, by thread: when the
 * first began, and how many failed. Sized by the loader (-w).
 */
struct lock_wait {
	unsigned long long ts;
	unsigned long long restarts;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct lock_wait);
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
/* updates given up because gen kept flipping (never seen: see stats_get) */
unsigned long long lost_updates;

/* -S: the cpuhp callbacks running for each target CPU, innermost last,
 * while an operation hplat traces is in flight for it (op + 1, else 0).
 */
struct hplat_step_stack step_stacks[HPLAT_MAX_CPUS];

/*
 * -S: the steps of the operation in flight, added to the summary only
 * when it returns, and dropped when its brake ends: callbacks that run
 * for the target CPU during the brake (cpuhp_setup_state() from a module
 * load, which does not wait for the brake) are not the operation's.
 * Traced operations run one at a time (device_hotplug_lock), so one
 * pending set serves them all.
 */
struct hplat_step_stats pending[HPLAT_MAX_STATES];
unsigned int pending_idx[HPLAT_MAX_STATES];
unsigned int pending_n;
unsigned long long pending_steps_ns;
unsigned long long pending_overflows;

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

	/*
	 * gen flips at most once per summary (100 ms at least): a third try
	 * never happens. Should it, the update is given up and counted
	 * rather than added to a generation user space may be reading.
	 */
	for (i = 0; i < 3; i++) {
		prev = __sync_fetch_and_add(&busy[g], 1);
		barrier_var(prev);
		if ((READ_ONCE(gen) & 1) == g) {
			*gp = g;
			return &stats[g];
		}
		prev = __sync_fetch_and_add(&busy[g], -1);
		barrier_var(prev);
		g = READ_ONCE(gen) & 1;
	}
	__sync_fetch_and_add(&lost_updates, 1);
	return NULL;
}

static __always_inline void stats_put(unsigned int g)
{
	long long prev = __sync_fetch_and_add(&busy[g & 1], -1);

	barrier_var(prev);
}

/*
 * Global functions (Linux 5.6: scalar arguments, an integer returned)
 * are verified once per program, on their own, from the types of their
 * arguments; a caller's paths see only an unknown integer come back,
 * which each caller bounds itself (the barrier_var() keeps clang from
 * dropping that check on what it knows of the callee). Here, the bucket
 * math of hplat.h, whose comparisons fork the verifier's paths (inlined,
 * each slot index stayed a precise value of its own on every path that
 * followed, and none could be pruned), and below the -S walks of the
 * pending steps (loops of HPLAT_MAX_STATES iterations, inlined walked
 * again on each path of op_exit() that reached them): docs/timings.md
 * has the figures, and hplat -v prints them. They must stay neither
 * static nor __hidden: libbpf would have them verified inline again.
 */
__noinline unsigned int hplat_fine_slot_of(unsigned long long us)
{
	return hplat_fine_slot(us);
}

__noinline unsigned int hplat_log2_slot_of(unsigned long long v)
{
	return hplat_log2_slot(v);
}

__noinline unsigned int hplat_errno_slot_of(unsigned long long err)
{
	return hplat_errno_slot(err);
}

/* first: this is the first value (count was 0), so min is not yet set */
static __always_inline void min_max(unsigned long long *min,
				    unsigned long long *max,
				    unsigned long long v, bool first)
{
	/* Operations serialise on the device hotplug lock: no CAS needed. */
	if (first || v < *min)
		*min = v;
	if (v > *max)
		*max = v;
}

static __always_inline void dist_add(struct hplat_dist *d, unsigned long long ns)
{
	unsigned long long i = hplat_fine_slot_of(ns / 1000);
	unsigned long long n = __sync_fetch_and_add(&d->count, 1);

	__sync_fetch_and_add(&d->sum_ns, ns);
	min_max(&d->min_ns, &d->max_ns, ns, n == 0);
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

/* Add one to a counter of the current summary. */
static __always_inline void count(unsigned long long off)
{
	struct hplat_stats *st;
	unsigned int g;

	st = stats_get(&g);
	if (!st)
		return;
	__sync_fetch_and_add((unsigned long long *)((char *)st + off), 1);
	stats_put(g);
}

#define COUNT(field)	count(__builtin_offsetof(struct hplat_stats, field))

/*
 * An operation of a thread that still has one in flight: the exit of the
 * earlier one was never seen (a kretprobe instance missed), so it no
 * longer counts as in flight.
 */
static __always_inline void forget_start(struct start *old)
{
	if (old->skip)
		return;
	__sync_fetch_and_add(&in_flight, -1);
	COUNT(missed_exits);
}

/* -S: the walks of the pending steps, global functions (see above). */
_Static_assert(!(HPLAT_MAX_STATES & (HPLAT_MAX_STATES - 1)),
	       "pending_idx[] entries are masked with HPLAT_MAX_STATES - 1");

__noinline int hplat_steps_reset(void)
{
	unsigned int i, n = pending_n;

	if (!steps_on)
		return 0;
	for (i = 0; i < HPLAT_MAX_STATES && i < n; i++) {
		/*
		 * step_exit() stores checked indices only: the mask is for
		 * the verifier, where a branch would fork its paths
		 */
		unsigned int k = pending_idx[i] & (HPLAT_MAX_STATES - 1);

		__builtin_memset(&pending[k], 0, sizeof(pending[k]));
	}
	pending_n = 0;
	pending_steps_ns = 0;
	pending_overflows = 0;
	return 0;
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
	struct start *prev;
	long long now_in;
	unsigned int g;

	s.skip = filtered_out(s.cpu);
	prev = bpf_map_lookup_elem(&starts, &tid);
	if (prev)
		forget_start(prev);
	if (bpf_map_update_elem(&starts, &tid, &s, BPF_ANY)) {
		COUNT(start_drops);
		return 0;
	}
	if (s.skip)
		return 0;
	barrier_var(cpu);
	if (steps_on && cpu < HPLAT_MAX_CPUS) {
		hplat_steps_reset();
		step_stacks[cpu].depth = 0;
		step_stacks[cpu].op = op + 1;
	}
	now_in = __sync_add_and_fetch(&in_flight, 1);
	st = stats_get(&g);
	if (!st)
		return 0;
	old = st->max_in_flight;
	if (now_in > 0 && (unsigned long long)now_in > old)
		__sync_val_compare_and_swap(&st->max_in_flight, old, now_in);
	stats_put(g);
	return 0;
}

/*
 * Add the pending steps of the operation that returned to the summary of
 * generation g, which the caller holds (stats_get()).
 */
__noinline int hplat_steps_commit(unsigned int g, unsigned int op)
{
	unsigned int i, n = pending_n;
	struct hplat_stats *st;

	if (!steps_on)
		return 0;
	barrier_var(g);
	barrier_var(op);
	/* never true: the bounds the verifier needs */
	if (g > 1 || op >= HPLAT_NR_OPS)
		return hplat_steps_reset();
	st = &stats[g];
	for (i = 0; i < HPLAT_MAX_STATES && i < n; i++) {
		unsigned int k = pending_idx[i];
		struct hplat_step_stats *ss, *ps;

		barrier_var(k);
		if (k >= HPLAT_MAX_STATES)
			continue;
		ps = &pending[k];
		ss = &st->steps[op][k];
		__sync_fetch_and_add(&ss->count, ps->count);
		__sync_fetch_and_add(&ss->incl_ns, ps->incl_ns);
		__sync_fetch_and_add(&ss->excl_ns, ps->excl_ns);
		if (ps->max_ns > ss->max_ns)
			ss->max_ns = ps->max_ns;
		ss->depth = ps->depth;
	}
	__sync_fetch_and_add(&st->ops[op].steps_ns, pending_steps_ns);
	__sync_fetch_and_add(&st->ops[op].step_overflows, pending_overflows);
	return hplat_steps_reset();
}

static __always_inline int op_exit(int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	unsigned long long lat, brake, us, op, cpu, i, n;
	struct hplat_op_stats *os;
	struct hplat_stats *st;
	struct hplat_event *e;
	struct start *sp, s;
	unsigned int g;

	sp = bpf_map_lookup_elem(&starts, &tid);
	if (!sp) {
		/* entered before hplat attached, or no room in starts */
		COUNT(missed_starts);
		return 0;
	}
	s = *sp;
	bpf_map_delete_elem(&starts, &tid);
	if (s.skip) {
		COUNT(filtered);
		return 0;
	}
	__sync_fetch_and_add(&in_flight, -1);
	lat = bpf_ktime_get_ns() - s.ts;
	brake = s.brake_ns < lat ? s.brake_ns : lat;
	us = lat / 1000;
	/* bounds the verifier keeps: checked in the register it indexes with */
	op = s.op;
	cpu = s.cpu;
	barrier_var(cpu);
	if (steps_on && cpu < HPLAT_MAX_CPUS)
		step_stacks[cpu].op = 0;
	st = stats_get(&g);
	if (!st) {
		if (steps_on)
			hplat_steps_reset();
		return 0;
	}
	barrier_var(op);
	if (op >= HPLAT_NR_OPS)
		goto out;
	if (steps_on)
		hplat_steps_commit(g, op);
	os = &st->ops[op];
	dist_add(&os->lat, lat);
	dist_add(&os->own, lat - brake);
	if (s.brake_ns)
		dist_add(&os->brake, brake);
	if (ret) {
		__sync_fetch_and_add(&os->errors, 1);
		i = hplat_errno_slot_of(ret < 0 ? -(long long)ret : ret);
		barrier_var(i);
		if (i < HPLAT_ERRNO_SLOTS)
			__sync_fetch_and_add(&os->err[i], 1);
	}
	i = hplat_log2_slot_of(hist_ms ? us / 1000 : us);
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

		n = __sync_fetch_and_add(&cs->count, 1);
		__sync_fetch_and_add(&cs->sum_ns, lat);
		min_max(&cs->min_ns, &cs->max_ns, lat, n == 0);
		if (ret)
			__sync_fetch_and_add(&cs->errors, 1);
		i = hplat_log2_slot_of(hist_ms ? us / 1000 : us);
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
		e->tid = tid;
		e->pid = bpf_get_current_pid_tgid() >> 32;
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
	unsigned long long cpu;
	struct start *sp;

	sp = bpf_map_lookup_elem(&starts, &tid);
	if (!sp)
		return 0;
	sp->brake_ns = slept_ns;
	cpu = sp->cpu;
	barrier_var(cpu);
	if (steps_on && !sp->skip && cpu < HPLAT_MAX_CPUS) {
		/* what ran for the CPU during the brake was not this op */
		hplat_steps_reset();
		step_stacks[cpu].depth = 0;
	}
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
 * Count the restarts and the time from the start of a writer's first
 * attempt to the end of the one that gets the lock.
 */
static __always_inline int lock_enter(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lock_wait w = { .ts = bpf_ktime_get_ns() };

	/* which CPU the writer wants is not known yet: --cpus cannot apply */
	if (task_filtered_out())
		return 0;
	/* a restarted attempt keeps the start of the first */
	bpf_map_update_elem(&lock_waits, &tid, &w, BPF_NOEXIST);
	return 0;
}

static __always_inline int lock_exit(int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	unsigned long long now = bpf_ktime_get_ns();
	struct hplat_stats *st;
	struct lock_wait *w;
	unsigned int g;

	w = bpf_map_lookup_elem(&lock_waits, &tid);
	if (!w)
		return 0;
	if (ret) {
		w->restarts++;
		COUNT(lock_restarts);
		return 0;
	}
	if (w->restarts) {
		st = stats_get(&g);
		if (st) {
			__sync_fetch_and_add(&st->lock_wait_ns, now - w->ts);
			__sync_fetch_and_add(&st->lock_waits_done, 1);
			stats_put(g);
		}
	}
	bpf_map_delete_elem(&lock_waits, &tid);
	return 0;
}

SEC("fentry/lock_device_hotplug_sysfs")
int BPF_PROG(lock_fentry)
{
	return lock_enter();
}

SEC("fexit/lock_device_hotplug_sysfs")
int BPF_PROG(lock_fexit, int ret)
{
	return lock_exit(ret);
}

SEC("kprobe/lock_device_hotplug_sysfs")
int BPF_KPROBE(lock_kprobe)
{
	return lock_enter();
}

SEC("kretprobe/lock_device_hotplug_sysfs")
int BPF_KRETPROBE(lock_kretprobe, int ret)
{
	return lock_exit(ret);
}

/*
 * A writer that dies while it waits for the lock (only a fatal signal
 * ends that wait) leaves an entry whose thread id may come back, and one
 * whose exit from an operation was missed leaves a start: drop both.
 */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(task_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct start *sp;

	bpf_map_delete_elem(&lock_waits, &tid);
	sp = bpf_map_lookup_elem(&starts, &tid);
	if (sp) {
		forget_start(sp);
		bpf_map_delete_elem(&starts, &tid);
	}
	return 0;
}

/* -S: time per cpuhp state callback of traced operations, nested. */
static __always_inline int step_enter(unsigned long long cpu, int idx)
{
	struct hplat_step_stack *sk;
	unsigned long long d;

	barrier_var(cpu);
	if (cpu >= HPLAT_MAX_CPUS)
		return 0;
	sk = &step_stacks[cpu];
	if (!sk->op)
		return 0;
	d = sk->depth;
	barrier_var(d);
	if (d >= HPLAT_STEP_DEPTH) {
		pending_overflows++;
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
	unsigned long long d, op, incl, excl, n, now = bpf_ktime_get_ns();
	struct hplat_step_stats *ss;
	struct hplat_step_stack *sk;

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
	barrier_var(idx);
	if (idx < 0 || idx >= HPLAT_MAX_STATES)
		return 0;
	if (!d)
		pending_steps_ns += incl;
	ss = &pending[idx];
	if (!ss->count) {
		/* first time in this operation: remember it for the commit */
		n = pending_n;
		barrier_var(n);
		if (n >= HPLAT_MAX_STATES)
			return 0;
		pending_idx[n] = idx;
		pending_n = n + 1;
	}
	ss->count++;
	ss->incl_ns += incl;
	ss->excl_ns += excl;
	if (incl > ss->max_ns)
		ss->max_ns = incl;
	ss->depth = d + 1;
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
