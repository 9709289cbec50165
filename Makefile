# bringup — build, test, demo, bench.
#
#   make            build every executable into build/bin/
#   make test       install missing Debian packages (as root), build, run the
#                   suite, then build and run it again under ASan + UBSan
#   make demo       the whole pipeline on a simulated 32-node rack
#   make bench      benchmarks into build/bench/*.json (not part of test)
#   make fuzz       every libFuzzer target (fuzz/) for FUZZ_SECONDS (600) each
#   make install    PREFIX=/usr/local DESTDIR= (bringup in bin/, the stages
#                   in libexec/bringup/, templates, man pages, bash and
#                   zsh completion, the systemd units, an example bringup.conf)
#   make deb        a Debian package in build/deb/ (dpkg-buildpackage from
#                   debian/ in a clean copy of the tree; lintian when
#                   installed)
#   make lint       clang-format check, man pages (mandoc -T lint), the
#                   layering check (scripts/layers), cppcheck
#   make format / clean

BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
SAN     ?= 0

CC      ?= cc
PKGS    := libcurl jansson libxml-2.0 libssh2 libpci sqlite3 libpq libmicrohttpd openssl inih yaml-0.1 libsystemd
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
ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L $(CPPFLAGS) $(WARN) $(CFLAGS) -I. -Icommon -I$(BUILD)/gen $(PKG_CFLAGS) -MMD -MP

# The version every command's --version prints: `git describe` of the tree
# it was built from (a tag, else BASE_VERSION and the commit), or
# BASE_VERSION alone outside git. build/gen/version.h is rewritten only
# when that changes, so a commit rebuilds common/version.o, not the tree.
BASE_VERSION := 0.1.0
GIT_VERSION := $(shell git describe --tags --dirty 2>/dev/null || \
	{ c=$$(git describe --always --dirty 2>/dev/null) && echo "$(BASE_VERSION)-g$$c"; })
VERSION := $(if $(GIT_VERSION),$(GIT_VERSION),$(BASE_VERSION))

MODULES := common inventory profile redfish maas validators sim stages bringup
# Files named cmd-NAME.c are executables (build/bin/NAME); the rest of a
# module's .c files form build/lib/libMODULE.a.
lib_srcs = $(filter-out $(1)/cmd-%.c,$(wildcard $(1)/*.c))
lib_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(call lib_srcs,$(1)))
LIBS    := $(foreach m,$(MODULES),$(if $(call lib_srcs,$(m)),$(BUILD)/lib/lib$(m).a))
CMD_SRCS := $(foreach m,$(MODULES),$(wildcard $(m)/cmd-*.c))
PROBE_SRC := validators/cmd-bringup-probe.c
BINS    := $(foreach s,$(CMD_SRCS),$(BUILD)/bin/$(patsubst cmd-%.c,%,$(notdir $(s))))
# Link order: stages first, common last (ARCHITECTURE.md). sim links only
# itself and common.
STAGE_LIBS := $(foreach m,bringup stages redfish maas validators profile inventory common,$(if $(call lib_srcs,$(m)),$(BUILD)/lib/lib$(m).a))
SIM_LIBS   := $(foreach m,sim common,$(if $(call lib_srcs,$(m)),$(BUILD)/lib/lib$(m).a))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: FORCE all tests test demo bench install install-bin install-man deb format format-check man-check lint clean deps fuzz fuzz-build fuzz-bins
all: $(BINS)

tests: all $(UNIT_BINS)

$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define BR_VERSION "$(VERSION)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/obj/common/version.o: $(BUILD)/gen/version.h

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
$(foreach s,$(filter-out $(PROBE_SRC),$(CMD_SRCS)),$(eval $(call bin_rule,$(s))))

# bringup-probe runs on freshly deployed nodes (Ubuntu 22.04/24.04) with
# nothing installed, so it is linked statically: libjansson.a from Debian, and
# a libpci.a and a libxml2.a that scripts/static-libs builds from Debian's
# sources (no libpci.a is shipped; the shipped libxml2.a pulls in 30 MiB of
# ICU). ASan cannot link statically, so SAN=1 links it like every other binary.
PROBE_LIBS := $(BUILD)/lib/libvalidators.a $(BUILD)/lib/libcommon.a
PROBE_STATIC_DIR ?= build/static
# glibc warns that getpwuid in a static binary needs its shared parts at run
# time: the probe never reaches it (libpci's name cache is unused).
PROBE_LD_QUIET := $(shell ld --help 2>/dev/null | grep -q -- --no-warnings && echo -Wl,--no-warnings)
# Its DWARF was 3 of its 5.5 MiB: every node gets a copy over SSH and every
# run checksums it, so the static probe keeps its symbols but not that.
PROBE_STRIP := -Wl,--strip-debug
ifeq ($(SAN),1)
$(BUILD)/bin/bringup-probe: $(BUILD)/obj/validators/cmd-bringup-probe.o $(PROBE_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
else
# Without the static libraries (no Debian source reachable) the probe still
# builds, dynamically, and says what the node would then need.
$(BUILD)/bin/bringup-probe: $(BUILD)/obj/validators/cmd-bringup-probe.o $(PROBE_LIBS) scripts/static-libs
	@mkdir -p $(dir $@)
	+@if scripts/static-libs $(PROBE_STATIC_DIR); then \
		echo "$(CC) -static -o $@ ... libpci.a libxml2.a libjansson.a"; \
		$(CC) -static $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(PROBE_STATIC_DIR)/lib/libpci.a \
			$(PROBE_STATIC_DIR)/lib/libxml2.a -ljansson -lm -lpthread $(PROBE_LD_QUIET) $(PROBE_STRIP); \
	else \
		echo "warning: $@ linked dynamically (see above): nodes need libpci3, libxml2, libjansson4" >&2; \
		$(CC) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(PKG_LIBS); \
	fi
endif

$(BUILD)/tests/%: tests/unit/%.c $(STAGE_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(STAGE_LIBS) $(PKG_LIBS) $(CMOCKA_LIBS)

deps:
	@scripts/deps

test: deps
	$(MAKE) lint
	$(MAKE) tests
	$(MAKE) BUILD=build/asan SAN=1 tests
	tests/run build build/asan
	$(MAKE) fuzz-build
	FUZZ_SECONDS=$(FUZZ_QUICK_SECONDS) scripts/fuzz $(FUZZ_BUILD)

demo: deps
	$(MAKE) all
	scripts/demo

bench: deps
	$(MAKE) all
	scripts/bench

# Fuzzing: each fuzz/fuzz_NAME.c is a libFuzzer target, linked against the
# stage libraries rebuilt by clang with the fuzzer's coverage, ASan and UBSan
# in their own tree ($(FUZZ_BUILD)), so they never mix with the gcc objects.
# Seeds are fuzz/corpus/NAME/; scripts/fuzz runs each target and prints one
# summary line per target. make test runs each for FUZZ_QUICK_SECONDS.
FUZZ_BUILD ?= build/fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 600
FUZZ_QUICK_SECONDS ?= 2
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_SRCS := $(wildcard fuzz/fuzz_*.c)
FUZZ_BINS = $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))

fuzz-build:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CFLAGS='$(FUZZ_CFLAGS)' SAN=0 fuzz-bins

fuzz-bins: $(FUZZ_BINS)

$(BUILD)/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(STAGE_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< $(STAGE_LIBS) $(PKG_LIBS)

fuzz: deps fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz $(FUZZ_BUILD)

MAN1 := $(wildcard man/*.1)
MAN5 := $(wildcard man/*.5)
MANDIR = $(DESTDIR)$(PREFIX)/share/man

# The driver in bin/, what it runs (every stage, the probe, the simulator)
# in libexec/bringup/ (the driver looks there), bash and zsh completion, the
# systemd units (UNITDIR; Debian's /lib/systemd/system for PREFIX=/usr):
# bringup-run.service and .timer, bringup-controller.service and its
# system user (sysusers.d), and the example bringup.conf in
# share/doc/bringup/examples.
LIBEXECDIR = $(PREFIX)/libexec/bringup
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
# zsh completion: Debian's vendor-completions for PREFIX=/usr, zsh's own
# site-functions elsewhere (both on zsh's default $fpath).
ZSHCOMPDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
# The bringup system user the controller's unit runs as (sysusers.d).
SYSUSERSDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/sysusers.d,$(PREFIX)/lib/sysusers.d)
install: all install-bin install-man

# What install copies, without building first (tests install a tree built before).
install-bin:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(PREFIX)/share/bringup/templates \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(UNITDIR)
	install -m 0755 $(BUILD)/bin/bringup $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(filter-out $(BUILD)/bin/bringup,$(BINS)) $(DESTDIR)$(LIBEXECDIR)/
	cp -R templates/. $(DESTDIR)$(PREFIX)/share/bringup/templates/
	install -m 0644 dist/bash-completion/bringup $(DESTDIR)$(PREFIX)/share/bash-completion/completions/bringup
	install -m 0644 dist/zsh-completion/_bringup $(DESTDIR)$(ZSHCOMPDIR)/_bringup
	sed 's|@BINDIR@|$(PREFIX)/bin|g' dist/systemd/bringup-run.service.in > $(DESTDIR)$(UNITDIR)/bringup-run.service
	install -m 0644 dist/systemd/bringup-run.timer $(DESTDIR)$(UNITDIR)/
	sed 's|@BINDIR@|$(PREFIX)/bin|g' dist/systemd/bringup-controller.service.in \
		> $(DESTDIR)$(UNITDIR)/bringup-controller.service
	install -d $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(PREFIX)/share/doc/bringup/examples
	install -m 0644 dist/systemd/bringup.sysusers $(DESTDIR)$(SYSUSERSDIR)/bringup.conf
	install -m 0644 dist/bringup.conf $(DESTDIR)$(PREFIX)/share/doc/bringup/examples/bringup.conf

# The package builds its own copy of the tree (scripts/deb), not $(BUILD).
deb:
	scripts/deb $(BUILD)

install-man:
	install -d $(MANDIR)/man1 $(MANDIR)/man5
	install -m 0644 $(MAN1) $(MANDIR)/man1/
	install -m 0644 $(MAN5) $(MANDIR)/man5/

# Every C file but the generated BIOS registry tables (scripts/gen-idrac-bios-registry,
# scripts/gen-vendor-bios-registry).
FORMAT_SRCS := $(filter-out sim/idrac_bios_registry.c sim/vendor_bios_registry.c,$(wildcard */*.c */*.h tests/unit/*.c))

format:
	@clang-format -i $(FORMAT_SRCS)

format-check:
	@clang-format --dry-run --Werror $(FORMAT_SRCS)

# Every man page, by mandoc: any warning (or error) fails. Each executable
# has its page, and every page a page refers to exists.
man-check:
	mandoc -T lint -W warning $(MAN1) $(MAN5)
	@for p in $(notdir $(BINS)) $$(sed -n 's/^\.BR \([a-z.\\-]*\) (\([15]\)).*/\1.\2/p' $(MAN1) $(MAN5) | \
		sed 's/\\-/-/g' | sort -u); do \
		case $$p in *.[15]) ;; *) p=$$p.1 ;; esac; \
		[ -f man/$$p ] || { echo "man-check: no man/$$p" >&2; exit 1; }; \
	done

# The layering check reads the module archives, so lint builds them first.
lint: format-check man-check $(LIBS)
	scripts/layers $(BUILD)/lib
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
		--suppress=missingIncludeSystem --library=.cppcheck-jansson.cfg -I common $(MODULES)

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj $(BUILD)/tests $(BUILD)/fuzz -name '*.d' 2>/dev/null)
