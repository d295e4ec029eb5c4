// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: hplat's figures, histograms, text and JSON from any counters
 * the BPF side could hand over, and JSON strings from any bytes. The JSON
 * must parse (a strict checker below: no NaN, no inf, no raw control
 * bytes, only valid UTF-8, no lone surrogate escapes), percentiles of
 * every distribution must be ordered, and nothing may read or write out
 * of bounds.
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

/*
 * Length of the UTF-8 sequence at p (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF), or 0 if it is not valid.
 */
static int utf8_seq(const unsigned char *p, const unsigned char *end)
{
	static const unsigned int min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned int cp;
	int len, i;

	if (*p < 0x80)
		return 1;
	len = (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
	      (*p & 0xf8) == 0xf0 ? 4 : 0;
	if (!len || end - p < len)
		return 0;
	cp = *p & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Four hex digits at p, or -1. */
static long hex4(const char *p, const char *end)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		if (p + i >= end || !p[i] || !strchr("0123456789abcdefABCDEF", p[i]))
			return -1;
		v = v * 16 + (p[i] <= '9' ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10);
	}
	return v;
}

static const char *json_string(const char *p, const char *end)
{
	long u, lo;
	int len;

	if (p >= end || *p++ != '"')
		return NULL;
	while (p < end && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\') {
			len = utf8_seq((const unsigned char *)p,
				       (const unsigned char *)end);
			if (!len)
				return NULL;
			p += len;
			continue;
		}
		if (++p >= end)
			return NULL;
		if (*p == 'u') {
			u = hex4(p + 1, end);
			if (u < 0 || (u >= 0xdc00 && u <= 0xdfff))
				return NULL;
			p += 5;
			/* a high surrogate only as the first of a pair */
			if (u >= 0xd800 && u <= 0xdbff) {
				if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
					return NULL;
				lo = hex4(p + 2, end);
				if (lo < 0xdc00 || lo > 0xdfff)
					return NULL;
				p += 6;
			}
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

	if (!len)
		abort();
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
				     "with \"quote\"", "tab\there",
				     "bad \xff\xc0\xaf\xed\xa0\x80 utf-8" };

/* How every summary begins. */
#define SUMMARY_START "{\"event\": \"summary\", \"ts\": \""

/* min <= p50 <= p90 <= p99 <= max wherever min <= max holds. */
static void check_order(const struct hplat_dist *d)
{
	struct hplat_figures f;

	hplat_figures(d, &f);
	if (f.count != d->count)
		abort();
	if (f.count && f.min_us <= f.max_us &&
	    !(f.min_us <= f.p50_us && f.p50_us <= f.p90_us &&
	      f.p90_us <= f.p99_us && f.p99_us <= f.max_us))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hplat_snapshot s;
	struct hplat_stats *st = &s.st;
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
	s.usecs = flags & 16;
	s.timestamp = flags & 32;
	s.brake_event = flags & 64;
	s.wall = "12:34:56";
	s.wall_iso = "2026-12-03T11:34:56.789Z";
	/* hplat measures the interval: finite and >= 0, maybe 0 */
	take(&interval_us, sizeof(interval_us), &data, &size);
	s.interval_s = interval_us / 1e6;
	take(&s.lin_width_us, sizeof(s.lin_width_us), &data, &size);
	take(&st->max_in_flight, sizeof(st->max_in_flight), &data, &size);
	take(&st->lock_restarts, sizeof(st->lock_restarts), &data, &size);
	take(&st->lock_wait_ns, sizeof(st->lock_wait_ns), &data, &size);
	take(&st->lock_waits_done, sizeof(st->lock_waits_done), &data, &size);
	take(&st->dropped_events, sizeof(st->dropped_events), &data, &size);
	take(&st->missed_starts, sizeof(st->missed_starts), &data, &size);
	take(&st->start_drops, sizeof(st->start_drops), &data, &size);
	take(&st->filtered, sizeof(st->filtered), &data, &size);
	take(&s.kprobe_misses, sizeof(s.kprobe_misses), &data, &size);
	take(&s.bpf_misses, sizeof(s.bpf_misses), &data, &size);
	if (flags & 128)
		s.kprobe_misses = -1ULL;	/* unknown */
	/* any bytes: a comm, a state name */
	memset(comm, 0, sizeof(comm));
	take(comm, sizeof(comm) - 1, &data, &size);
	take(st->ops, sizeof(st->ops), &data, &size);
	for (i = 0; i < HPLAT_MAX_STATES; i++)
		s.state_names[i] = i % 6 ? names[i % 5] : i % 12 ? comm : NULL;
	if (s.steps)
		take(st->steps, sizeof(st->steps), &data, &size);
	if (s.per_cpu)
		take(st->cpus, sizeof(st->cpus), &data, &size);

	for (op = 0; op < HPLAT_NR_OPS; op++) {
		check_order(&st->ops[op].lat);
		check_order(&st->ops[op].brake);
		check_order(&st->ops[op].own);
	}

	out = open_memstream(&buf, &len);
	if (!out)
		return 0;
	hplat_print_json(out, &s);
	hplat_print_json_error(out, comm);
	fputc('{', out);
	fputs("\"comm\": ", out);
	hplat_json_string(out, comm);
	for (op = 0; op < HPLAT_NR_OPS; op++) {
		fprintf(out, ", \"%s\": {", hplat_op_names[op]);
		hplat_json_errnos(out, st->ops[op].err, HPLAT_ERRNO_SLOTS);
		fputc('}', out);
	}
	fputs("}\n", out);
	fclose(out);
	check_json_lines(buf, len);
	if (strncmp(buf, SUMMARY_START, sizeof(SUMMARY_START) - 1))
		abort();
	free(buf);

	out = fopen("/dev/null", "w");
	if (!out)
		return 0;
	hplat_print_text(out, &s);
	fclose(out);
	return 0;
}
