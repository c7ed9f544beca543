# fuzz.mk - libFuzzer harnesses for every guest- or user-reachable parser
# (tests/fuzz/README.md). Included by the top-level Makefile; BUILD is set
# by the includer (default build). Everything goes to $(BUILD)/fuzz/.
# Targets:
#   fuzz          run each fuzzer for FUZZ_SECONDS (default 60) on a copy of
#                 its seed corpus; print exec/s and coverage; fail on a crash
#   fuzz-regress  replay tests/fuzz/regressions and the seed corpora once
#   fuzz-build    just build $(BUILD)/fuzz/fuzz_*
# Needs clang with libFuzzer (Debian: clang-14, libclang-rt-14-dev).

FUZZ_SRC := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
FUZZ_SAVED_DEFAULT_GOAL := $(.DEFAULT_GOAL)

BUILD        ?= build
FUZZ_OUT     := $(BUILD)/fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_ARGS    ?=
# The library's link flags, as the top-level Makefile has them.
FUZZ_LDLIBS   = $(if $(LDLIBS),$(LDLIBS),-lz)
FUZZERS      := bzimage pe firmware firmware32 devices emulate ktap devpath events elf esp_disk secure_boot \
                secure_boot32 keydir snapshot cpio dtb sweep_baseline notify inject

# UB aborts (counts as a crash) instead of printing and going on.
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $(FUZZ_SAN)

# The pure libraries, as the top-level Makefile finds them (PURE_DIRS).
FUZZ_LIB_SRC := $(foreach d,$(PURE_DIRS),$(wildcard $(d)/*.c))
FUZZ_LIB_OBJ := $(patsubst %.c,$(FUZZ_OUT)/obj/%.o,$(FUZZ_LIB_SRC))
FUZZ_BINS    := $(FUZZERS:%=$(FUZZ_OUT)/fuzz_%)

$(FUZZ_OUT)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

# Named outside the pattern rule so make keeps them (not intermediates).
$(FUZZ_BINS): $(FUZZ_LIB_OBJ)

$(FUZZ_OUT)/fuzz_%: $(FUZZ_SRC)/fuzz_%.c $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< $(FUZZ_LIB_OBJ) $(FUZZ_LDLIBS)

# fuzz_firmware.c again, on an IA-32 firmware (its header says what changes).
$(FUZZ_OUT)/fuzz_firmware32: $(FUZZ_SRC)/fuzz_firmware.c $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFUZZ_FIRMWARE_BITS=32 -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< $(FUZZ_LIB_OBJ) \
	    $(FUZZ_LDLIBS)

# fuzz_secure_boot.c again: its variable services on an IA-32 firmware.
$(FUZZ_OUT)/fuzz_secure_boot32: $(FUZZ_SRC)/fuzz_secure_boot.c $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFUZZ_SECURE_BOOT_BITS=32 -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< \
	    $(FUZZ_LIB_OBJ) $(FUZZ_LDLIBS)

# The --snapshot state file's checks live with the host code (vmm/host)
# and its payload's with the tools (vmm/tools/snapshot_payload.c),
# which no other harness links: their objects, built as the library's are.
FUZZ_SNAPSHOT_OBJ := $(FUZZ_OUT)/obj/vmm/host/snapshot_file.o $(FUZZ_OUT)/obj/vmm/tools/snapshot_payload.o
$(FUZZ_OUT)/fuzz_snapshot: $(FUZZ_SRC)/fuzz_snapshot.c $(FUZZ_LIB_OBJ) $(FUZZ_SNAPSHOT_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< $(FUZZ_LIB_OBJ) $(FUZZ_SNAPSHOT_OBJ) \
	    $(FUZZ_LDLIBS)

# --sweep-baseline's reader and the log it reports to, with jansson.
FUZZ_SWEEP_OBJ := $(FUZZ_OUT)/obj/vmm/tools/sweep_matrix.o $(FUZZ_OUT)/obj/vmm/host/log.o
$(FUZZ_OUT)/fuzz_sweep_baseline: $(FUZZ_SRC)/fuzz_sweep_baseline.c $(FUZZ_LIB_OBJ) $(FUZZ_SWEEP_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< $(FUZZ_LIB_OBJ) $(FUZZ_SWEEP_OBJ) \
	    $(FUZZ_LDLIBS) -ljansson

.PHONY: fuzz fuzz-build fuzz-regress fuzz-smoke
fuzz-build: $(FUZZ_BINS)

# One fuzzer at a time: the figures mean something on a busy machine.
fuzz: $(FUZZ_BINS)
	FUZZ_ARGS='$(FUZZ_ARGS)' $(FUZZ_SRC)/run.sh fuzz $(FUZZ_OUT) $(FUZZ_SRC) $(FUZZ_SECONDS) $(FUZZERS)

# A short run of every harness, in make test: a harness whose contract has
# drifted from the code (an assertion the code no longer keeps) fails here.
# Two at a time: its figures are not what it is for.
fuzz-smoke: $(FUZZ_BINS)
	FUZZ_JOBS=2 $(FUZZ_SRC)/run.sh fuzz $(FUZZ_OUT) $(FUZZ_SRC) $(FUZZ_SMOKE_SECONDS) $(FUZZERS)

fuzz-regress: $(FUZZ_BINS)
	$(FUZZ_SRC)/run.sh regress $(FUZZ_OUT) $(FUZZ_SRC) 0 $(FUZZERS)

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_SNAPSHOT_OBJ:.o=.d) $(FUZZ_SWEEP_OBJ:.o=.d) $(FUZZ_BINS:=.d)

# Do not let this fragment's first rule become the includer's default goal.
.DEFAULT_GOAL := $(FUZZ_SAVED_DEFAULT_GOAL)
