# payload.mk - builds the synthetic test payload, $(BUILD)/payload.bzImage.
#
# Included by the top-level Makefile; BUILD is set by the includer (default
# build). Intermediates go to $(BUILD)/payload/. Only gcc and binutils.
# Targets: $(BUILD)/payload.bzImage, payload-check (runs check-image.py).

PAYLOAD_SRC := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
PAYLOAD_SAVED_DEFAULT_GOAL := $(.DEFAULT_GOAL)

BUILD ?= build
PAYLOAD_OUT := $(BUILD)/payload
PAYLOAD_IMAGE := $(BUILD)/payload.bzImage
PAYLOAD_ELF := $(PAYLOAD_OUT)/payload.elf

PAYLOAD_CC ?= gcc
PAYLOAD_LD ?= ld
PAYLOAD_OBJCOPY ?= objcopy
PAYLOAD_READELF ?= readelf
PAYLOAD_PYTHON ?= python3

PAYLOAD_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror \
	-ffreestanding -fno-stack-protector -fpie -fvisibility=hidden \
	-mno-red-zone -mgeneral-regs-only -nostdlib -fno-common \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fcf-protection=none \
	-fno-jump-tables -MMD -MP
PAYLOAD_ASFLAGS := -ffreestanding -fpie -MMD -MP
PAYLOAD_LDFLAGS := -static -nostdlib --no-dynamic-linker -z noexecstack \
	--build-id=none -T $(PAYLOAD_SRC)/payload.ld

# Position independence: the code objects may only hold RIP-relative
# relocations (header.o holds the link-time sizes and RVAs, which are
# offsets from the image base by construction). The linked ELF must have
# no relocations at all.
PAYLOAD_PIC_OBJS := $(PAYLOAD_OUT)/traps.o $(PAYLOAD_OUT)/payload.o
PAYLOAD_RELOC_OK := R_X86_64_PC32|R_X86_64_PLT32

PAYLOAD_OBJS := $(PAYLOAD_OUT)/header.o $(PAYLOAD_OUT)/traps.o $(PAYLOAD_OUT)/payload.o

$(PAYLOAD_OUT)/%.o: $(PAYLOAD_SRC)/%.c | $(PAYLOAD_OUT)
	$(PAYLOAD_CC) $(PAYLOAD_CFLAGS) -c $< -o $@

$(PAYLOAD_OUT)/%.o: $(PAYLOAD_SRC)/%.S | $(PAYLOAD_OUT)
	$(PAYLOAD_CC) $(PAYLOAD_ASFLAGS) -c $< -o $@

$(PAYLOAD_OUT):
	mkdir -p $@

$(PAYLOAD_ELF): $(PAYLOAD_OBJS) $(PAYLOAD_SRC)/payload.ld
	@bad=$$($(PAYLOAD_READELF) -rW $(PAYLOAD_PIC_OBJS) | grep 'R_X86_64' | \
		grep -Ev '$(PAYLOAD_RELOC_OK)'); if [ -n "$$bad" ]; then \
		echo "payload: absolute or GOT relocations (not position independent):" >&2; \
		echo "$$bad" >&2; exit 1; fi
	$(PAYLOAD_LD) $(PAYLOAD_LDFLAGS) -o $@ $(PAYLOAD_OBJS)
	@if $(PAYLOAD_READELF) -rW $@ | grep -q 'R_X86_64'; then \
		echo "payload: $@ has relocations:" >&2; $(PAYLOAD_READELF) -rW $@ >&2; \
		rm -f $@; exit 1; fi

$(PAYLOAD_IMAGE): $(PAYLOAD_ELF)
	$(PAYLOAD_OBJCOPY) -O binary -j .header -j .text -j .data $< $@.tmp
	mv $@.tmp $@

.PHONY: payload-check
payload-check: $(PAYLOAD_IMAGE)
	$(PAYLOAD_PYTHON) $(PAYLOAD_SRC)/check-image.py --elf $(PAYLOAD_ELF) $(PAYLOAD_IMAGE)

-include $(PAYLOAD_OBJS:.o=.d)

# Do not let this fragment's first rule become the includer's default goal.
.DEFAULT_GOAL := $(PAYLOAD_SAVED_DEFAULT_GOAL)
