/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HPLAT_KPROBE_H
#define HPLAT_KPROBE_H

struct bpf_link;
struct bpf_program;

/* A kretprobe made through tracefs' kprobe_events (group "hpbrake"). */
struct hplat_kretprobe {
	char name[96];
	struct bpf_link *link;
	int created;
};

/* Attach prog as a kretprobe on func with maxactive instances; 0 or
 * -errno, with nothing left behind on failure.
 */
int hplat_kretprobe_attach(struct bpf_program *prog, const char *func,
			   int maxactive, struct hplat_kretprobe *kp);
/* Detach and remove the tracefs event; safe on a zeroed struct. */
void hplat_kretprobe_detach(struct hplat_kretprobe *kp);
/* Returns the probe missed since it was made (kprobe_profile), or -1. */
long long hplat_kretprobe_misses(const struct hplat_kretprobe *kp);
/* Remove events left by an hplat that was killed (its pid is gone). */
void hplat_kprobe_remove_stale(void);

#endif /* HPLAT_KPROBE_H */
