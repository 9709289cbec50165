# bringup — build, test, demo, bench.
#
#   make            build every executable into build/bin/
#   make test       install missing Debian packages (as root), build, run the
#                   suite, then build and run it again under ASan + UBSan
#   make demo       the whole pipeline on a simulated 32-node rack
#   make bench      benchmarks into build/bench/*.json (not part of test)
#   make install    PREFIX=/usr/local DESTDIR=
#   make format / lint / clean

BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
SAN     ?= 0

CC      ?= cc
PKGS    := libcurl jansson libxml-2.0 libssh2 libpci sqlite3 libmicrohttpd openssl inih yaml-0.1
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcsv -lm
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
           -Wmissing-prototypes -Wpointer-arith -Wcast-qual -Wvla -Wundef \
           -Wno-unused-parameter
CFLAGS  ?= -O2 -g
ifeq ($(SAN),1)
CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) $(CFLAGS) -I. -Icommon $(PKG_CFLAGS) -MMD -MP

MODULES := common inventory redfish maas validators sim bringup
# Files named cmd-NAME.c are executables (build/bin/NAME); the rest of a
# module's .c files form build/lib/libMODULE.a.
lib_srcs = $(filter-out $(1)/cmd-%.c,$(wildcard $(1)/*.c))
lib_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(call lib_srcs,$(1)))
LIBS    := $(foreach m,$(MODULES),$(if $(call lib_srcs,$(m)),$(BUILD)/lib/lib$(m).a))
CMD_SRCS := $(foreach m,$(MODULES),$(wildcard $(m)/cmd-*.c))
BINS    := $(foreach s,$(CMD_SRCS),$(BUILD)/bin/$(patsubst cmd-%.c,%,$(notdir $(s))))
# Link order: stages first, common last. sim links only itself and common.
STAGE_LIBS := $(foreach m,bringup redfish maas validators inventory common,$(if $(call lib_srcs,$(m)),$(BUILD)/lib/lib$(m).a))
SIM_LIBS   := $(foreach m,sim common,$(if $(call lib_srcs,$(m)),$(BUILD)/lib/lib$(m).a))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: all tests test demo bench install format lint clean deps
all: $(BINS)

tests: all $(UNIT_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

define lib_rule
$(BUILD)/lib/lib$(1).a: $(call lib_objs,$(1))
	@mkdir -p $$(dir $$@)
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach m,$(MODULES),$(if $(call lib_srcs,$(m)),$(eval $(call lib_rule,$(m)))))

define bin_rule
$(BUILD)/bin/$(patsubst cmd-%.c,%,$(notdir $(1))): $(BUILD)/obj/$(1:.c=.o) $(if $(filter sim/%,$(1)),$(SIM_LIBS),$(STAGE_LIBS))
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(PKG_LIBS)
endef
$(foreach s,$(CMD_SRCS),$(eval $(call bin_rule,$(s))))

$(BUILD)/tests/%: tests/unit/%.c $(STAGE_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(STAGE_LIBS) $(PKG_LIBS) $(CMOCKA_LIBS)

deps:
	@scripts/deps

test: deps
	$(MAKE) tests
	$(MAKE) BUILD=build/asan SAN=1 tests
	tests/run build build/asan

demo: deps
	$(MAKE) all
	scripts/demo

bench: deps
	$(MAKE) all
	scripts/bench

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/bringup/templates
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	cp -R templates/. $(DESTDIR)$(PREFIX)/share/bringup/templates/

format:
	clang-format -i $(wildcard */*.c */*.h tests/unit/*.c)

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
		--suppress=missingIncludeSystem --library=.cppcheck-jansson.cfg -I common $(MODULES)

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj $(BUILD)/tests -name '*.d' 2>/dev/null)
