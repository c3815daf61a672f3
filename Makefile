# SPDX-License-Identifier: GPL-2.0
#
# make                 build ac-iosched.ko for the running kernel
# make AC_TEST_MODULES=1  ... and the test modules (sim/ssdsim.ko, the floor
#                      elevator, the log guard's self-test; never installed)
# make KDIR=<dir>      ... for the kernel whose build directory is <dir>
# make KSRC=<dir>      take the private block/ headers from this source tree
# make unit            user-space tests of the dispatch policy
# make lint            checkpatch --strict, sparse and W=1 (warnings fail)
# make check           everything: unit, lint and builds for all supported
#                      kernels, guest test suites (README: the test command)
# make check-debug     the guest suites on the lockdep/KASAN/fault-injection
#                      kernel (built once, cached)
# make check-calibrate ac-calibrate on every emulated-SSD geometry (6.12)
# make install / uninstall (ac-iosched.ko and ac-calibrate, in SBINDIR),
#                      install-udev

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
SBINDIR ?= /usr/local/sbin
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
GENERATED := $(TOP)/compat/generated/ac-compat.h

# Resolved once per make run; an empty result stops with ac-ksrc's message.
AC_KSRC = $(shell $(TOP)/scripts/ac-ksrc '$(KDIR)' '$(KSRC)' || echo __ERROR__)

.PHONY: all modules probe clean unit lint checkpatch sparse check check-debug check-calibrate install dkms-test \
	uninstall install-udev help

all: modules

modules: probe
	$(MAKE) -C '$(KDIR)' M='$(TOP)' AC_KSRC='$(AC_KSRC_V)' modules

# Compile probes against the target kernel -> compat/generated/ac-compat.h
probe:
	$(eval AC_KSRC_V := $(AC_KSRC))
	@if [ '$(AC_KSRC_V)' = __ERROR__ ]; then exit 1; fi
	@mkdir -p $(dir $(GENERATED))
	@$(TOP)/scripts/ac-probe '$(KDIR)' '$(AC_KSRC_V)' '$(GENERATED)'
	@echo "  PROBE   $(GENERATED): $$(grep -c '^#define AC_HAVE' $(GENERATED)) features found"

clean:
	$(MAKE) -C '$(KDIR)' M='$(TOP)' clean 2>/dev/null || true
	rm -rf $(TOP)/compat/generated
	$(MAKE) -C tests/unit clean

unit:
	@$(TOP)/scripts/ac-unit

# checkpatch comes with the kernel source (scripts/checkpatch.pl).
KERNEL_C := $(wildcard $(TOP)/*.c $(TOP)/*.h $(TOP)/sim/*.c $(TOP)/sim/*.h \
	$(TOP)/tests/kmod/*.c $(TOP)/bench/floor/*.c $(TOP)/compat/probes/*.c $(TOP)/compat/probes/*.h)
checkpatch: probe
	@cp=$(AC_KSRC_V)/scripts/checkpatch.pl; \
	[ -f $$cp ] || { echo "checkpatch.pl not found in $(AC_KSRC_V)/scripts"; exit 1; }; \
	perl $$cp --no-tree --strict --quiet --show-types --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
		-f $(KERNEL_C) && echo "  CHECKPATCH clean ($(words $(KERNEL_C)) files)"

# sparse (C=2: check every file) and W=1; any warning fails.
sparse: probe
	@$(MAKE) -C '$(KDIR)' M='$(TOP)' AC_KSRC='$(AC_KSRC_V)' clean >/dev/null
	@$(MAKE) -C '$(KDIR)' M='$(TOP)' AC_KSRC='$(AC_KSRC_V)' AC_TEST_MODULES=1 C=2 W=1 modules \
		2>&1 | tee $(TOP)/compat/generated/lint.log
	@! grep -E 'warning:|error:' $(TOP)/compat/generated/lint.log
	@echo "  SPARSE+W=1 clean"

lint: checkpatch sparse

check:
	@$(TOP)/scripts/ac-check

# The guest suites on the lockdep/KASAN/fault-injection kernel (README,
# "Testing"); not part of check, which it would push past CI's time.
check-debug:
	@$(TOP)/scripts/ac-check --debug

check-calibrate:
	@$(TOP)/scripts/ac-check --calibrate

# modules_install takes what the modules target above just built (its
# modules.order): ac-iosched.ko alone, whatever an AC_TEST_MODULES=1 build left.
install: modules
	$(MAKE) -C '$(KDIR)' M='$(TOP)' AC_KSRC='$(AC_KSRC_V)' modules_install
	depmod -a $(KVER)
	install -D -m 755 $(TOP)/scripts/ac-calibrate $(DESTDIR)$(SBINDIR)/ac-calibrate

# Also removes the ssdsim.ko that installs before issue 41 put beside it.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/ac-calibrate
	rm -f /lib/modules/$(KVER)/updates/ac-iosched.ko* /lib/modules/$(KVER)/updates/sim/ssdsim.ko* \
		/lib/modules/$(KVER)/extra/ac-iosched.ko* /lib/modules/$(KVER)/extra/sim/ssdsim.ko*
	depmod -a $(KVER)

# Keeps the rules ac-calibrate --persist added to the installed file.
UDEV_RULES ?= $(DESTDIR)/etc/udev/rules.d/60-ac-iosched.rules
install-udev:
	@tmp=$$(mktemp) && cp $(TOP)/packaging/60-ac-iosched.rules $$tmp && \
	if [ -f '$(UDEV_RULES)' ]; then \
		awk '/^# ac-calibrate begin /{p=1; print ""} p{print} /^# ac-calibrate end /{p=0}' \
			'$(UDEV_RULES)' >> $$tmp; \
	fi && install -D -m 644 $$tmp '$(UDEV_RULES)' && rm -f $$tmp && \
	echo "installed $(UDEV_RULES)"

# dkms add/build/install of this tree in private trees (tests, CI).
dkms-test:
	@$(TOP)/scripts/ac-dkms-test '$(KDIR)' '$(KSRC)'
