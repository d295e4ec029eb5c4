/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hplat: structs and constants shared by hplat.bpf.c and loader/hplat.c.
 */
#ifndef HPLAT_H
#define HPLAT_H

enum hplat_op {
	HPLAT_ONLINE,
	HPLAT_OFFLINE,
	HPLAT_NR_OPS,
};

/* log2 histogram in microseconds: slot k holds [2^k, 2^(k+1)) us, slot 0
 * also holds 0; 27 slots reach 2^27 us = 134 s, past the 60 s brake bound.
 */
#define HPLAT_LOG2_SLOTS	27
/* Fine histogram for percentiles: each power of two of microseconds split
 * into HPLAT_SUB_SLOTS linear slots (at 1 s: 4.1 ms wide).
 */
#define HPLAT_SUB_BITS		7
#define HPLAT_SUB_SLOTS		(1 << HPLAT_SUB_BITS)
#define HPLAT_FINE_SLOTS	((HPLAT_LOG2_SLOTS - HPLAT_SUB_BITS + 1) * \
				 HPLAT_SUB_SLOTS)
/* Largest latency the histograms hold apart; larger ones clamp here. */
#define HPLAT_MAX_US		((1ULL << HPLAT_LOG2_SLOTS) - 1)
/* Linear ms histogram (-L): width set at load time, last slot overflow. */
#define HPLAT_LIN_SLOTS		256
/* errno values counted one by one; larger ones land in the last slot. */
#define HPLAT_MAX_ERRNO		134
/* Target CPUs tracked for -C. */
#define HPLAT_MAX_CPUS		64
/* cpuhp states tracked for -S. */
#define HPLAT_MAX_STATES	256

struct hplat_op_stats {
	unsigned long long count;	/* completed, ok or not */
	unsigned long long errors;
	unsigned long long sum_ns;
	unsigned long long min_ns;
	unsigned long long max_ns;
	unsigned long long err[HPLAT_MAX_ERRNO];
	unsigned long long log2[HPLAT_LOG2_SLOTS];
	unsigned long long fine[HPLAT_FINE_SLOTS];
	unsigned long long lin[HPLAT_LIN_SLOTS];
};

struct hplat_cpu_stats {
	unsigned long long count;
	unsigned long long errors;
	unsigned long long sum_ns;
	unsigned long long min_ns;
	unsigned long long max_ns;
	unsigned long long log2[HPLAT_LOG2_SLOTS];
};

struct hplat_state_stats {
	unsigned long long count;
	unsigned long long sum_ns;
	unsigned long long max_ns;
};

/* The cpuhp callback running on a target CPU (-S). */
struct hplat_state_start {
	unsigned long long ts;
	int idx;
};

/* One record per finished operation (-T). */
struct hplat_event {
	unsigned long long ts_ns;	/* bpf_ktime_get_ns() at entry */
	unsigned long long lat_ns;
	int ret;
	unsigned int cpu;		/* the CPU being plugged */
	unsigned int op;		/* enum hplat_op */
	unsigned int pid;
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

/* log2 slot of a latency in us: [2^k, 2^(k+1)) -> k; 0 and 1 -> 0. */
static inline unsigned int hplat_log2_slot(unsigned long long us)
{
	if (us > HPLAT_MAX_US)
		us = HPLAT_MAX_US;
	return us ? hplat_log2(us) : 0;
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

#endif /* HPLAT_H */
