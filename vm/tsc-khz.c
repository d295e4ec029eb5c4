// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: print the rate of this x86 host's TSC in kHz.
 *
 * Under QEMU's TCG an x86 guest reads the host's own TSC (QEMU's
 * cpu_get_ticks() is the host's rdtsc), so this is the guest's TSC rate
 * too. vm/run hands it to the guest kernel as tsc_early_khz=: microvm
 * has no HPET and no PM timer to calibrate the TSC against, and the
 * kernel's calibration against the emulated PIT fails under TCG often
 * enough ("tsc: Unable to calibrate against PIT"), after which the TSC
 * is marked unstable and every hrtimer fires on a tick.
 *
 * Two consecutive readings of 50 ms against CLOCK_MONOTONIC_RAW must
 * agree within 0.1 %; a reading disturbed by the host (a stall between
 * the clock and the TSC read) is taken again, up to 6 readings. If no two
 * agree (a TSC whose rate changes), nothing is printed and the exit
 * status is 1.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double rate_khz(void)
{
	struct timespec t0, t1, nap = { 0, 50 * 1000 * 1000 };
	unsigned long long c0, c1;
	double s;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
	c0 = __rdtsc();
	nanosleep(&nap, NULL);
	clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
	c1 = __rdtsc();
	s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return s > 0 ? (c1 - c0) / s / 1000 : 0;
}

int main(void)
{
	double prev = rate_khz(), cur;
	int i;

	for (i = 1; i < 6; i++) {
		cur = rate_khz();
		if (prev >= 1000 && cur >= 1000 &&
		    (prev > cur ? prev - cur : cur - prev) <= prev / 1000) {
			printf("%.0f\n", (prev + cur) / 2);
			return 0;
		}
		prev = cur;
	}
	fprintf(stderr, "tsc-khz: no steady TSC rate in 6 readings (last %.0f kHz)\n",
		prev);
	return 1;
}
