// SPDX-License-Identifier: GPL-2.0
/*
 * hpbrake_bugs: two classes of CPU hotplug bug, planted on purpose, to
 * measure what the CPU hotplug brake costs in finding them. Built
 * against the guest kernel's tree by vm/build-kernel and loaded only
 * inside a guest booted by hpbrake, never on a host nor into a
 * distribution kernel.
 *
 * Both live in the callbacks of a dynamic cpuhp state
 * (hpbrake/bugs:online), and each hit is detected here, counted and
 * logged ("hpbrake_bugs: race hit ..." / "hpbrake_bugs: stale hit ..."):
 *
 * 1. A race with a concurrent user. The teardown of a CPU writes the
 *    CPU's pair of sequence numbers one after the other, window_us apart;
 *    a kernel thread walks the online CPUs every period_us without
 *    cpus_read_lock() and finds a pair half-written if it looks inside
 *    the window. The chance per operation is about window_us /
 *    period_us; hits follow the rate of operations. The class of bug
 *    fixed upstream by taking the hotplug lock around such walks, e.g.
 *    commit 8614ddef8213 ("kernel/watchdog.c: avoid races between /proc
 *    handlers and CPU hotplug").
 *
 * 2. Stale deferred work. The teardown queues work to run delay_ms
 *    later that assumes the CPU is still offline then; if the online
 *    path has set the CPU up again by that time (this state's startup
 *    ran), the work would undo it (here: it is counted as a hit, with
 *    how soon the startup came). It can only trigger when the online
 *    follows the offline within delay_ms. The class of
 *    bug of the offline path's work cancellation fixed in commit
 *    ab47bd964af6 ("thermal/x86_pkg_temp: Sanitize locking").
 *
 * /sys/kernel/debug/hpbrake_bugs/: race_hits, stale_hits, teardowns,
 * first_race_ms and first_stale_ms (since load, -1 before any), and
 * reset (write anything: counters to 0, first times from now).
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

static unsigned int window_us = 100;
module_param(window_us, uint, 0444);
MODULE_PARM_DESC(window_us, "class 1: how long a teardown leaves its pair half-written");
static unsigned int period_us = 1000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "class 1: how often the walker looks at every online CPU");
static unsigned int delay_ms = 150;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "class 2: how long after a teardown its stale work runs");

struct bugs_cpu {
	unsigned long seq_a, seq_b;	/* class 1: equal unless mid-teardown */
	unsigned long seen;		/* the last half-written seq_a counted */
	ktime_t up;			/* class 2: the last startup */
};

/* Class 2: one work per teardown, each with its own time. */
struct bugs_stale {
	struct delayed_work work;
	ktime_t down;
	unsigned int cpu;
};

static DEFINE_PER_CPU(struct bugs_cpu, bugs_cpus);
static enum cpuhp_state bugs_state;
static struct task_struct *bugs_walker;
static struct dentry *bugs_dir;
static struct workqueue_struct *bugs_wq;
/* class 2 works queued and not yet run: the unload waits for them */
static atomic_t bugs_pending = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(bugs_pending_wq);
static bool bugs_unloading;
static atomic64_t race_hits, stale_hits, teardowns;
static atomic64_t first_race_ns, first_stale_ns;
static ktime_t bugs_t0;

static void first_hit(atomic64_t *first)
{
	s64 now = ktime_to_ns(ktime_sub(ktime_get(), bugs_t0));

	atomic64_cmpxchg(first, -1, now);
}

static void bugs_stale_fn(struct work_struct *work)
{
	struct bugs_stale *w = container_of(to_delayed_work(work),
					    struct bugs_stale, work);
	ktime_t up = READ_ONCE(per_cpu_ptr(&bugs_cpus, w->cpu)->up);

	/* the work assumes its CPU is still down: a hit if the online path
	 * has set it up anew since the teardown
	 */
	if (ktime_after(up, w->down)) {
		atomic64_inc(&stale_hits);
		first_hit(&first_stale_ns);
		pr_info("hpbrake_bugs: stale hit: cpu%u set up again within %u ms of its teardown (%lld ms)\n",
			w->cpu, delay_ms, ktime_ms_delta(up, w->down));
	}
	kfree(w);
	if (atomic_dec_and_test(&bugs_pending))
		wake_up(&bugs_pending_wq);
}

static int bugs_online(unsigned int cpu)
{
	WRITE_ONCE(per_cpu_ptr(&bugs_cpus, cpu)->up, ktime_get());
	return 0;
}

static int bugs_offline(unsigned int cpu)
{
	struct bugs_cpu *b = per_cpu_ptr(&bugs_cpus, cpu);
	struct bugs_stale *w;

	if (READ_ONCE(bugs_unloading))
		return 0;
	atomic64_inc(&teardowns);
	/* class 1: the pair half-written for window_us */
	WRITE_ONCE(b->seq_a, b->seq_a + 1);
	smp_wmb();
	udelay(window_us);
	WRITE_ONCE(b->seq_b, b->seq_b + 1);
	/* class 2: work that must not find the CPU set up again */
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return 0;
	INIT_DELAYED_WORK(&w->work, bugs_stale_fn);
	w->cpu = cpu;
	w->down = ktime_get();
	atomic_inc(&bugs_pending);
	queue_delayed_work(bugs_wq, &w->work, msecs_to_jiffies(delay_ms));
	return 0;
}

/* Class 1's user: every online CPU, without cpus_read_lock(). */
static int bugs_walk(void *unused)
{
	unsigned long a, s;
	unsigned int cpu;

	while (!kthread_should_stop()) {
		for_each_online_cpu(cpu) {
			struct bugs_cpu *b = per_cpu_ptr(&bugs_cpus, cpu);

			a = READ_ONCE(b->seq_a);
			smp_rmb();
			s = READ_ONCE(b->seq_b);
			if (a == s || a == b->seen)
				continue;
			b->seen = a;
			atomic64_inc(&race_hits);
			first_hit(&first_race_ns);
			pr_info("hpbrake_bugs: race hit: cpu%u half-written (seq %lu/%lu)\n",
				cpu, a, s);
		}
		usleep_range(period_us, period_us + period_us / 10);
	}
	return 0;
}

static int bugs_get(void *data, u64 *val)
{
	s64 v = atomic64_read(data);

	/* the first-hit times in ms, -1 before any */
	if (data == &first_race_ns || data == &first_stale_ns)
		v = v < 0 ? -1 : v / NSEC_PER_MSEC;
	*val = (u64)v;
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(bugs_fops, bugs_get, NULL, "%lld\n");

static int bugs_reset(void *data, u64 val)
{
	atomic64_set(&race_hits, 0);
	atomic64_set(&stale_hits, 0);
	atomic64_set(&teardowns, 0);
	atomic64_set(&first_race_ns, -1);
	atomic64_set(&first_stale_ns, -1);
	bugs_t0 = ktime_get();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(bugs_reset_fops, NULL, bugs_reset, "%llu\n");

static int __init bugs_init(void)
{
	int ret;

	if (!window_us || window_us >= period_us || !delay_ms)
		return -EINVAL;
	bugs_wq = alloc_workqueue("hpbrake_bugs", WQ_UNBOUND, 0);
	if (!bugs_wq)
		return -ENOMEM;
	bugs_reset(NULL, 0);
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "hpbrake/bugs:online",
				bugs_online, bugs_offline);
	if (ret < 0) {
		destroy_workqueue(bugs_wq);
		return ret;
	}
	bugs_state = ret;
	bugs_walker = kthread_run(bugs_walk, NULL, "hpbrake_bugs");
	if (IS_ERR(bugs_walker)) {
		WRITE_ONCE(bugs_unloading, true);
		cpuhp_remove_state(bugs_state);
		destroy_workqueue(bugs_wq);
		return PTR_ERR(bugs_walker);
	}
	bugs_dir = debugfs_create_dir("hpbrake_bugs", NULL);
	debugfs_create_file_unsafe("race_hits", 0444, bugs_dir, &race_hits, &bugs_fops);
	debugfs_create_file_unsafe("stale_hits", 0444, bugs_dir, &stale_hits, &bugs_fops);
	debugfs_create_file_unsafe("teardowns", 0444, bugs_dir, &teardowns, &bugs_fops);
	debugfs_create_file_unsafe("first_race_ms", 0444, bugs_dir, &first_race_ns,
				   &bugs_fops);
	debugfs_create_file_unsafe("first_stale_ms", 0444, bugs_dir, &first_stale_ns,
				   &bugs_fops);
	debugfs_create_file_unsafe("reset", 0200, bugs_dir, NULL, &bugs_reset_fops);
	return 0;
}

static void __exit bugs_exit(void)
{
	debugfs_remove_recursive(bugs_dir);
	kthread_stop(bugs_walker);
	/* the teardowns cpuhp_remove_state() runs are no operations */
	WRITE_ONCE(bugs_unloading, true);
	cpuhp_remove_state(bugs_state);
	/* every work still queued runs (delay_ms at most) and frees itself */
	wait_event(bugs_pending_wq, !atomic_read(&bugs_pending));
	destroy_workqueue(bugs_wq);
}

module_init(bugs_init);
module_exit(bugs_exit);
MODULE_DESCRIPTION("hpbrake guest test: planted CPU hotplug bugs that count their hits");
MODULE_LICENSE("GPL");
