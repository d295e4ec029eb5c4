// SPDX-License-Identifier: GPL-2.0
/*
 * kretprobes with a chosen number of instances (maxactive), through
 * tracefs. libbpf 1.1 attaches kretprobes through the kprobe PMU, whose
 * maxactive is the kernel's default, max(10, 2 x possible CPUs): with
 * more writers than that inside lock_device_hotplug_sysfs() at once,
 * returns are dropped. A tracefs kprobe event takes "rN:" and reports its
 * misses in kprobe_profile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

#include "hplat_kprobe.h"

#define GROUP "hpbrake"

static const char *tracefs(void)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[96];
	size_t i;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/kprobe_events", roots[i]);
		if (!access(path, W_OK))
			return roots[i];
	}
	return NULL;
}

/* Write line to tracefs' kprobe_events; 0 or -errno. */
static int kprobe_events(const char *root, const char *line)
{
	char path[96];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, strlen(line)) < 0)
		err = -errno;
	close(fd);
	return err;
}

void hplat_kprobe_remove_stale(void)
{
	const char *root = tracefs();
	char path[96], line[256], name[128], cmd[160];
	int pid;
	FILE *f;

	if (!root)
		return;
	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	f = fopen(path, "r");
	if (!f)
		return;
	/* r10:hpbrake/hplat_123_lock_device_hotplug_sysfs lock_device_... */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*[^:]:" GROUP "/%127s", name) != 1 ||
		    sscanf(name, "hplat_%d_", &pid) != 1)
			continue;
		/*
		 * Called before this process makes any: one with its own pid
		 * is a dead process's whose pid came back.
		 */
		if (pid != getpid() && (!kill(pid, 0) || errno != ESRCH))
			continue;
		snprintf(cmd, sizeof(cmd), "-:" GROUP "/%s\n", name);
		kprobe_events(root, cmd);
	}
	fclose(f);
}

int hplat_kretprobe_attach(struct bpf_program *prog, const char *func,
			   int maxactive, struct hplat_kretprobe *kp)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	const char *root = tracefs();
	char line[256], path[192], buf[32];
	int fd, pfd, err, cpu;
	ssize_t n;

	memset(kp, 0, sizeof(*kp));
	if (!root)
		return -ENOENT;
	snprintf(kp->name, sizeof(kp->name), "hplat_%d_%s", getpid(), func);
	snprintf(line, sizeof(line), "r%d:" GROUP "/%s %s\n", maxactive,
		 kp->name, func);
	err = kprobe_events(root, line);
	if (err)
		return err;
	kp->created = 1;
	snprintf(path, sizeof(path), "%s/events/" GROUP "/%s/id", root, kp->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		err = -EIO;
		goto fail;
	}
	buf[n] = '\0';
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = strtoull(buf, NULL, 10);
	/*
	 * One event, on a CPU that is online now: the program it carries runs
	 * wherever the probe fires. CPU 0 may be offline (arm64 lets it go).
	 */
	cpu = sched_getcpu();
	pfd = syscall(__NR_perf_event_open, &attr, -1, cpu < 0 ? 0 : cpu, -1,
		      PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		err = -errno;
		goto fail;
	}
	/* the link closes pfd when it goes */
	kp->link = bpf_program__attach_perf_event(prog, pfd);
	if (!kp->link) {
		err = -errno;
		close(pfd);
		goto fail;
	}
	return 0;
fail:
	hplat_kretprobe_detach(kp);
	return err;
}

void hplat_kretprobe_detach(struct hplat_kretprobe *kp)
{
	const char *root = tracefs();
	char line[160];

	bpf_link__destroy(kp->link);
	kp->link = NULL;
	if (kp->created && root) {
		snprintf(line, sizeof(line), "-:" GROUP "/%s\n", kp->name);
		kprobe_events(root, line);
	}
	kp->created = 0;
}

long long hplat_kretprobe_misses(const struct hplat_kretprobe *kp)
{
	const char *root = tracefs();
	char path[96], line[256], name[128];
	unsigned long long hits, misses;
	long long ret = -1;
	FILE *f;

	if (!root || !kp->created)
		return -1;
	snprintf(path, sizeof(path), "%s/kprobe_profile", root);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* "  hplat_123_func    hits    misses" */
	while (fgets(line, sizeof(line), f)) {
		const char *ev = name;

		if (sscanf(line, " %127s %llu %llu", name, &hits, &misses) != 3)
			continue;
		/* the event's name, with its group on some kernels */
		if (!strncmp(ev, GROUP "/", strlen(GROUP "/")))
			ev += strlen(GROUP "/");
		if (!strcmp(ev, kp->name)) {
			ret = (long long)misses;
			break;
		}
	}
	fclose(f);
	return ret;
}
