/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hplat: structs and constants shared by hplat.bpf.c and loader/hplat*.c.
 */
#ifndef HPLAT_H
#define HPLAT_H

enum hplat_op {
	HPLAT_ONLINE,
	HPLAT_OFFLINE,
	HPLAT_NR_OPS,
};

/* log2 histogram in the display unit (ms, or us with -u): slot k holds
 * [2^k, 2^(k+1)), slot 0 also holds 0; the last slot also holds every
 * larger value (2^26 us = 67 s, past the 10 s brake bound).
 */
#define HPLAT_LOG2_SLOTS	27
/* Fine histogram for percentiles, in us: each power of two split into
 * HPLAT_SUB_SLOTS linear slots (at 1 s: 4.1 ms wide).
 */
#define HPLAT_SUB_BITS		7
#define HPLAT_SUB_SLOTS		(1 << HPLAT_SUB_BITS)
#define HPLAT_FINE_SLOTS	((HPLAT_LOG2_SLOTS - HPLAT_SUB_BITS + 1) * \
				 HPLAT_SUB_SLOTS)
/* Largest latency the histograms hold apart; larger ones clamp here. */
#define HPLAT_MAX_US		((1ULL << HPLAT_LOG2_SLOTS) - 1)
/* Linear ms histogram (-L): width set at load time, last slot open. */
#define HPLAT_LIN_SLOTS		256
/*
 * Error slots: errno 0..133 one each (133 is EHWPOISON), then the
 * kernel-internal codes 512..531 (ERESTARTSYS, ERESTARTNOINTR, ...,
 * ENOTSUPP), then one slot for anything else.
 */
#define HPLAT_ERRNO_DIRECT	134
#define HPLAT_ERRNO_KERN_MIN	512
#define HPLAT_ERRNO_KERN_MAX	531
#define HPLAT_ERRNO_OTHER	(HPLAT_ERRNO_DIRECT + HPLAT_ERRNO_KERN_MAX - \
				 HPLAT_ERRNO_KERN_MIN + 1)
#define HPLAT_ERRNO_SLOTS	(HPLAT_ERRNO_OTHER + 1)
/* Target CPUs tracked for -C and -S; --cpus filters up to 1024. */
#define HPLAT_MAX_CPUS		64
#define HPLAT_CPU_WORDS		16
/* cpuhp states tracked for -S, and how deep their callbacks nest. */
#define HPLAT_MAX_STATES	256
#define HPLAT_STEP_DEPTH	8

/* One latency distribution: exact count, sum, min and max, and the fine
 * histogram (us) that percentiles are read from.
 */
struct hplat_dist {
	unsigned long long count;
	unsigned long long sum_ns;
	unsigned long long min_ns;
	unsigned long long max_ns;
	unsigned long long fine[HPLAT_FINE_SLOTS];
};

struct hplat_op_stats {
	/* cpu_subsys_online/offline() from entry to exit, every op */
	struct hplat_dist lat;
	/* the cpuhp_brake event's slept_ns, ops that were braked */
	struct hplat_dist brake;
	/* latency minus brake: what the operation itself took, every op */
	struct hplat_dist own;
	unsigned long long errors;
	unsigned long long err[HPLAT_ERRNO_SLOTS];
	unsigned long long log2[HPLAT_LOG2_SLOTS];
	unsigned long long lin[HPLAT_LIN_SLOTS];
	/* -S: time in outermost cpuhp callbacks, and frames too deep */
	unsigned long long steps_ns;
	unsigned long long step_overflows;
};

struct hplat_cpu_stats {
	unsigned long long count;
	unsigned long long errors;
	unsigned long long sum_ns;
	unsigned long long min_ns;
	unsigned long long max_ns;
	unsigned long long log2[HPLAT_LOG2_SLOTS];
};

/* -S: one cpuhp state's callbacks during traced operations. Inclusive
 * time counts the callbacks nested in it (the AP states inside
 * cpu:bringup), exclusive time does not.
 */
struct hplat_step_stats {
	unsigned long long count;
	unsigned long long incl_ns;
	unsigned long long excl_ns;
	unsigned long long max_ns;
	unsigned long long depth;	/* nesting depth + 1 when last seen */
};

/*
 * Everything one summary reports. The BPF side keeps two and adds to
 * stats[gen & 1]; user space flips gen, waits until no program still
 * works on the old one, then reads and clears it: nothing is lost
 * between two summaries.
 */
struct hplat_stats {
	struct hplat_op_stats ops[HPLAT_NR_OPS];
	struct hplat_cpu_stats cpus[HPLAT_NR_OPS][HPLAT_MAX_CPUS];
	struct hplat_step_stats steps[HPLAT_NR_OPS][HPLAT_MAX_STATES];
	unsigned long long max_in_flight;
	unsigned long long lock_restarts;
	unsigned long long lock_wait_ns;
	unsigned long long lock_waits_done;
	unsigned long long dropped_events;	/* -e: ring buffer full */
	unsigned long long missed_starts;	/* exits without an entry */
	unsigned long long start_drops;		/* entries the map had no room for
						 * (their exits count as
						 * missed_starts too) */
	unsigned long long missed_exits;	/* entries whose exit never came */
	unsigned long long filtered;		/* ops --cpus, -p, --comm left out */
};

/* -S: the cpuhp callbacks running for one target CPU, innermost last,
 * while an operation hplat traces is in flight for it (op + 1, else 0).
 */
struct hplat_step_frame {
	unsigned long long ts;
	unsigned long long child_ns;
	int idx;
	int pad;
};

struct hplat_step_stack {
	unsigned int op;
	unsigned int depth;
	struct hplat_step_frame f[HPLAT_STEP_DEPTH];
};

/* One record per finished operation (-e). */
struct hplat_event {
	unsigned long long ts_ns;	/* bpf_ktime_get_ns() at entry */
	unsigned long long lat_ns;
	unsigned long long brake_ns;	/* 0: not braked, or no event */
	int ret;
	unsigned int cpu;		/* the CPU being plugged */
	unsigned int op;		/* enum hplat_op */
	unsigned int pid;		/* process (tgid) */
	unsigned int tid;		/* thread */
	unsigned int pad;
	char comm[16];
};

/*
 * Bucket math, shared by the BPF side (which fills the histograms) and
 * user space (which reads them). No loops, no divisions: the verifier and
 * the unit tests see the same code.
 */
static inline unsigned int hplat_log2(unsigned long long v)
{
	unsigned int r = 0, shift;

	shift = (v > 0xFFFFFFFFULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xFFFF) << 4; v >>= shift; r |= shift;
	shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
	shift = (v > 0xF) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

/* log2 slot of a value: [2^k, 2^(k+1)) -> k; 0 and 1 -> 0; the last
 * slot holds everything from 2^(HPLAT_LOG2_SLOTS - 1) up.
 */
static inline unsigned int hplat_log2_slot(unsigned long long v)
{
	if (v > HPLAT_MAX_US)
		v = HPLAT_MAX_US;
	return v ? hplat_log2(v) : 0;
}

/*
 * Fine slot: values below HPLAT_SUB_SLOTS us have a slot each; above, each
 * power of two [2^k, 2^(k+1)) is cut into HPLAT_SUB_SLOTS equal slots.
 */
static inline unsigned int hplat_fine_slot(unsigned long long us)
{
	unsigned int k, shift;

	if (us > HPLAT_MAX_US)
		us = HPLAT_MAX_US;
	if (us < HPLAT_SUB_SLOTS)
		return (unsigned int)us;
	k = hplat_log2(us);
	shift = k - HPLAT_SUB_BITS;
	return HPLAT_SUB_SLOTS * (shift + 1) +
	       (unsigned int)((us >> shift) - HPLAT_SUB_SLOTS);
}

/* First value (us) of fine slot i, and the width of that slot. */
static inline unsigned long long hplat_fine_low(unsigned int i)
{
	unsigned int shift;

	if (i < HPLAT_SUB_SLOTS)
		return i;
	shift = i / HPLAT_SUB_SLOTS - 1;
	return (unsigned long long)(HPLAT_SUB_SLOTS + i % HPLAT_SUB_SLOTS) << shift;
}

static inline unsigned long long hplat_fine_width(unsigned int i)
{
	return i < HPLAT_SUB_SLOTS ? 1 : 1ULL << (i / HPLAT_SUB_SLOTS - 1);
}

/* The error slot of a positive errno value. */
static inline unsigned int hplat_errno_slot(unsigned long long err)
{
	if (err < HPLAT_ERRNO_DIRECT)
		return (unsigned int)err;
	if (err >= HPLAT_ERRNO_KERN_MIN && err <= HPLAT_ERRNO_KERN_MAX)
		return HPLAT_ERRNO_DIRECT + (unsigned int)(err - HPLAT_ERRNO_KERN_MIN);
	return HPLAT_ERRNO_OTHER;
}

/* The errno value of an error slot; -1 for the slot of all others. */
static inline int hplat_slot_errno(unsigned int slot)
{
	if (slot < HPLAT_ERRNO_DIRECT)
		return (int)slot;
	if (slot < HPLAT_ERRNO_OTHER)
		return HPLAT_ERRNO_KERN_MIN + (int)(slot - HPLAT_ERRNO_DIRECT);
	return -1;
}

#endif /* HPLAT_H */
