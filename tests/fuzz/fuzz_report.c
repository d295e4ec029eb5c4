// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: hplat's figures, histograms, text and JSON from any counters
 * the BPF side could hand over. The JSON must parse (a strict checker
 * below: no NaN, no inf, no raw control bytes), percentiles must be
 * ordered, and nothing may read or write out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hplat_report.h"

/* Strict JSON (RFC 8259) recogniser over [p, end): returns past the value. */
static const char *json_value(const char *p, const char *end, int depth);

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *json_string(const char *p, const char *end)
{
	if (p >= end || *p++ != '"')
		return NULL;
	while (p < end && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p++ != '\\')
			continue;
		if (p >= end)
			return NULL;
		if (*p == 'u') {
			for (int i = 1; i <= 4; i++)
				if (p + i >= end || !strchr("0123456789abcdefABCDEF", p[i]))
					return NULL;
			p += 5;
		} else if (strchr("\"\\/bfnrt", *p) && *p) {
			p++;
		} else {
			return NULL;
		}
	}
	return p < end ? p + 1 : NULL;
}

static const char *json_number(const char *p, const char *end)
{
	const char *q;

	if (p < end && *p == '-')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	if (*p == '0')
		p++;
	else
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	if (p < end && *p == '.') {
		q = ++p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == q)
			return NULL;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		q = p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == q)
			return NULL;
	}
	return p;
}

static const char *json_list(const char *p, const char *end, int depth,
			     char close, int keyed)
{
	p = ws(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (keyed) {
			p = json_string(ws(p, end), end);
			if (!p)
				return NULL;
			p = ws(p, end);
			if (p >= end || *p++ != ':')
				return NULL;
		}
		p = json_value(p, end, depth + 1);
		if (!p)
			return NULL;
		p = ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		return p < end && *p == close ? p + 1 : NULL;
	}
}

static const char *json_value(const char *p, const char *end, int depth)
{
	if (depth > 32)
		return NULL;
	p = ws(p, end);
	if (p >= end)
		return NULL;
	switch (*p) {
	case '{':
		return json_list(p, end, depth, '}', 1);
	case '[':
		return json_list(p, end, depth, ']', 0);
	case '"':
		return json_string(p, end);
	case 't':
		return end - p >= 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
	case 'f':
		return end - p >= 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
	case 'n':
		return end - p >= 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
	default:
		return json_number(p, end);
	}
}

/* One JSON object per line, and nothing else. */
static void check_json_lines(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl, *q;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl || *p != '{')
			abort();
		q = json_value(p, nl, 0);
		if (!q || ws(q, nl) != nl)
			abort();
		p = nl + 1;
	}
}

static size_t take(void *dst, size_t n, const uint8_t **data, size_t *size)
{
	size_t k = n < *size ? n : *size;

	memcpy(dst, *data, k);
	*data += k;
	*size -= k;
	return k;
}

static const char *const names[] = { "threads:prepare", "sched:active",
				     "with \"quote\"", "tab\there" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hplat_snapshot s;
	struct hplat_figures f;
	uint32_t interval_us = 0;
	uint8_t flags = 0;
	char comm[24];
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int op, i;

	memset(&s, 0, sizeof(s));
	take(&flags, 1, &data, &size);
	s.per_cpu = flags & 1;
	s.linear = flags & 2;
	s.steps = flags & 4;
	s.attach_mode = flags & 8 ? "kprobe" : "fentry";
	/* hplat measures the interval: finite and >= 0, maybe 0 */
	take(&interval_us, sizeof(interval_us), &data, &size);
	s.interval_s = interval_us / 1e6;
	take(&s.lin_width_us, sizeof(s.lin_width_us), &data, &size);
	take(&s.max_in_flight, sizeof(s.max_in_flight), &data, &size);
	take(&s.lock_restarts, sizeof(s.lock_restarts), &data, &size);
	take(&s.lock_wait_ns, sizeof(s.lock_wait_ns), &data, &size);
	take(&s.lock_waits_done, sizeof(s.lock_waits_done), &data, &size);
	take(&s.dropped_events, sizeof(s.dropped_events), &data, &size);
	memset(comm, 0, sizeof(comm));
	take(comm, sizeof(comm) - 1, &data, &size);
	take(s.ops, sizeof(s.ops), &data, &size);
	for (i = 0; i < HPLAT_MAX_STATES; i++)
		s.state_names[i] = i % 5 ? names[i % 4] : NULL;
	if (s.steps)
		take(s.states, sizeof(s.states), &data, &size);
	if (s.per_cpu)
		take(s.cpus, sizeof(s.cpus), &data, &size);

	for (op = 0; op < HPLAT_NR_OPS; op++) {
		hplat_figures(&s.ops[op], &f);
		if (f.count && f.min_us <= f.max_us &&
		    !(f.min_us <= f.p50_us && f.p50_us <= f.p90_us &&
		      f.p90_us <= f.p99_us && f.p99_us <= f.max_us))
			abort();
	}

	out = open_memstream(&buf, &len);
	if (!out)
		return 0;
	hplat_print_json(out, &s);
	hplat_print_json_error(out, comm);
	fputc('{', out);
	fputs("\"comm\": ", out);
	hplat_json_string(out, comm);
	fputs(", \"errors_by_errno\": {", out);
	hplat_json_errnos(out, s.ops[0].err, HPLAT_MAX_ERRNO);
	fputs("}}\n", out);
	fclose(out);
	check_json_lines(buf, len);
	free(buf);

	out = fopen("/dev/null", "w");
	if (!out)
		return 0;
	hplat_print_text(out, &s);
	fclose(out);
	return 0;
}
