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
 *    CPU's pair of sequence numbers one after the other, window_ms
 *    apart; a kernel thread walks the online CPUs every period_ms
 *    without cpus_read_lock() and finds a pair half-written if it looks
 *    inside the window. The chance per operation is window_ms /
 *    period_ms (25 % by default) less the looks and windows that come
 *    more than half a step late, and hits follow the rate of
 *    operations. The class of bug fixed upstream by taking the hotplug
 *    lock around such walks, e.g. commit 8614ddef8213
 *    ("kernel/watchdog.c: avoid races between /proc handlers and CPU
 *    hotplug").
 *
 *    Both sides keep to one grid of CLOCK_MONOTONIC: the window opens on
 *    a multiple of window_ms and lasts one step; the walker looks once a
 *    period, half a step into one of its steps chosen at random. So the
 *    chance is a property of the bug, the same for every teardown
 *    whatever its place in the grid, and not of how the guest's vCPUs are
 *    scheduled: a udelay() window and a free-running walker gave 16 to
 *    41 % a teardown in QEMU/TCG depending on the load (the window
 *    stretched with the vCPUs' pace, the walker came late when they were
 *    busy), and a walker at a fixed step of the grid made the chance
 *    depend on how the operations' period fell against it. Wake-ups up
 *    to half a step late change nothing; the later ones are counted.
 *
 * 2. Stale deferred work. The teardown queues work to run delay_ms
 *    later that assumes the CPU is still offline then; if the online
 *    path has set the CPU up again by that time (this state's startup
 *    ran), the work would undo it (here: it is counted as a hit, with
 *    how soon the startup came, after how many operations of any CPU,
 *    and when the work ran). It can only trigger when the online
 *    follows the offline within delay_ms. The class of
 *    bug of the offline path's work cancellation fixed in commit
 *    ab47bd964af6 ("thermal/x86_pkg_temp: Sanitize locking").
 *
 * /sys/kernel/debug/hpbrake_bugs/: race_hits, stale_hits, teardowns,
 * first_race_ms and first_stale_ms (since load, -1 before any), looks
 * (the walker's), late_looks and late_opens (looks and windows more than
 * half a step late), and reset (write a number: counters to 0, first
 * times from now).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

static unsigned int window_ms = 20;
module_param(window_ms, uint, 0444);
MODULE_PARM_DESC(window_ms, "class 1: how long a teardown leaves its pair half-written");
static unsigned int period_ms = 80;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "class 1: how often the walker looks at every online CPU (a multiple of window_ms)");
static unsigned int delay_ms = 150;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "class 2: how long after a teardown its stale work runs");

struct bugs_cpu {
	unsigned long seq_a, seq_b;	/* class 1: equal unless mid-teardown */
	unsigned long seen;		/* the last half-written seq_a counted */
	struct list_head stale;		/* class 2: its works not yet run */
};

/*
 * Class 2: one work per teardown, each with its own times: the teardown,
 * and the first startup of its CPU after it (0 before one), each with
 * bugs_ops then.
 */
struct bugs_stale {
	struct delayed_work work;
	struct list_head node;		/* on its CPU's list until it runs */
	ktime_t down, up;
	long down_ops, up_ops;
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
/* the CPUs' lists of stale works, and the works' startup stamps */
static DEFINE_SPINLOCK(bugs_stale_lock);
static bool bugs_unloading;
static atomic64_t race_hits, stale_hits, teardowns;
/*
 * class 1's timing: the walker's looks, and those and the windows that
 * came more than half a step late (each can lose a hit)
 */
static atomic64_t looks, late_looks, late_opens;
/* teardowns and startups of any CPU: one per offline or online */
static atomic_long_t bugs_ops;
static atomic64_t first_race_ns, first_stale_ns;
static ktime_t bugs_t0;

/* Sleep until @t; the walker (@stoppable) also until kthread_stop(). */
static void sleep_until(ktime_t t, bool stoppable)
{
	while (ktime_before(ktime_get(), t)) {
		set_current_state(stoppable ? TASK_INTERRUPTIBLE : TASK_UNINTERRUPTIBLE);
		if (stoppable && kthread_should_stop())
			break;
		schedule_hrtimeout_range(&t, 0, HRTIMER_MODE_ABS);
	}
	__set_current_state(TASK_RUNNING);
}

/* The first multiple of @step_ms after now, plus @offset_ms. */
static ktime_t next_step(unsigned int step_ms, unsigned int offset_ms)
{
	u64 step = (u64)step_ms * NSEC_PER_MSEC;

	return ns_to_ktime((div64_u64(ktime_get_ns(), step) + 1) * step +
			   (u64)offset_ms * NSEC_PER_MSEC);
}

/*
 * The walker's next look: in the next period, half a step into one of its
 * period_ms / window_ms steps, chosen at random, so that a window is seen
 * with a chance of window_ms / period_ms whatever its place in the grid.
 */
static ktime_t next_look(void)
{
	u32 step = get_random_u32_below(period_ms / window_ms);

	return ktime_add_us(next_step(period_ms, 0),
			    (step * window_ms + window_ms / 2) * USEC_PER_MSEC);
}

static void first_hit(atomic64_t *first)
{
	s64 now = ktime_to_ns(ktime_sub(ktime_get(), bugs_t0));

	atomic64_cmpxchg(first, -1, now);
}

static void bugs_stale_fn(struct work_struct *work)
{
	struct bugs_stale *w = container_of(to_delayed_work(work),
					    struct bugs_stale, work);
	ktime_t up;
	long up_ops;

	spin_lock(&bugs_stale_lock);
	list_del(&w->node);
	up = w->up;
	up_ops = w->up_ops;
	spin_unlock(&bugs_stale_lock);
	/*
	 * The work assumes its CPU is still down: a hit if the online path
	 * has set it up anew since the teardown; how soon, after how many
	 * operations (the first setup's own included: each one braked), and
	 * when the work itself ran (delay_ms, rounded up to jiffies, and late).
	 */
	if (up) {
		atomic64_inc(&stale_hits);
		first_hit(&first_stale_ns);
		pr_info("stale hit: cpu%u set up again within %u ms of its teardown (%lld ms, %ld ops, work at %lld ms)\n",
			w->cpu, delay_ms, ktime_ms_delta(up, w->down),
			up_ops - w->down_ops, ktime_ms_delta(ktime_get(), w->down));
	}
	kfree(w);
	if (atomic_dec_and_test(&bugs_pending))
		wake_up(&bugs_pending_wq);
}

static int bugs_online(unsigned int cpu)
{
	struct bugs_cpu *b = per_cpu_ptr(&bugs_cpus, cpu);
	long ops = atomic_long_inc_return(&bugs_ops);
	ktime_t now = ktime_get();
	struct bugs_stale *w;

	/* the first startup after each teardown whose work has not run */
	spin_lock(&bugs_stale_lock);
	list_for_each_entry(w, &b->stale, node) {
		if (!w->up) {
			w->up = now;
			w->up_ops = ops;
		}
	}
	spin_unlock(&bugs_stale_lock);
	return 0;
}

static int bugs_offline(unsigned int cpu)
{
	struct bugs_cpu *b = per_cpu_ptr(&bugs_cpus, cpu);
	struct bugs_stale *w;
	long ops;
	ktime_t t;

	if (READ_ONCE(bugs_unloading))
		return 0;
	atomic64_inc(&teardowns);
	ops = atomic_long_inc_return(&bugs_ops);
	/* class 1: the pair half-written for one step of the grid */
	t = next_step(window_ms, 0);
	sleep_until(t, false);
	if (ktime_after(ktime_get(), ktime_add_us(t, window_ms * USEC_PER_MSEC / 2)))
		atomic64_inc(&late_opens);
	WRITE_ONCE(b->seq_a, b->seq_a + 1);
	/* seq_a before seq_b: pairs with the walker's smp_rmb() */
	smp_wmb();
	sleep_until(ktime_add_ms(t, window_ms), false);
	WRITE_ONCE(b->seq_b, b->seq_b + 1);
	/* class 2: work that must not find the CPU set up again */
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return 0;
	INIT_DELAYED_WORK(&w->work, bugs_stale_fn);
	w->cpu = cpu;
	w->down = ktime_get();
	w->down_ops = ops;
	atomic_inc(&bugs_pending);
	spin_lock(&bugs_stale_lock);
	list_add_tail(&w->node, &b->stale);
	spin_unlock(&bugs_stale_lock);
	queue_delayed_work(bugs_wq, &w->work, msecs_to_jiffies(delay_ms));
	return 0;
}

/* Class 1's user: every online CPU, without cpus_read_lock(). */
static int bugs_walk(void *unused)
{
	unsigned long a, s;
	unsigned int cpu;

	/* on time: a wake-up more than half a step late could miss */
	sched_set_fifo_low(current);
	while (!kthread_should_stop()) {
		ktime_t t = next_look();

		sleep_until(t, true);
		if (kthread_should_stop())
			break;
		atomic64_inc(&looks);
		if (ktime_after(ktime_get(), ktime_add_us(t, window_ms * USEC_PER_MSEC / 2)))
			atomic64_inc(&late_looks);
		for_each_online_cpu(cpu) {
			struct bugs_cpu *b = per_cpu_ptr(&bugs_cpus, cpu);

			/* seq_b first: one seq_a older than it cannot be read */
			s = READ_ONCE(b->seq_b);
			/* pairs with the teardown's smp_wmb() */
			smp_rmb();
			a = READ_ONCE(b->seq_a);
			if (a == s || a == b->seen)
				continue;
			b->seen = a;
			atomic64_inc(&race_hits);
			first_hit(&first_race_ns);
			pr_info("race hit: cpu%u half-written (seq %lu/%lu)\n",
				cpu, a, s);
		}
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
	atomic64_set(&looks, 0);
	atomic64_set(&late_looks, 0);
	atomic64_set(&late_opens, 0);
	atomic64_set(&first_race_ns, -1);
	atomic64_set(&first_stale_ns, -1);
	bugs_t0 = ktime_get();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(bugs_reset_fops, NULL, bugs_reset, "%llu\n");

static int __init bugs_init(void)
{
	unsigned int cpu;
	int ret;

	if (!window_ms || period_ms <= window_ms || period_ms % window_ms ||
	    !delay_ms)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		INIT_LIST_HEAD(&per_cpu_ptr(&bugs_cpus, cpu)->stale);
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
		/* works queued by an operation since the setup: they free themselves */
		wait_event(bugs_pending_wq, !atomic_read(&bugs_pending));
		destroy_workqueue(bugs_wq);
		return PTR_ERR(bugs_walker);
	}
	bugs_dir = debugfs_create_dir("hpbrake_bugs", NULL);
	debugfs_create_file_unsafe("race_hits", 0444, bugs_dir, &race_hits, &bugs_fops);
	debugfs_create_file_unsafe("stale_hits", 0444, bugs_dir, &stale_hits, &bugs_fops);
	debugfs_create_file_unsafe("teardowns", 0444, bugs_dir, &teardowns, &bugs_fops);
	debugfs_create_file_unsafe("looks", 0444, bugs_dir, &looks, &bugs_fops);
	debugfs_create_file_unsafe("late_looks", 0444, bugs_dir, &late_looks, &bugs_fops);
	debugfs_create_file_unsafe("late_opens", 0444, bugs_dir, &late_opens, &bugs_fops);
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
