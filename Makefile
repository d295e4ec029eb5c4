# hpbrake: prove, with numbers, what a CPU hotplug brake does.
# `make help` lists the targets.

KVER ?= 6.1
KVERS ?= 6.1 6.12
VARIANT ?= braked
ARGS ?=

CC ?= cc
CFLAGS ?= -O2 -g
WFLAGS := -Wall -Wextra -Werror
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

OUT := build
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
	help clean distclean

GUEST_BINS := $(OUT)/hpop
INITRAMFS := $(OUT)/initramfs.cpio.gz

all: $(GUEST_BINS)

$(OUT)/hpop: loader/hpop.c loader/hpop.h | $(OUT)
	$(msg) CC $@
	$(Q)$(CC) $(CFLAGS) $(WFLAGS) -static -o $@ $<

# Host unit tests run under ASan + UBSan (dynamic: the sanitizers need it).
$(OUT)/hpop-san: loader/hpop.c loader/hpop.h | $(OUT)
	$(msg) CC-SAN $@
	$(Q)$(CC) -O1 -g $(WFLAGS) $(SANFLAGS) -o $@ $<

$(OUT)/test_hpop_parse: tests/unit/test_hpop_parse.c loader/hpop.h | $(OUT)
	$(msg) CC-SAN $@
	$(Q)$(CC) -O1 -g $(WFLAGS) $(SANFLAGS) -Iloader -o $@ $<

$(OUT):
	$(Q)mkdir -p $@

deps:
	$(Q)vm/deps $(KVERS)

kernels: deps
	$(Q)vm/build-kernel $(KVER)

$(INITRAMFS): vm/init vm/mkinitramfs $(wildcard tests/guest/*.sh tests/guest/lib/*.sh) $(GUEST_BINS)
	$(msg) CPIO $@
	$(Q)vm/mkinitramfs $@ $(GUEST_BINS)

initramfs: $(INITRAMFS)

check-host: $(OUT)/hpop-san $(OUT)/test_hpop_parse
	$(Q)tests/run host

check-guest: deps $(INITRAMFS)
	$(Q)for v in $(KVERS); do vm/build-kernel $$v || exit 1; done
	$(Q)tests/run $(KVERS)

# Every test: host unit tests, then guest tests on both kernels of each
# base tree; ends with "N passed, N failed".
check: deps $(OUT)/hpop-san $(OUT)/test_hpop_parse $(INITRAMFS)
	$(Q)for v in $(KVERS); do vm/build-kernel $$v || exit 1; done
	$(Q)tests/run host $(KVERS)

demo: deps $(INITRAMFS)
	$(Q)vm/build-kernel $(KVER)
	$(Q)KVER=$(KVER) VARIANT=braked vm/run -t 240 demo

shell: deps $(INITRAMFS)
	$(Q)vm/build-kernel $(KVER)
	$(Q)KVER=$(KVER) VARIANT=$(VARIANT) vm/run -a "$(ARGS)" shell

help:
	@echo 'hpbrake targets:'
	@echo '  all        build the host-side tools (default): build/hpop'
	@echo '  deps       install missing Debian packages (apt-get, as root)'
	@echo '  kernels    build vanilla and braked kernels of KVER (default 6.1)'
	@echo '             into build/kernel/KVER/{vanilla,braked}/'
	@echo '  initramfs  build/initramfs.cpio.gz: busybox + tools + scenarios'
	@echo '  check      every test: host unit tests, guest tests on vanilla'
	@echo '             and braked kernels of $(KVERS); KTAP output'
	@echo '  check-host host unit tests only (ASan + UBSan)'
	@echo '  check-guest guest tests only'
	@echo '  demo       boot the braked KVER kernel and show the brake at work'
	@echo '  shell      interactive guest shell (KVER=, VARIANT=vanilla|braked,'
	@echo '             ARGS="extra kernel args"); leave with poweroff -f'
	@echo '  clean      remove build/'
	@echo '  distclean  also remove the kernel cache ($(HPBRAKE_CACHE))'
	@echo 'variables: KVER=$(KVER) KVERS="$(KVERS)" V=1 (full commands)'

clean:
	$(msg) CLEAN $(OUT)
	$(Q)rm -rf $(OUT)

distclean: clean
	$(msg) CLEAN $(HPBRAKE_CACHE)
	$(Q)rm -rf $(HPBRAKE_CACHE)
