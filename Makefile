# hpbrake: prove, with numbers, what a CPU hotplug brake does.
# `make help` lists the targets.

KVER ?= 6.1
KVERS ?= 6.1 6.12
# ARCH=arm64: the arm64 guest (QEMU virt, TCG) for kernels, initramfs, the
# tools, demo, shell, gate and install: its kernels in
# build/kernel/arm64-KVER/, its tools and initramfs in build/arm64/,
# cross-built with gcc-aarch64-linux-gnu and statically linked against
# Debian's :arm64 libraries. The scripts read ARCH from the environment.
ARCH ?= x86
# the kernel's other name for it, as a shell may have it exported
ifeq ($(ARCH),x86_64)
override ARCH := x86
endif
export ARCH
# base trees that also get a debug kernel (lockdep, atomic sleep, hung task)
DEBUG_KVERS ?= 6.1
export DEBUG_KVERS
VARIANT ?= braked
ARGS ?=
# make gate KERNEL=bzImage EXPECT_BRAKE_MS=N [VMLINUX=vmlinux]
KERNEL ?=
EXPECT_BRAKE_MS ?=
VMLINUX ?=
# make mutants MUTANTS="short jiffies" (default: all of tests/mutants/)
MUTANTS ?=
# make bugcost: the grid and where its NDJSON goes (OUT=FILE)
BRAKES ?= 0 10 100 1000
TESTERS ?= 1 4
MINUTES ?= 2
# make install: where the tools and their man pages go
PREFIX ?= /usr/local
DESTDIR ?=

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
CFLAGS ?= -O2 -g
# The kernel whose BTF gives vmlinux.h; CO-RE relocates to any other.
BTF_KVER ?= 6.1
# The architecture the BPF programs read registers of (PT_REGS), the host's
# unless cross-building.
BPF_ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ifeq ($(ARCH),arm64)
BUILD := build/arm64
# the kernels' directory names under build/kernel/
KTAG := arm64-
BPF_ARCH := arm64
ifeq ($(origin CC),default)
CC := aarch64-linux-gnu-gcc
endif
else ifeq ($(ARCH),x86)
BUILD := build
KTAG :=
else
$(error ARCH must be x86 or arm64, not '$(ARCH)')
endif
# the arm64 base trees make check covers (vanilla and braked)
ARM64_KVERS ?= 6.1
# what ARCH=arm64 is for; make check covers arm64 by itself
ARM64_GOALS := all kernels initramfs demo shell gate install uninstall deps help
ifeq ($(ARCH),arm64)
ifneq ($(filter-out $(ARM64_GOALS) $(BUILD)/%,$(or $(MAKECMDGOALS),all)),)
$(error ARCH=arm64 is for: $(ARM64_GOALS); make check covers arm64 by itself)
endif
endif
# vm/deps: what ARCH=arm64 and make check need beside the rest
DEPS_ARCH := $(if $(filter arm64,$(ARCH)),arm64)
# the debug kernel: x86 only
KDEBUG = $(if $(filter x86,$(ARCH)),$(if $(filter $(KVER),$(DEBUG_KVERS)),debug))
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror
WFLAGS := -Wall -Wextra -Werror
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

HPBRAKE_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hpbrake
export HPBRAKE_CACHE

ifeq ($(V),1)
Q :=
msg := @true
else
Q := @
msg := @printf '  %-8s %s\n'
endif

.DELETE_ON_ERROR:
.PHONY: all deps kernels initramfs check check-host check-guest demo shell \
	bench-overhead gate mutants check-series bugcost report soak fuzz help \
	install uninstall clean distclean

GUEST_BINS := $(BUILD)/hpop $(BUILD)/hplat $(BUILD)/hpload
INITRAMFS := $(BUILD)/initramfs.cpio
BTF_VMLINUX := build/kernel/$(KTAG)$(BTF_KVER)/vanilla/vmlinux
HPLAT_OBJS := $(BUILD)/hplat.o $(BUILD)/hplat_opts.o $(BUILD)/hplat_report.o \
	$(BUILD)/hplat_kprobe.o $(BUILD)/cpulist.o
INCLUDES := -I$(BUILD) -Ibpf -Iloader

all: $(GUEST_BINS)

# vmlinux.h comes from the kernel this project built, and is remade when
# that kernel changes.
$(BTF_VMLINUX):
	$(Q)vm/build-kernel $(BTF_KVER)

$(BUILD)/vmlinux.h: $(BTF_VMLINUX) | $(BUILD)
	$(msg) BTF $@
	$(Q)$(BPFTOOL) btf dump file $< format c > $@

$(BUILD)/hplat.bpf.o: bpf/hplat.bpf.c bpf/hplat.h $(BUILD)/vmlinux.h
	$(msg) BPF $@
	$(Q)$(CLANG) $(BPF_CFLAGS) $(INCLUDES) -c $< -o $(@:.o=.tmp.o)
	$(Q)$(BPFTOOL) gen object $@ $(@:.o=.tmp.o)
	$(Q)rm -f $(@:.o=.tmp.o)

$(BUILD)/hplat.skel.h: $(BUILD)/hplat.bpf.o
	$(msg) GEN-SKEL $@
	$(Q)$(BPFTOOL) gen skeleton $< name hplat_bpf > $@

$(BUILD)/hplat.o: loader/hplat.c $(BUILD)/hplat.skel.h bpf/hplat.h loader/hplat_opts.h \
	loader/hplat_report.h loader/hplat_kprobe.h loader/hpop.h loader/cpulist.h
$(BUILD)/hplat_opts.o: loader/hplat_opts.c loader/hplat_opts.h loader/hpop.h loader/cpulist.h
$(BUILD)/hplat_report.o: loader/hplat_report.c loader/hplat_report.h bpf/hplat.h
$(BUILD)/hplat_kprobe.o: loader/hplat_kprobe.c loader/hplat_kprobe.h
$(BUILD)/cpulist.o: loader/cpulist.c loader/cpulist.h loader/hpop.h

$(HPLAT_OBJS): $(BUILD)/%.o: loader/%.c | $(BUILD)
	$(msg) CC $@
	$(Q)$(CC) $(CFLAGS) $(WFLAGS) $(INCLUDES) -c $< -o $@

$(BUILD)/hpload: loader/hpload.c loader/cpulist.c loader/cpulist.h loader/hplat_report.c loader/hplat_report.h loader/hpop.h bpf/hplat.h | $(BUILD)
	$(msg) CC $@
	$(Q)$(CC) $(CFLAGS) $(WFLAGS) -Iloader -Ibpf -static -pthread -o $@ $(filter %.c,$^) -lm

$(BUILD)/hpload-san: loader/hpload.c loader/cpulist.c loader/cpulist.h loader/hplat_report.c loader/hplat_report.h loader/hpop.h bpf/hplat.h | $(BUILD)
	$(msg) CC-SAN $@
	$(Q)$(CC) -O1 -g $(WFLAGS) $(SANFLAGS) -Iloader -Ibpf -pthread -o $@ $(filter %.c,$^) -lm

$(BUILD)/test_cpulist: tests/unit/test_cpulist.c loader/cpulist.c loader/cpulist.h loader/hpop.h | $(BUILD)
	$(msg) CC-SAN $@
	$(Q)$(CC) -O1 -g $(WFLAGS) $(SANFLAGS) -Iloader -o $@ $(filter %.c,$^)

$(BUILD)/hplat: $(HPLAT_OBJS)
	$(msg) LD $@
	$(Q)$(CC) $(CFLAGS) -static -o $@ $^ -lbpf -lelf -lz -lzstd -lm

$(BUILD)/hpop: loader/hpop.c loader/hpop.h | $(BUILD)
	$(msg) CC $@
	$(Q)$(CC) $(CFLAGS) $(WFLAGS) -static -o $@ $<

# Host unit tests run under ASan + UBSan (dynamic: the sanitizers need it).
$(BUILD)/hpop-san: loader/hpop.c loader/hpop.h | $(BUILD)
	$(msg) CC-SAN $@
	$(Q)$(CC) -O1 -g $(WFLAGS) $(SANFLAGS) -o $@ $<

$(BUILD)/test_hpop_parse: tests/unit/test_hpop_parse.c loader/hpop.h | $(BUILD)
	$(msg) CC-SAN $@
	$(Q)$(CC) -O1 -g $(WFLAGS) $(SANFLAGS) -Iloader -o $@ $<

$(BUILD)/test_hplat_report: tests/unit/test_hplat_report.c loader/hplat_report.c loader/hplat_report.h bpf/hplat.h | $(BUILD)
	$(msg) CC-SAN $@
	$(Q)$(CC) -O1 -g $(WFLAGS) $(SANFLAGS) -pthread -Iloader -Ibpf -o $@ $(filter %.c,$^) -lm

$(BUILD)/test_hplat_opts: tests/unit/hplat_opts_main.c loader/hplat_opts.c loader/hplat_opts.h \
	loader/cpulist.c loader/cpulist.h loader/hpop.h | $(BUILD)
	$(msg) CC-SAN $@
	$(Q)$(CC) -O1 -g $(WFLAGS) $(SANFLAGS) -Iloader -o $@ $(filter %.c,$^)

$(BUILD) $(BUILD)/fuzz:
	$(Q)mkdir -p $@

# libFuzzer harnesses (clang, with ASan + UBSan); tests/fuzz/corpus/NAME/
# holds their seeds and every input that once crashed them.
FUZZERS := cpulist opts report
FUZZ_BINS := $(FUZZERS:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Werror -Iloader -Ibpf

$(BUILD)/fuzz/fuzz_cpulist: tests/fuzz/fuzz_cpulist.c loader/cpulist.c loader/cpulist.h loader/hpop.h | $(BUILD)/fuzz
$(BUILD)/fuzz/fuzz_opts: tests/fuzz/fuzz_opts.c loader/hplat_opts.c loader/hplat_opts.h \
	loader/cpulist.c loader/cpulist.h loader/hpop.h | $(BUILD)/fuzz
$(BUILD)/fuzz/fuzz_report: tests/fuzz/fuzz_report.c loader/hplat_report.c loader/hplat_report.h bpf/hplat.h | $(BUILD)/fuzz

$(FUZZ_BINS):
	$(msg) FUZZER $@
	$(Q)$(CLANG) $(FUZZ_FLAGS) -o $@ $(filter %.c,$^) -lm

deps:
	$(Q)vm/deps $(KVERS) $(DEPS_ARCH)

kernels: deps
	$(Q)vm/build-kernel $(KVER) $(KDEBUG)

# Also takes stress-ng, bash-static and the extracted tree's cpu-hotplug
# selftest, when present.
$(INITRAMFS): vm/init vm/mkinitramfs $(wildcard tests/guest/*.sh tests/guest/lib/* tests/guest/suites/* tests/mutants/*.mut) $(GUEST_BINS)
	$(msg) CPIO $@
	$(Q)vm/mkinitramfs $@ $(GUEST_BINS)
	$(Q)rm -f $(BUILD)/initramfs.cpio.gz   # its compressed predecessor

initramfs: $(INITRAMFS)

HOST_TESTS := $(BUILD)/hpop-san $(BUILD)/test_hpop_parse $(BUILD)/test_hplat_report \
	$(BUILD)/test_hplat_opts $(BUILD)/test_cpulist $(BUILD)/hpload-san $(GUEST_BINS) \
	$(FUZZ_BINS)

check-host: $(HOST_TESTS)
	$(Q)tests/run host

# the tools' sub-make: a job per core, unless the caller gave -j (then
# the caller's jobs). The tools, test binaries and initramfs of a fresh
# clone, as make check builds them: 19.0-19.3 s one job at a time,
# 12.8-13.5 s with -j2 (2 cores).
SUBMAKE = $(MAKE) -s --no-print-directory \
	$(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))

# vanilla and braked kernels of each of $(KVERS), and the debug kernel of
# those also in $(DEBUG_KVERS)
BUILD_KERNELS = for v in $(KVERS); do \
		vm/build-kernel $$v $$(case " $(DEBUG_KVERS) " in *" $$v "*) echo debug;; esac) || exit 1; \
	done

# the arm64 kernels of $(ARM64_KVERS) (vanilla, braked), and the arm64
# tools and initramfs
# (the cross compiler whatever CC the caller gave; nothing of arm64 with
# ARM64_KVERS empty)
BUILD_ARM64 = $(if $(ARM64_KVERS),for v in $(ARM64_KVERS); do ARCH=arm64 vm/build-kernel $$v || exit 1; done && \
	$(SUBMAKE) ARCH=arm64 CC=aarch64-linux-gnu-gcc \
		BTF_KVER=$(firstword $(ARM64_KVERS)) initramfs,true)
check check-guest: DEPS_ARCH := $(if $(ARM64_KVERS),arm64)

# Kernels first: vmlinux.h, and so hplat, follow the kernel they describe.
check-guest: deps
	$(Q)$(BUILD_KERNELS)
	$(Q)$(BUILD_ARM64)
	$(Q)$(SUBMAKE) $(INITRAMFS)
	$(Q)tests/run $(KVERS) $(addprefix arm64-,$(ARM64_KVERS))

# Every test: host unit tests, then guest tests on both kernels of each
# base tree, x86 and arm64; ends with "N passed, N failed".
check: deps
	$(Q)$(BUILD_KERNELS)
	$(Q)$(BUILD_ARM64)
	$(Q)$(SUBMAKE) $(HOST_TESTS) $(INITRAMFS)
	$(Q)tests/run host $(KVERS) $(addprefix arm64-,$(ARM64_KVERS)) report mutant

demo: deps
	$(Q)vm/build-kernel $(KVER)
	$(Q)$(SUBMAKE) $(INITRAMFS)
	$(Q)KVER=$(KVER) VARIANT=braked vm/run -t $(if $(KTAG),600,240) demo

shell: deps
	$(Q)vm/build-kernel $(KVER)
	$(Q)$(SUBMAKE) $(INITRAMFS)
	$(Q)KVER=$(KVER) VARIANT=$(VARIANT) vm/run -a "$(ARGS)" shell

# The gate. With KERNEL=bzImage EXPECT_BRAKE_MS=N [VMLINUX=...]: vm/gate
# on that kernel. Without: on both kernels of KVER (braked must pass
# expecting its brake, vanilla expecting none; the figures of those runs
# judged again with vm/gate GATE_FROM=, vanilla expecting a brake and
# braked expecting a shorter one, must fail).
gate: deps
	$(Q)$(SUBMAKE) $(INITRAMFS)
ifneq ($(KERNEL),)
	$(Q)test -n "$(EXPECT_BRAKE_MS)" || { echo "make gate: KERNEL= needs EXPECT_BRAKE_MS= (see vm/gate)" >&2; exit 64; }
	$(Q)KERNEL="$(KERNEL)" EXPECT_BRAKE_MS="$(EXPECT_BRAKE_MS)" VMLINUX="$(VMLINUX)" vm/gate
else
	$(Q)vm/build-kernel $(KVER)
	$(Q)tests/run gate-$(KTAG)$(KVER)
endif

# Every mutant of tests/mutants/ against the scenarios that must catch
# it (KVER's braked kernel); the kill table goes to docs/reliability.md.
mutants: deps
	$(Q)vm/build-kernel $(KVER)
	$(Q)$(SUBMAKE) $(INITRAMFS) $(BUILD)/hpop $(BUILD)/hpload
	$(Q)vm/mutants -k $(KVER) $(MUTANTS)
	$(Q)vm/mutants-table $(BUILD)/mutants/table.md docs/reliability.md

# What the brake costs in bug finding (vm/bugcost): one guest per
# (brake, testers) cell with the planted bugs of tests/module/.
bugcost: deps
	$(Q)vm/build-kernel $(KVER)
	$(Q)$(SUBMAKE) $(INITRAMFS)
	$(Q)KVER=$(KVER) BRAKES="$(BRAKES)" TESTERS="$(TESTERS)" MINUTES="$(MINUTES)" \
		OUT="$(or $(OUT),$(BUILD)/bugcost.ndjson)" vm/bugcost

# The series patch by patch: checkpatch, W=1 builds of every prefix, the
# same code with the brake off (vm/check-series; about 16 minutes for both trees).
check-series: deps
	$(Q)for v in $(KVERS); do vm/check-series $$v || exit 1; done

# The comparison report (A=KVER/VARIANT B=KVER/VARIANT, A_ARGS, B_ARGS):
# build/report/{report.md,index.html}, checked in headless Chromium.
# A or B as arm64-KVER/VARIANT: that arm64 kernel, and the arm64 tools
REPORT_ARM64 = $(sort $(patsubst arm64-%,%,$(filter arm64-%,$(firstword $(subst /, ,$(A))) $(firstword $(subst /, ,$(B))))))
report: DEPS_ARCH := $(if $(REPORT_ARM64),arm64)
report: deps
	$(Q)for v in $(sort $(KVER) $(KVERS)); do vm/build-kernel $$v || exit 1; done
	$(Q)$(SUBMAKE) $(INITRAMFS)
	$(Q)$(if $(REPORT_ARM64),for v in $(REPORT_ARM64); do ARCH=arm64 vm/build-kernel $$v || exit 1; done && \
		$(SUBMAKE) ARCH=arm64 CC=aarch64-linux-gnu-gcc \
		BTF_KVER=$(firstword $(REPORT_ARM64)) initramfs,true)
	$(Q)vm/report
	$(Q)tests/report-check.sh $(or $(OUT),$(BUILD)/report)

# Tracer overhead on the vanilla kernel; writes docs/overhead.md.
bench-overhead: deps
	$(Q)vm/build-kernel $(KVER)
	$(Q)$(SUBMAKE) $(INITRAMFS)
	$(Q)KVER=$(KVER) vm/bench-overhead

# Each fuzzer for FUZZ_SECONDS, from its corpus in tests/fuzz/corpus/;
# new inputs go to build/fuzz/corpus/, crashes to build/fuzz/crash-*.
fuzz: $(FUZZ_BINS)
	$(Q)tests/fuzz/run $(FUZZ_SECONDS) $(FUZZERS)

# The long soak (120 s) on every kernel of $(KVERS).
soak: deps
	$(Q)$(BUILD_KERNELS)
	$(Q)$(SUBMAKE) $(INITRAMFS)
	$(Q)tests/run $(addprefix soak-,$(KVERS))

# The static tools and their man pages, for a test box of one's own: to
# sbin, not to bin as libbpf-tools do, since what they are for needs root
# (hence section 8 for their pages). Installed, each still refuses to touch
# a machine that is not an hpbrake guest unless given -f (hpop) or --force
# (hplat, hpload).
SBINDIR = $(DESTDIR)$(PREFIX)/sbin
MAN8DIR = $(DESTDIR)$(PREFIX)/share/man/man8
MAN_PAGES := docs/hpop.8 docs/hplat.8 docs/hpload.8

install: $(GUEST_BINS)
	$(msg) INSTALL "$(SBINDIR)"
	$(Q)install -d "$(SBINDIR)" "$(MAN8DIR)"
	$(Q)install -m 0755 $(GUEST_BINS) "$(SBINDIR)"
	$(msg) INSTALL "$(MAN8DIR)"
	$(Q)install -m 0644 $(MAN_PAGES) "$(MAN8DIR)"

uninstall:
	$(msg) RM "$(notdir $(GUEST_BINS)) from $(SBINDIR)"
	$(Q)rm -f $(foreach f,$(notdir $(GUEST_BINS)),"$(SBINDIR)/$(f)")
	$(msg) RM "$(notdir $(MAN_PAGES)) from $(MAN8DIR)"
	$(Q)rm -f $(foreach f,$(notdir $(MAN_PAGES)),"$(MAN8DIR)/$(f)")

help:
	@echo 'hpbrake targets:'
	@echo '  all        build the tools (default): build/hpop, build/hplat,'
	@echo '             build/hpload (hplat needs the 6.1 vanilla kernel for'
	@echo '             vmlinux.h)'
	@echo '  install    the tools to DESTDIR/PREFIX/sbin (they need root), their'
	@echo '             man pages to DESTDIR/PREFIX/share/man/man8'
	@echo '  uninstall  remove what install put there'
	@echo '  deps       install missing Debian packages (apt-get, as root)'
	@echo '  kernels    build vanilla and braked kernels of KVER (default 6.1)'
	@echo '             into build/kernel/KVER/{vanilla,braked}/ with the'
	@echo '             guest-only test modules, and the lockdep one (debug/)'
	@echo '             if KVER is in DEBUG_KVERS ($(DEBUG_KVERS))'
	@echo '  initramfs  build/initramfs.cpio: busybox + tools + scenarios'
	@echo '  check      every test: host unit tests, guest suites on the'
	@echo '             kernels of $(KVERS) and arm64 $(ARM64_KVERS), gates,'
	@echo '             report, a mutant; KTAP,'
	@echo '             "N passed, N failed, N skipped, N re-measured"'
	@echo '  check-host host unit tests only (ASan + UBSan, as nobody)'
	@echo '  check-guest guest suites only'
	@echo '  demo       boot the braked KVER kernel and show the brake at work'
	@echo '  shell      interactive guest shell (KVER=, VARIANT=vanilla|braked,'
	@echo '             ARGS="extra kernel args"); leave with reboot -f'
	@echo '  gate       vm/gate on the braked (expect the brake) and vanilla'
	@echo '             (expect none) KVER kernels, and the cases that must'
	@echo '             fail; with KERNEL=bzImage EXPECT_BRAKE_MS=N'
	@echo '             [VMLINUX=vmlinux]: vm/gate on that kernel'
	@echo '  mutants    broken brakes, tracer, load and runner (tests/mutants/,'
	@echo '             MUTANTS=), each must be caught; kill table to'
	@echo '             docs/reliability.md'
	@echo '  check-series  the series patch by patch: checkpatch --strict,'
	@echo '             W=1 builds, the same code with the brake off'
	@echo '  bugcost    what the brake costs in bug finding: BRAKES="$(BRAKES)"'
	@echo '             TESTERS="$(TESTERS)" MINUTES=$(MINUTES) OUT=FILE (NDJSON)'
	@echo '  report     vanilla vs braked (A=6.1/vanilla B=6.1/braked, any two,'
	@echo '             arm64-6.1/braked too; A_ARGS/B_ARGS add kernel args; BUGCOST=NDJSON adds the'
	@echo '             bug-finding section) to build/report/, checked in Chromium'
	@echo '  bench-overhead  hplat overhead on the vanilla kernel (BPF run time'
	@echo '             per op, ops/s A/B) to docs/overhead.md and docs/hplat.8'
	@echo '  soak       8 random writers with hplat -e for 120 s on every'
	@echo '             kernel of $(KVERS), debug ones included, and a tiny ring'
	@echo '  fuzz       each libFuzzer harness for FUZZ_SECONDS (60): CPU lists,'
	@echo '             hplat options, figures/histograms/JSON'
	@echo '  clean      remove build/'
	@echo '  distclean  also remove the kernel cache ($(HPBRAKE_CACHE))'
	@echo 'variables: KVER=$(KVER) KVERS="$(KVERS)" DEBUG_KVERS="$(DEBUG_KVERS)"'
	@echo '           ARCH=$(ARCH) (or arm64: kernels, initramfs, tools, demo,'
	@echo '           shell, gate, install for the arm64 guest, QEMU virt;'
	@echo '           into build/kernel/arm64-KVER/ and build/arm64/)'
	@echo '           ARM64_KVERS="$(ARM64_KVERS)" (the arm64 trees make check runs)'
	@echo '           PREFIX=$(PREFIX) DESTDIR="$(DESTDIR)" V=1 (full commands)'

clean:
	$(msg) CLEAN $(BUILD)
	$(Q)rm -rf $(BUILD)

distclean: clean
	$(msg) CLEAN $(HPBRAKE_CACHE)
	$(Q)rm -rf $(HPBRAKE_CACHE)
