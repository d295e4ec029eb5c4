/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPULIST_H
#define CPULIST_H

#include <stdbool.h>
#include <stddef.h>

#define CPULIST_MAX 1024

/*
 * Parse "N", "N-M" and comma-separated lists of them into set[CPULIST_MAX]
 * and the number of CPUs in it. On error return -1 with a one-line reason
 * in why; set and nr are then meaningless.
 */
int cpulist_parse(const char *s, bool *set, int *nr, char *why, size_t whylen);

#endif /* CPULIST_H */
