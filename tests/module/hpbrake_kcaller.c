// SPDX-License-Identifier: GPL-2.0
/*
 * hpbrake_kcaller: take a CPU offline or online the way the kernel's own
 * callers do, through remove_cpu() and add_cpu(), from a kernel thread or
 * from the writing task itself, and time it. The guest tests use it to
 * show that the CPU hotplug brake leaves such requests alone.
 *
 * Built against the guest kernel's tree by vm/build-kernel and loaded only
 * inside a guest booted by hpbrake (tests/guest/), never on a host.
 *
 *   echo "kthread offline 1" > /sys/kernel/debug/hpbrake_kcaller/op
 *   cat /sys/kernel/debug/hpbrake_kcaller/op
 *   kthread offline 1 ret=0 ns=20731122
 *
 * "task" instead of "kthread" makes the call in the writer's own context,
 * as an ioctl or a module parameter handler would.
 *
 * Loading and unloading it also sets up and removes a dynamic cpuhp state
 * (hpbrake/kcaller:online), whose callbacks then run on every online CPU
 * outside of any online or offline operation: hplat -S must not count
 * them as steps of one.
 */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

struct kcaller_req {
	unsigned int cpu;
	bool online;
	int ret;
	u64 ns;
	struct completion done;
};

static DEFINE_MUTEX(kcaller_lock);
static enum cpuhp_state kcaller_state;
static char kcaller_last[96] = "none\n";
static struct dentry *kcaller_dir;

static void kcaller_do(struct kcaller_req *req)
{
	u64 t0 = ktime_get_ns();

	req->ret = req->online ? add_cpu(req->cpu) : remove_cpu(req->cpu);
	req->ns = ktime_get_ns() - t0;
}

static int kcaller_thread(void *arg)
{
	struct kcaller_req *req = arg;

	kcaller_do(req);
	complete(&req->done);
	return 0;
}

static ssize_t kcaller_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct kcaller_req req = { };
	char buf[48], mode[16], op[16];
	struct task_struct *t;
	ssize_t ret = count;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%15s %15s %u", mode, op, &req.cpu) != 3)
		return -EINVAL;
	if (!strcmp(op, "online"))
		req.online = true;
	else if (strcmp(op, "offline"))
		return -EINVAL;
	if (req.cpu >= nr_cpu_ids)
		return -EINVAL;

	mutex_lock(&kcaller_lock);
	if (!strcmp(mode, "kthread")) {
		init_completion(&req.done);
		t = kthread_run(kcaller_thread, &req, "hpbrake_kcaller");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto out;
		}
		wait_for_completion(&req.done);
	} else if (!strcmp(mode, "task")) {
		kcaller_do(&req);
	} else {
		ret = -EINVAL;
		goto out;
	}
	snprintf(kcaller_last, sizeof(kcaller_last), "%s %s %u ret=%d ns=%llu\n",
		 mode, op, req.cpu, req.ret, req.ns);
out:
	mutex_unlock(&kcaller_lock);
	return ret;
}

static ssize_t kcaller_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&kcaller_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, kcaller_last,
				      strlen(kcaller_last));
	mutex_unlock(&kcaller_lock);
	return ret;
}

static const struct file_operations kcaller_fops = {
	.owner = THIS_MODULE,
	.read = kcaller_read,
	.write = kcaller_write,
	.llseek = default_llseek,
};

static int kcaller_cpu_cb(unsigned int cpu)
{
	return 0;
}

static int __init kcaller_init(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "hpbrake/kcaller:online",
				kcaller_cpu_cb, kcaller_cpu_cb);
	if (ret < 0)
		return ret;
	kcaller_state = ret;
	kcaller_dir = debugfs_create_dir("hpbrake_kcaller", NULL);
	debugfs_create_file("op", 0600, kcaller_dir, NULL, &kcaller_fops);
	return 0;
}

static void __exit kcaller_exit(void)
{
	debugfs_remove_recursive(kcaller_dir);
	cpuhp_remove_state(kcaller_state);
}

module_init(kcaller_init);
module_exit(kcaller_exit);
MODULE_DESCRIPTION("hpbrake guest test: CPU hotplug requests from the kernel");
MODULE_LICENSE("GPL");
