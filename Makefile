# SPDX-License-Identifier: GPL-2.0
#
# Front door of the markers workbench; the work is done by tools/workbench.py.
#
#   make test          apply the series, build the test matrix, boot each
#                      kernel in QEMU, run every test; last line "N passed, N failed"
#   make test-all      make test on every base (settings.BASES), each whole matrix
#                      (what leaves make test for time runs here)
#   make run           boot the patched kernel and show markers at work
#   make series        write out/series (cover letter + patches) and checkpatch it
#   make series-check  build the kernel after every patch (bisectability)
#   make range-diff    git range-diff of the series (7.3) and its 6.12 backport
#   make bench         the benchmark (issue: markers vs static keys, tracepoints, kprobes)
#   make bench-macro   whole workloads on kernels with hot paths instrumented or not
#   make bench-silicon the benchmark kernel's real.c functions timed on the host's
#                      CPU (part of make bench; no guest)
#   make bench-poke    the int3 patcher's numbers: static keys and static calls
#                      before the series and after patch 01, a marker's switch
#                      in one batch and in chunks of 256 (patch 04)
#   make mutate        the mutation gate: each mutation of tests/mutations must fail a test
#   make ftracetest    every case of upstream's ftrace selftests in the debug kernel (hours)
#   make ftracetest-markers  the ten of them where marker events take part
#                      (settings.FTRACETEST_CASES; no longer in make test)
#
# Without CONFIGS nor BASE, make test runs settings.TEST_PLAN: 7.3's debug,
# clang and arm64, and 6.12's rt. CONFIGS="rt debug" limits it to some
# configs of BASE's matrix; "6.12/rt" names one of another base.
# BASE=6.12 applies the series to another kernel than the default (7.3),
# and make test then runs that base's whole matrix: the series is written
# for 7.3, and 6.12 takes it with the delta of backport/6.12/; the bases
# are settings.BASES of tools/wb/settings.py.
# MUTATIONS="01 05" limits `make mutate` to some mutations; DRY_RUN=1 only
# applies and reverts them; BASELINE=0 skips booting the unmutated kernel;
# RESUME=1 keeps the outcomes an earlier run recorded for the same commit;
# IN_PLACE=1 mutates the series' own tree and rebuilds the matrix's kernels
# in place (nothing else may build meanwhile).
# FTRACETEST_CASES="tracer/wakeup.tc" limits `make ftracetest` to some cases.

PYTHON ?= python3
ifneq ($(BASE),)
export MARKERS_BASE := $(BASE)
endif
WORKBENCH := $(PYTHON) tools/workbench.py
CONFIG_ARGS := $(foreach c,$(CONFIGS),--config $(c))
MUTATE_ARGS := $(foreach m,$(MUTATIONS),--mutation $(m)) \
	$(if $(filter-out 0,$(DRY_RUN)),--dry-run) $(if $(filter 0,$(BASELINE)),--no-baseline) \
	$(if $(filter-out 0,$(RESUME)),--resume) $(if $(filter-out 0,$(IN_PLACE)),--in-place)

.PHONY: test test-all run series series-check range-diff bench bench-macro bench-silicon bench-poke mutate ftracetest ftracetest-markers build clean help

help:
	@sed -n '3,/^$$/{/^#/p}' Makefile | sed 's/^# \{0,1\}//'

test:
	$(WORKBENCH) test $(CONFIG_ARGS)

test-all:
	$(WORKBENCH) test --all

run:
	$(WORKBENCH) run

series:
	$(WORKBENCH) series

series-check:
	$(WORKBENCH) series-check

range-diff:
	$(WORKBENCH) range-diff

ftracetest:
	$(WORKBENCH) ftracetest $(foreach c,$(FTRACETEST_CASES),--case $(c))

ftracetest-markers:
	$(WORKBENCH) ftracetest --markers

bench:
	$(WORKBENCH) bench

bench-macro:
	$(WORKBENCH) bench-macro

bench-silicon:
	$(WORKBENCH) bench-silicon

bench-poke:
	$(WORKBENCH) bench-poke

mutate:
	$(WORKBENCH) mutate $(MUTATE_ARGS)

build:
	$(WORKBENCH) build $(CONFIG_ARGS)

clean:
	rm -rf out
