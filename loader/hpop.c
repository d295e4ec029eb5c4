// SPDX-License-Identifier: GPL-2.0
/*
 * hpop: one timed CPU hotplug operation, or one exact sysfs write.
 *
 * The guest tests time hotplug operations from user space with this helper:
 * busybox has no clock finer than a second. The latency is CLOCK_MONOTONIC
 * around the write(2) to /sys/devices/system/cpu/cpuN/online, so it covers
 * the brake, the cpuhp state machine and any wait for the hotplug lock.
 *
 * Output is one line of key=value pairs that a shell can split:
 *   op=offline cpu=1 ret=0 errno=0 latency_us=1003921
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hpop.h"

#define EXIT_USAGE 64

static const char usage_text[] =
"usage: hpop [-f] [-u UID] [-k MS [-s SIG] [-c]] op CPU online|offline\n"
"       hpop [-f] [-u UID] [-k MS [-s SIG] [-c]] write FILE STRING\n"
"       hpop [-u UID] read FILE\n"
"       hpop timed-read FILE\n"
"       hpop now\n"
"\n"
"  op      write 1 or 0 to /sys/devices/system/cpu/cpuCPU/online and print\n"
"          op=, cpu=, ret=, errno= and latency_us= on one line\n"
"  write   write STRING (exactly, no newline added; \"\" is a zero-length\n"
"          write) to FILE and print ret=, errno= and latency_us=\n"
"  read    print FILE's contents (as UID with -u)\n"
"  timed-read  read FILE once (64 bytes at most) and print ret=, errno=,\n"
"          latency_us= (the read(2) alone) and value= (up to the first\n"
"          newline)\n"
"  now     print CLOCK_MONOTONIC in microseconds\n"
"\n"
"  -u UID  become this uid, the same gid and no supplementary groups\n"
"          before the write or read\n"
"  -k MS   do the write in a child and signal it after MS milliseconds;\n"
"          also print killed=1 if the signal ended it, else killed=0\n"
"  -s SIG  the signal for -k: KILL (default), INT or TERM\n"
"  -c      the child catches SIG with a handler that does nothing\n"
"  -f      run outside an hpbrake guest (writes the host's own sysfs)\n"
"\n"
"exit: 0 done, 1 the write or read failed, or hpop did (then with no\n"
"      key=value line), 64 usage error\n"
"\n"
"EXAMPLES:\n"
"  hpop op 1 offline        take cpu1 down, print how long it took\n"
"  hpop -k 300 op 1 online  kill the writer 300 ms into the operation\n"
"  hpop -k 300 -s INT op 1 offline\n"
"  hpop -u 65534 write /sys/devices/system/cpu/hotplug/brake_ms 5\n";

static void usage(const char *why)
{
	fprintf(stderr, "hpop: %s\n%s", why, usage_text);
	exit(EXIT_USAGE);
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Write buf exactly once; return 0 or the errno of the failed write. */
static int write_once(const char *path, const char *buf, long long *lat_us)
{
	long long t0;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	t0 = now_us();
	n = write(fd, buf, strlen(buf));
	*lat_us = now_us() - t0;
	if (n < 0)
		err = errno;
	else if ((size_t)n != strlen(buf))
		err = EIO;
	close(fd);
	return err;
}

/*
 * Become uid, with gid the same number and no supplementary groups: a
 * root that kept its groups (disk, adm, ...) would still pass their
 * permission checks. Groups first, as they need CAP_SETGID.
 */
static int drop_to(long uid)
{
	if (uid < 0)
		return 0;
	if (setgroups(0, NULL)) {
		fprintf(stderr, "hpop: failed to drop supplementary groups: %s\n",
			strerror(errno));
		return -1;
	}
	if (setgid((gid_t)uid)) {
		fprintf(stderr, "hpop: failed to set gid %ld: %s\n", uid,
			strerror(errno));
		return -1;
	}
	if (setuid((uid_t)uid)) {
		fprintf(stderr, "hpop: failed to set uid %ld: %s\n", uid,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int cat_file(const char *path)
{
	char buf[4096];
	size_t n;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "hpop: failed to open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	if (ferror(f)) {
		fprintf(stderr, "hpop: failed to read %s: %s\n", path,
			strerror(errno));
		fclose(f);
		return 1;
	}
	fclose(f);
	return 0;
}

/* Parse the kernel's own "online"/"offline" words or 1/0. */
static int parse_op(const char *s)
{
	if (!strcmp(s, "online") || !strcmp(s, "1"))
		return 1;
	if (!strcmp(s, "offline") || !strcmp(s, "0"))
		return 0;
	return -1;
}

static int in_guest(void)
{
	return access(HPBRAKE_GUEST_MARKER, F_OK) == 0;
}

static void ignore_signal(int sig)
{
	(void)sig;
}

/*
 * Run the write in a child that gets signal sig kill_ms into it (caught
 * by an empty handler if catch). The child reports its own result through
 * a pipe if it gets that far. 0 with the write's errno in *err (0 if the
 * signal ended the child), or -1, said on stderr, when hpop cannot tell
 * what the write did.
 */
static int write_killed(const char *path, const char *buf, long uid,
			long kill_ms, int sig, int catch, int *err,
			long long *lat_us, int *killed)
{
	struct timespec delay = {
		.tv_sec = kill_ms / 1000,
		.tv_nsec = (kill_ms % 1000) * 1000000L,
	};
	int status = 0, res = 0, pfd[2];
	long long t0;
	ssize_t n;
	pid_t pid, r;

	*err = 0;
	*killed = 0;
	/* with SIGCHLD ignored the kernel would reap the child, not waitpid() */
	signal(SIGCHLD, SIG_DFL);
	if (pipe(pfd)) {
		fprintf(stderr, "hpop: failed to create a pipe: %s\n",
			strerror(errno));
		return -1;
	}
	t0 = now_us();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "hpop: failed to fork the writer: %s\n",
			strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		long long lat;

		close(pfd[0]);
		if (catch)
			signal(sig, ignore_signal);
		if (drop_to(uid))
			_exit(1);
		res = write_once(path, buf, &lat);
		if (write(pfd[1], &res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	nanosleep(&delay, NULL);
	kill(pid, sig);
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	*lat_us = now_us() - t0;
	if (r < 0) {
		fprintf(stderr, "hpop: failed to wait for the writer (pid %d): %s\n",
			(int)pid, strerror(errno));
		/* still ours, as nothing else waits for it: it must not live on */
		kill(pid, SIGKILL);
		close(pfd[0]);
		return -1;
	}
	n = read(pfd[0], &res, sizeof(res));
	close(pfd[0]);
	*killed = WIFSIGNALED(status) && WTERMSIG(status) == sig;
	if (*killed)
		return 0;
	if (n == sizeof(res)) {
		*err = res;
		return 0;
	}
	/* it ended before the write: drop_to() failed, or a crash */
	if (WIFSIGNALED(status))
		fprintf(stderr, "hpop: the writer died of signal %d without a result\n",
			WTERMSIG(status));
	else
		fprintf(stderr, "hpop: the writer exited with status %d without a result\n",
			WEXITSTATUS(status));
	return -1;
}

static const char *errno_name(int err)
{
	switch (err) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case EINTR: return "EINTR";
	case EAGAIN: return "EAGAIN";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case EIO: return "EIO";
	case ERANGE: return "ERANGE";
	default: return "other";
	}
}

/* One timed read(2) of FILE: how long a reader of a sysfs file waits. */
static int timed_read(const char *path)
{
	char buf[65], *nl;
	long long t0, lat;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		err = errno;
		printf("ret=-1 errno=%s latency_us=0 value=\n", errno_name(err));
		return 1;
	}
	t0 = now_us();
	n = read(fd, buf, sizeof(buf) - 1);
	lat = now_us() - t0;
	if (n < 0) {
		err = errno;
		n = 0;
	}
	close(fd);
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	printf("ret=%d errno=%s latency_us=%lld value=%s\n", err ? -1 : 0,
	       errno_name(err), lat, buf);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	long uid = -1, kill_ms = -1, cpu;
	int opt, force = 0, err, killed = 0, op = -1, sig = SIGKILL, catch = 0;
	int sig_given = 0;
	char path[64], why[40];
	const char *file, *buf;
	long long lat = 0;

	/* ':' first: hpop says what is wrong, on one line, not getopt */
	while ((opt = getopt(argc, argv, "+:fu:k:s:ch")) != -1) {
		switch (opt) {
		case 'f':
			force = 1;
			break;
		case 'u':
			if (hpop_parse_long(optarg, 0, INT_MAX, &uid))
				usage("invalid uid");
			break;
		case 'k':
			if (hpop_parse_long(optarg, 1, 600000, &kill_ms))
				usage("invalid kill delay (1..600000 ms)");
			break;
		case 's':
			if (!strcmp(optarg, "KILL"))
				sig = SIGKILL;
			else if (!strcmp(optarg, "INT"))
				sig = SIGINT;
			else if (!strcmp(optarg, "TERM"))
				sig = SIGTERM;
			else
				usage("invalid signal (KILL, INT or TERM)");
			sig_given = 1;
			break;
		case 'c':
			catch = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case ':':
			snprintf(why, sizeof(why), "option -%c needs a value",
				 optopt);
			usage(why);
			break;
		default:
			snprintf(why, sizeof(why), "unknown option -%c", optopt);
			usage(why);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage("missing command");
	if (kill_ms < 0 && (sig_given || catch))
		usage("-s and -c go with -k");
	if (catch && sig == SIGKILL)
		usage("SIGKILL cannot be caught: -c wants -s INT or -s TERM");

	if (!strcmp(argv[0], "now")) {
		if (argc != 1)
			usage("now takes no arguments");
		if (uid >= 0 || kill_ms > 0 || force)
			usage("now takes no -u, -k or -f");
		printf("%lld\n", now_us());
		return 0;
	} else if (!strcmp(argv[0], "read")) {
		if (argc != 2)
			usage("read takes FILE");
		if (kill_ms > 0)
			usage("read takes no -k");
		if (drop_to(uid))
			return 1;
		return cat_file(argv[1]);
	} else if (!strcmp(argv[0], "timed-read")) {
		if (argc != 2)
			usage("timed-read takes FILE");
		if (uid >= 0 || kill_ms > 0)
			usage("timed-read takes no -u or -k");
		return timed_read(argv[1]);
	} else if (!strcmp(argv[0], "op")) {
		if (argc != 3)
			usage("op takes CPU and online|offline");
		if (hpop_parse_long(argv[1], 0, 8191, &cpu))
			usage("invalid cpu number");
		op = parse_op(argv[2]);
		if (op < 0)
			usage("operation must be online or offline");
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/online", cpu);
		file = path;
		buf = op ? "1" : "0";
	} else if (!strcmp(argv[0], "write")) {
		if (argc != 3)
			usage("write takes FILE and STRING");
		file = argv[1];
		buf = argv[2];
	} else {
		usage("unknown command");
	}

	if (!force && !in_guest()) {
		fprintf(stderr,
			"hpop: refusing to write %s outside an hpbrake guest (no %s); -f overrides\n",
			file, HPBRAKE_GUEST_MARKER);
		return 1;
	}

	if (kill_ms > 0) {
		if (write_killed(file, buf, uid, kill_ms, sig, catch, &err, &lat,
				 &killed))
			return 1;
	} else {
		if (drop_to(uid))
			return 1;
		err = write_once(file, buf, &lat);
	}

	if (op >= 0)
		printf("op=%s cpu=%ld ", op ? "online" : "offline", cpu);
	printf("ret=%d errno=%s latency_us=%lld", err ? -1 : 0,
	       errno_name(err), lat);
	if (kill_ms > 0)
		printf(" killed=%d", killed);
	printf("\n");
	return err ? 1 : 0;
}
