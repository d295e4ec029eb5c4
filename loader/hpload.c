// SPDX-License-Identifier: GPL-2.0
/*
 * hpload: the eager tester. THREADS writers offline and online CPUs as
 * fast as the kernel lets them, and report what they achieved from user
 * space: completed ops, latency, errors by errno, ops/s. Every CPU it
 * took down is brought back before it exits, also after SIGINT/SIGTERM.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpulist.h"
#include "hpop.h"
#include "hplat_report.h"

#define MAX_THREADS 256

enum pattern { PATTERN_SEQ, PATTERN_RANDOM, PATTERN_SAME };

static struct {
	long threads, duration_s;
	enum pattern pattern;
	bool pin, json, force;
	bool cpus[CPULIST_MAX];
	int nr_cpus;
	bool cpus_given;
} opts = { .threads = 1, .duration_s = 10 };

static int cpu_ids[CPULIST_MAX];
/*
 * seq and random: one writer at a time per CPU, so that no write finds
 * its CPU already in the target state (the kernel then returns success
 * without calling cpu_subsys_*(): a write, not an operation). Writers of
 * different CPUs still fight over the kernel's device_hotplug_lock.
 * same: no such lock; all writers race on one CPU, as its name says.
 */
static pthread_mutex_t cpu_locks[CPULIST_MAX];
static volatile sig_atomic_t exiting;

struct samples {
	unsigned long long *us;
	size_t n, cap;
};

struct writer {
	pthread_t tid;
	int idx;
	unsigned int seed;
	struct samples lat[HPLAT_NR_OPS];
	unsigned long long errors[HPLAT_NR_OPS][HPLAT_ERRNO_SLOTS];
	/* out of memory for a latency: this writer stopped, and the run */
	bool oom;
};

static struct writer writers[MAX_THREADS];

const char *argp_program_version = "hpload 0.1";
static const char doc[] =
"Drive CPU hotplug as hard as testers do, and measure what they get.\n"
"\n"
"USAGE: hpload [-t THREADS] [-d SECONDS] [-c CPULIST] [-p seq|random|same]\n"
"              [-P] [-j]\n"
"\n"
"EXAMPLES:\n"
"    hpload                  # one writer, every hot-pluggable CPU, 10 s\n"
"    hpload -t 3 -d 30       # three writers for 30 s\n"
"    hpload -t 8 -p same     # eight writers fighting over one CPU\n"
"    hpload -c 1-3 -p random -P -j\n";

static const struct argp_option options[] = {
	{ "threads", 't', "THREADS", 0, "Writers (1..256, default 1)", 0 },
	{ "duration", 'd', "SECONDS", 0, "Run this long (1..86400, default 10)", 0 },
	{ "cpus", 'c', "CPULIST", 0,
	  "CPUs to plug, e.g. 1-3,5 (default: every hot-pluggable CPU but 0)", 0 },
	{ "pattern", 'p', "PATTERN", 0,
	  "seq: each writer walks the list; random: random CPUs; same: all "
	  "writers on the first CPU (default seq)", 0 },
	{ "pin", 'P', NULL, 0, "Pin each writer onto the CPU it takes down", 0 },
	{ "json", 'j', NULL, 0, "JSON output", 0 },
	{ "force", 0x100, NULL, 0, "Run outside an hpbrake guest", 0 },
	{ 0 },
};

#define ONLINE_PATH_MAX 64

/* /sys/devices/system/cpu/cpuCPU/online, in buf */
static const char *online_path(char *buf, int cpu)
{
	snprintf(buf, ONLINE_PATH_MAX, "/sys/devices/system/cpu/cpu%d/online", cpu);
	return buf;
}

static bool hotpluggable(int cpu)
{
	char path[ONLINE_PATH_MAX];

	return access(online_path(path, cpu), F_OK) == 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char why[160];
	long v = 0;

	switch (key) {
	case 't':
		if (hpop_parse_long(arg, 1, MAX_THREADS, &v))
			argp_error(state, "invalid thread count '%s' (1..%d)",
				   arg, MAX_THREADS);
		opts.threads = v;
		break;
	case 'd':
		if (hpop_parse_long(arg, 1, 86400, &v))
			argp_error(state, "invalid duration '%s' (1..86400 s)", arg);
		opts.duration_s = v;
		break;
	case 'c':
		if (cpulist_parse(arg, opts.cpus, &opts.nr_cpus, why, sizeof(why)))
			argp_error(state, "%s", why);
		opts.cpus_given = true;
		break;
	case 'p':
		if (!strcmp(arg, "seq"))
			opts.pattern = PATTERN_SEQ;
		else if (!strcmp(arg, "random"))
			opts.pattern = PATTERN_RANDOM;
		else if (!strcmp(arg, "same"))
			opts.pattern = PATTERN_SAME;
		else
			argp_error(state, "invalid pattern '%s' (seq, random or same)",
				   arg);
		break;
	case 'P':
		opts.pin = true;
		break;
	case 'j':
		opts.json = true;
		break;
	case 0x100:
		opts.force = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int read_online(int cpu)
{
	char path[ONLINE_PATH_MAX], c = '1';
	int fd;

	fd = open(online_path(path, cpu), O_RDONLY);
	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = '?';
	close(fd);
	return c == '1' ? 1 : c == '0' ? 0 : -1;
}

/* Write 1 or 0 once; 0 or the errno. */
static int write_online(int cpu, int on, long long *lat)
{
	char path[ONLINE_PATH_MAX];
	long long t0;
	int fd, err = 0;

	fd = open(online_path(path, cpu), O_WRONLY);
	if (fd < 0)
		return errno;
	t0 = now_us();
	if (write(fd, on ? "1" : "0", 1) != 1)
		err = errno;
	*lat = now_us() - t0;
	close(fd);
	return err;
}

/* Append one latency; -1, with s unchanged, when out of memory. */
static int add_sample(struct samples *s, unsigned long long us)
{
	unsigned long long *p;
	size_t cap;

	if (s->n == s->cap) {
		cap = s->cap ? s->cap * 2 : 256;
		if (cap > SIZE_MAX / sizeof(*p))
			return -1;
		p = realloc(s->us, cap * sizeof(*p));
		if (!p)
			return -1;
		s->us = p;
		s->cap = cap;
	}
	s->us[s->n++] = us;
	return 0;
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	int i = w->idx, cpu, state, op, err;
	long long lat;
	cpu_set_t set;

	while (!exiting) {
		if (opts.pattern == PATTERN_SAME)
			cpu = cpu_ids[0];
		else if (opts.pattern == PATTERN_RANDOM)
			cpu = cpu_ids[rand_r(&w->seed) % opts.nr_cpus];
		else	/* seq: stride by the number of writers */
			cpu = cpu_ids[(i += opts.threads, i - opts.threads) %
				      opts.nr_cpus];
		if (opts.pattern != PATTERN_SAME)
			pthread_mutex_lock(&cpu_locks[cpu]);
		/* the time may have run out while this writer queued */
		if (exiting) {
			if (opts.pattern != PATTERN_SAME)
				pthread_mutex_unlock(&cpu_locks[cpu]);
			break;
		}
		state = read_online(cpu);
		if (state < 0) {
			if (opts.pattern != PATTERN_SAME)
				pthread_mutex_unlock(&cpu_locks[cpu]);
			continue;
		}
		op = state ? HPLAT_OFFLINE : HPLAT_ONLINE;
		if (opts.pin && op == HPLAT_OFFLINE) {
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		err = write_online(cpu, op == HPLAT_ONLINE, &lat);
		if (opts.pattern != PATTERN_SAME)
			pthread_mutex_unlock(&cpu_locks[cpu]);
		if (err) {
			w->errors[op][hplat_errno_slot(err)]++;
			if (err == EINTR)
				continue;
		} else if (add_sample(&w->lat[op], lat)) {
			/* an op it cannot count: the figures would be wrong */
			w->oom = true;
			exiting = 1;
			break;
		}
	}
	return NULL;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Bring back every CPU of the list that is not known to be online, also
 * after a failure on one of them. How many were offline and are back; the
 * number of failures in *failed.
 */
static int restore_cpus(int *failed)
{
	long long lat;
	int i, state, err, restored = 0;

	*failed = 0;
	for (i = 0; i < opts.nr_cpus; i++) {
		state = read_online(cpu_ids[i]);
		if (state == 1)
			continue;
		/* unreadable: writing 1 to an online CPU changes nothing */
		err = write_online(cpu_ids[i], 1, &lat);
		if (err) {
			fprintf(stderr, "hpload: failed to bring cpu%d back online: %s\n",
				cpu_ids[i], strerror(err));
			(*failed)++;
		} else if (state == 0) {
			restored++;
		}
	}
	return restored;
}

/* Report an error on stderr, and as {"error": ...} on stdout with -j. */
static void fail(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "hpload: %s\n", msg);
	if (opts.json) {
		hplat_print_json_error(stdout, msg);
		fflush(stdout);
	}
}

/* One operation type's figures, over every writer. */
struct op_figures {
	size_t ops;
	unsigned long long min, p50, p99, max;
	unsigned long long errs[HPLAT_ERRNO_SLOTS];
};

/* Merge every writer's samples of op into one sorted array; 0 or -1. */
static int op_figures(int op, struct op_figures *f)
{
	unsigned long long *all = NULL;
	size_t n = 0, k;
	int t, e;

	memset(f, 0, sizeof(*f));
	for (t = 0; t < opts.threads; t++) {
		n += writers[t].lat[op].n;
		for (e = 0; e < HPLAT_ERRNO_SLOTS; e++)
			f->errs[e] += writers[t].errors[op][e];
	}
	if (!n)
		return 0;
	/* one allocation of the exact size, not a realloc per sample */
	if (n <= SIZE_MAX / sizeof(*all))
		all = malloc(n * sizeof(*all));
	if (!all) {
		fail("out of memory: cannot merge %zu %s latencies", n,
		     hplat_op_names[op]);
		return -1;
	}
	for (t = 0, k = 0; t < opts.threads; t++) {
		if (!writers[t].lat[op].n)
			continue;
		memcpy(all + k, writers[t].lat[op].us,
		       writers[t].lat[op].n * sizeof(*all));
		k += writers[t].lat[op].n;
	}
	qsort(all, n, sizeof(*all), cmp_ull);
	f->ops = n;
	f->min = all[0];
	f->p50 = hpop_pct(all, n, 50);
	f->p99 = hpop_pct(all, n, 99);
	f->max = all[n - 1];
	free(all);
	return 0;
}

/* The summary; -1, with nothing printed on stdout, if out of memory. */
static int report(double secs, int restored, int restore_failed)
{
	struct op_figures figs[HPLAT_NR_OPS];
	unsigned long long total_ops = 0;
	const struct op_figures *f;
	char buf[16];
	int op, e;

	for (op = 0; op < HPLAT_NR_OPS; op++) {
		if (op_figures(op, &figs[op]))
			return -1;
		total_ops += figs[op].ops;
	}
	if (opts.json)
		printf("{\"threads\": %ld, \"cpus\": %d, \"pattern\": \"%s\", "
		       "\"pin\": %s, \"duration_s\": %.3f", opts.threads,
		       opts.nr_cpus, opts.pattern == PATTERN_SEQ ? "seq" :
		       opts.pattern == PATTERN_RANDOM ? "random" : "same",
		       opts.pin ? "true" : "false", secs);
	else
		printf("hpload: %ld writers on %d CPUs for %.1f s\n",
		       opts.threads, opts.nr_cpus, secs);
	for (op = 0; op < HPLAT_NR_OPS; op++) {
		f = &figs[op];
		if (opts.json) {
			printf(", \"%s\": {\"ops\": %zu, \"ops_per_s\": %.3f, "
			       "\"min_us\": %llu, \"p50_us\": %llu, \"p99_us\": %llu, "
			       "\"max_us\": %llu, \"errors_by_errno\": {",
			       hplat_op_names[op], f->ops, f->ops / secs, f->min,
			       f->p50, f->p99, f->max);
			hplat_json_errnos(stdout, f->errs, HPLAT_ERRNO_SLOTS);
			printf("}}");
		} else {
			printf("%-7s %6zu ops %8.2f ops/s  ms: min %.1f p50 %.1f "
			       "p99 %.1f max %.1f\n", hplat_op_names[op], f->ops,
			       f->ops / secs, f->min / 1e3, f->p50 / 1e3,
			       f->p99 / 1e3, f->max / 1e3);
			for (e = 1; e < HPLAT_ERRNO_SLOTS; e++)
				if (f->errs[e])
					printf("        %s: %llu\n",
					       hplat_errno_label(e, buf, sizeof(buf)),
					       f->errs[e]);
		}
	}
	if (opts.json)
		printf(", \"ops_per_s\": %.3f, \"restored_cpus\": %d, "
		       "\"restore_failed_cpus\": %d}\n", total_ops / secs,
		       restored, restore_failed);
	else
		printf("total   %6llu ops %8.2f ops/s, %d CPUs brought back "
		       "online after\n", total_ops, total_ops / secs, restored);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = options, .parser = parse_arg, .doc = doc,
	};
	struct timespec tick = { .tv_nsec = 50000000 };
	char path[ONLINE_PATH_MAX];
	long long t0, t_end;
	int i, n = 0, err = 0, started = 0, restored, restore_failed;
	double secs;

	argp_err_exit_status = 64;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 64;
	for (i = 0; i < CPULIST_MAX; i++) {
		if (opts.cpus_given ? !opts.cpus[i] : i == 0)
			continue;
		if (!hotpluggable(i)) {
			if (!opts.cpus_given)
				continue;
			fprintf(stderr, "hpload: cpu%d is not hot-pluggable (no %s)\n",
				i, online_path(path, i));
			return 64;
		}
		cpu_ids[n++] = i;
	}
	opts.nr_cpus = n;
	if (!n) {
		fprintf(stderr, "hpload: no hot-pluggable CPU to drive\n");
		return 4;
	}
	if (!opts.force && access(HPBRAKE_GUEST_MARKER, F_OK)) {
		fprintf(stderr, "hpload: refusing to plug CPUs outside an hpbrake "
			"guest (no %s); --force overrides\n", HPBRAKE_GUEST_MARKER);
		return 1;
	}

	for (i = 0; i < n; i++) {
		if (access(online_path(path, cpu_ids[i]), W_OK)) {
			fprintf(stderr, "hpload: cannot write %s: %s (it is root's: "
				"run as root, or with CAP_DAC_OVERRIDE)\n", path,
				strerror(errno));
			return 1;
		}
	}

	for (i = 0; i < CPULIST_MAX; i++)
		pthread_mutex_init(&cpu_locks[i], NULL);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = now_us();
	for (i = 0; i < opts.threads; i++) {
		writers[i].idx = i;
		writers[i].seed = (unsigned int)(t0 + i);
		if (pthread_create(&writers[i].tid, NULL, writer_fn, &writers[i])) {
			fail("failed to start writer %d", i);
			exiting = 1;
			err = 1;
			break;
		}
		started++;
	}
	t_end = t0 + opts.duration_s * 1000000LL;
	while (!exiting && now_us() < t_end)
		nanosleep(&tick, NULL);
	exiting = 1;
	for (i = 0; i < started; i++)
		pthread_join(writers[i].tid, NULL);
	secs = (now_us() - t0) / 1e6;
	restored = restore_cpus(&restore_failed);
	for (i = 0; i < started; i++) {
		if (!writers[i].oom)
			continue;
		fail("out of memory: writer %d could not record a latency after "
		     "%zu offline and %zu online ops", i,
		     writers[i].lat[HPLAT_OFFLINE].n,
		     writers[i].lat[HPLAT_ONLINE].n);
		err = 1;
	}
	if (!err && report(secs, restored, restore_failed))
		err = 1;
	if (restore_failed)
		err = 1;
	for (i = 0; i < started; i++) {
		free(writers[i].lat[0].us);
		free(writers[i].lat[1].us);
	}
	return err;
}
