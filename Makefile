# Makefile for mrhttpd.
#
#   make                    build src/mrhttpd from mrhttpd.conf
#   make run                build and serve www/htdocs on http://127.0.0.1:8080/
#   make check              every test: check-native, check-minimal, check-sanitize
#                           (ASan/UBSan), check-fuzz, matrix, check-cross (MIPS
#                           and ARM under qemu); CHECK_LANES=2 of them at once, each
#                           JOBS=2 files at a time
#   make SIZE=1             the size profile for flash-starved targets (doc/SIZE.md)
#   make matrix             every feature switch off and on, -Werror
#   make size               the size and memory budgets (doc/SIZE.md)
#   make cost               instructions and system calls per request
#   make install            binary to BIN_DIR, error pages, rc.httpd, man page
#   make install-strip      the same, the binary stripped
#   make BUILD=dir CONF=f   build dir/mrhttpd from another configuration
#
# Packagers: CC CFLAGS CPPFLAGS LDFLAGS CROSS_COMPILE DESTDIR INSTALL are
# honoured, and PREFIX (or prefix=) and MANDIR (or mandir=) for the man
# page; the binary goes to the configuration's BIN_DIR, or to BIN_DIR=dir
# (or sbindir=dir).  V=1 shows the commands.  A change of compiler or flags
# rebuilds ($(BUILD)/flags).

CROSS_COMPILE ?=
ifeq ($(origin CC),default)
CC = $(CROSS_COMPILE)gcc
endif
STRIP ?= $(CROSS_COMPILE)strip
OBJCOPY ?= $(CROSS_COMPILE)objcopy
# SIZE=1: -Oz where the compiler has it (gcc 12, clang), else -Os; unused
# functions and data dropped; no unwind tables (C code that never unwinds
# needs none); data aligned as the ABI asks, not to 32 bytes (x86 gcc);
# code and headers in one segment, which saves the page of padding
# -z separate-code costs; no build-id and no .comment notes; calls through
# a GOT bound at start-up (-fno-plt -z now, full RELRO).  The default
# stays -O2 for speed: see doc/SIZE.md.
ifeq ($(SIZE),1)
ifeq ($(origin CFLAGS),undefined)
CFLAGS := $(shell $(CC) -Oz -x c -c -o /dev/null /dev/null 2>/dev/null && echo -Oz || echo -Os)
endif
SIZE_CFLAGS = -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fno-ident -fno-plt \
	$(shell $(CC) -malign-data=abi -x c -c -o /dev/null /dev/null 2>/dev/null && echo -malign-data=abi)
SIZE_LDFLAGS = -Wl,--gc-sections -Wl,-z,noseparate-code -Wl,--build-id=none \
	-Wl,-z,now
# link-time optimisation where the toolchain links with it (gcc's plugin;
# a clang without one is left as it is): one use of a function anywhere
# is inlined there, 550 bytes of (b)'s code (2026-11-30, gcc 12, -Oz)
SIZE_LTO := $(shell printf 'int main(void){return 0;}\n' | \
	$(CC) -flto -x c -o /dev/null - 2>/dev/null && echo -flto)
SIZE_CFLAGS += $(SIZE_LTO)
SIZE_LDFLAGS += $(SIZE_LTO)
# -fno-ident covers our objects; the C library's start files bring their
# own compiler notes (.comment, which strip keeps): dropped after the link
SIZE_POSTLINK = $(OBJCOPY) --remove-section=.comment $@
endif
# SANITIZE=1: -O1, as the AddressSanitizer documentation advises; it
# compiles in half the time of -O2, which make check-sanitize feels most
ifeq ($(SANITIZE),1)
CFLAGS ?= -O1
endif
CFLAGS ?= -O2
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
INSTALL ?= install
# the GNU names too (prefix, mandir; sbindir below), as dh_auto_install
# and Buildroot's and OpenWrt's packages pass them: on the command line,
# where they win over the environment's PREFIX and MANDIR
ifeq ($(origin prefix),command line)
PREFIX = $(prefix)
endif
ifeq ($(origin mandir),command line)
MANDIR = $(mandir)
endif
INITDIR ?= /etc/init.d
BUILD ?= src
CONF ?= mrhttpd.conf
SANITIZE ?=

# Hardening, on unless HARDEN=0 (doc/SECURITY.md): an overflow that slips
# through must abort loudly, not corrupt quietly.  Stack protector, fortified
# libc calls (level 3 where the compiler and libc have it; musl ignores it),
# full RELRO, and PIE for dynamic builds.  Static builds stay non-PIE:
# Debian's musl-gcc and cross toolchains cannot link static-pie.  A static
# musl binary gets no RELRO either: musl's static start-up never applies
# it (its data page stays writable, checked in /proc/PID/maps), so there
# the flags would only pad the file (doc/SIZE.md); glibc's does apply it
# (and uClibc-ng, unverified here, keeps the flags).
comma := ,
HARDEN ?= 1
ifeq ($(HARDEN),1)
HARDEN_CFLAGS = -fstack-protector-strong
ifeq ($(filter -static,$(LDFLAGS)),)
HARDEN_CFLAGS += -fPIE
HARDEN_LDFLAGS = -Wl,-z,relro -Wl,-z,now -pie
else
GLIBC := $(shell printf '\043include <stdio.h>\n\043if !defined __GLIBC__ && !defined __UCLIBC__\n\043error\n\043endif\n' | \
	$(CC) $(CPPFLAGS) $(CFLAGS) -E -x c - >/dev/null 2>&1 && echo 1)
HARDEN_LDFLAGS = $(if $(GLIBC),-Wl$(comma)-z$(comma)relro -Wl$(comma)-z$(comma)now,-Wl$(comma)-z$(comma)norelro)
endif
ifneq ($(SANITIZE),1)
FORTIFY_LEVEL := $(shell printf '\043include <stdio.h>\n\043if __USE_FORTIFY_LEVEL < 3\n\043error\n\043endif\n' | \
	$(CC) -O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3 -x c -c -o /dev/null - \
	2>/dev/null && echo 3 || echo 2)
HARDEN_CPPFLAGS = -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=$(FORTIFY_LEVEL)
endif
endif

WARN = -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes \
	-Wmissing-declarations -Wshadow -Wpointer-arith -Wsign-compare
# A variable read before it is written holds 0xfe bytes under the
# sanitizers (-ftrivial-auto-var-init=pattern, gcc 12 and clang; probed),
# not whatever the stack held: such a read, which ASan does not see,
# fails the suite the same way every run (a field memset left out cut
# every CGI reply so, 2026-11-30)
ifeq ($(SANITIZE),1)
SAN = -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -g \
	$(shell $(CC) -ftrivial-auto-var-init=pattern -x c -c -o /dev/null /dev/null 2>/dev/null && echo -ftrivial-auto-var-init=pattern)
endif
FINAL_CFLAGS = -std=gnu99 $(WARN) $(SIZE_CFLAGS) $(HARDEN_CFLAGS) $(CFLAGS) \
	$(SAN) -pthread
# 64-bit off_t and time_t on 32-bit glibc targets too (arm, mips): else
# files over 2 GiB cannot be opened and large Range values wrap, and a
# file dated past 2038 cannot be stat'ed (a 500, left out of listings)
FINAL_CPPFLAGS = -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64 $(HARDEN_CPPFLAGS) \
	-I$(BUILD) -Isrc $(TLS_CPPFLAGS) $(H2_CPPFLAGS) $(CPPFLAGS)
FINAL_LDFLAGS = $(SIZE_LDFLAGS) $(HARDEN_LDFLAGS) $(TLS_LDFLAGS) $(H2_LDFLAGS) $(LDFLAGS) $(SAN) -pthread

ifndef V
Q_CC = @printf '  CC      %s\n' $@;
Q_LD = @printf '  LD      %s\n' $@;
Q_GEN = @printf '  GEN     %s\n' $@;
endif

# configure writes config.h and config.mk; make re-runs it when the
# configuration changes.
-include $(BUILD)/config.mk
ifeq ($(origin sbindir),command line)
BIN_DIR = $(sbindir)
endif

OBJS-y = main.o server.o plain.o transport.o http1.o request.o route.o \
	response.o file.o util.o mime.o body.o
OBJS-$(CONFIG_PER_IP) += peer.o
OBJS-$(CONFIG_LOG) += log.o
OBJS-$(CONFIG_AUTO_INDEX) += dirlist.o
OBJS-$(CONFIG_PUT) += upload.o
OBJS-$(CONFIG_CGI) += cgi.o
OBJS-$(CONFIG_AUTH_FILE) += auth.o
# crypt(3) is in libcrypt next to glibc, and in musl's libc, but not in
# Debian's build of musl: there the link stops with a line that says so
ifeq ($(CONFIG_AUTH_FILE),y)
CRYPT_PROBE = printf 'char crypt(void);\nint main(void){return crypt();}\n' | \
	$(CC) $(LDFLAGS) -x c - -o /dev/null
CRYPT_LIB := $(shell $(CRYPT_PROBE) -lcrypt 2>/dev/null && echo -lcrypt || \
	{ $(CRYPT_PROBE) 2>/dev/null && echo libc; })
LIBS += $(filter -lcrypt,$(CRYPT_LIB))
CRYPT_CHECK = $(if $(CRYPT_LIB),,@echo "AUTH_FILE needs crypt(3), which $(CC) \
	$(LDFLAGS) cannot link (Debian has none for musl or static cross \
	builds: doc/SIZE.md)" >&2; exit 1)
endif
# TLS=1: mbed TLS, Debian's libmbedtls-dev natively, or MBEDTLS_DIR=dir
# (include/ and lib/) for a build of it for the target, as "make mbedtls
# (target)".  A cross or musl compiler without MBEDTLS_DIR gets its own,
# built from Debian's source package by extra/mbedtls.sh.
OBJS-$(CONFIG_TLS) += tls.o
TARGET_CC = $(CROSS_COMPILE)$(filter-out gcc cc clang,$(notdir $(CC)))
ifneq ($(TARGET_CC),)
MBEDTLS_OWN = $(CURDIR)/build/mbedtls/$(notdir $(CC))
MBEDTLS_DIR ?= $(MBEDTLS_OWN)
endif
ifeq ($(CONFIG_TLS),y)
ifneq ($(MBEDTLS_DIR),)
TLS_CPPFLAGS = -I$(MBEDTLS_DIR)/include
TLS_LDFLAGS = -L$(MBEDTLS_DIR)/lib
endif
ifneq ($(MBEDTLS_OWN),)
ifeq ($(MBEDTLS_DIR),$(MBEDTLS_OWN))
TLS_DEPS = $(MBEDTLS_OWN)/lib/libmbedtls.a
endif
endif
LIBS += -lmbedtls -lmbedx509 -lmbedcrypto
endif
# HTTP2=1: nghttp2, Debian's libnghttp2-dev natively, or NGHTTP2_DIR=dir
# (include/ and lib/) for a build of it for the target, as "make nghttp2
# (target)".  A cross or musl compiler without NGHTTP2_DIR gets its own,
# built from Debian's source package by extra/nghttp2.sh.
OBJS-$(CONFIG_HTTP2) += h2.o
ifneq ($(TARGET_CC),)
NGHTTP2_OWN = $(CURDIR)/build/nghttp2/$(notdir $(CC))
NGHTTP2_DIR ?= $(NGHTTP2_OWN)
endif
ifeq ($(CONFIG_HTTP2),y)
ifneq ($(NGHTTP2_DIR),)
H2_CPPFLAGS = -I$(NGHTTP2_DIR)/include
H2_LDFLAGS = -L$(NGHTTP2_DIR)/lib
endif
ifneq ($(NGHTTP2_OWN),)
ifeq ($(NGHTTP2_DIR),$(NGHTTP2_OWN))
H2_DEPS = $(NGHTTP2_OWN)/lib/libnghttp2.a
endif
endif
LIBS += -lnghttp2
endif
OBJS = $(addprefix $(BUILD)/,$(OBJS-y))
HEADERS = src/mrhttpd.h src/transport.h src/protocol.h src/log.h src/dirlist.h src/upload.h src/response.h src/cgi.h src/auth.h \
	src/route.h src/peer.h src/tls.h src/h2.h \
	$(BUILD)/config.h

all: $(BUILD)/mrhttpd

# One run of configure writes both: a pattern rule with two targets is
# one recipe for the pair (explicit ones would run configure once for
# each, and print a refusal twice).  The stem is the dot, so that it
# matches these two files and no header of src/
$(BUILD)/config%h $(BUILD)/config%mk: $(CONF) configure
	$(Q_GEN)./configure -o $(BUILD) $(CONF) >/dev/null

# Times alone miss another CONF older than the last build's, and a copy
# that kept its time (cp -p): config.mk has the checksum of the file it
# came from, and other contents configure again (the same file by another
# name does not).
ifneq ($(shell cksum 2>/dev/null < $(CONF)),$(CONFIG_SUM))
$(BUILD)/config.h $(BUILD)/config.mk: FORCE
endif

# The toolchain and its flags, in $(BUILD)/flags, rewritten when they
# change: "make CC=musl-gcc" or "make CROSS_COMPILE=..." after another
# build rebuilds everything instead of keeping the other binary (the
# configuration has config.h for that).  make install with others than
# the build had stops instead: "make CROSS_COMPILE=..." then a plain
# "make install" (or sudo, which drops CC from the environment) would
# install a native binary.  $(file) needs GNU make 4.0.
BUILD_FLAGS := $(strip CC=$(CC) CFLAGS=$(CFLAGS) CPPFLAGS=$(CPPFLAGS) \
	LDFLAGS=$(LDFLAGS) SIZE=$(SIZE) HARDEN=$(HARDEN) SANITIZE=$(SANITIZE) \
	SAN=$(SAN) OBJCOPY=$(OBJCOPY) MBEDTLS_DIR=$(MBEDTLS_DIR) \
	NGHTTP2_DIR=$(NGHTTP2_DIR))
BUILT_FLAGS := $(strip $(shell cat $(BUILD)/flags 2>/dev/null))
ifneq ($(BUILD_FLAGS),$(BUILT_FLAGS))
$(BUILD)/flags: FORCE
ifneq ($(and $(BUILT_FLAGS),$(wildcard $(BUILD)/mrhttpd),$(filter install install-strip,$(MAKECMDGOALS))),)
$(error $(BUILD)/mrhttpd was built with $(BUILT_FLAGS): give make install the same, or make it again first)
endif
endif
$(BUILD)/flags: $(BUILD)/config.h
	$(file >$@,$(BUILD_FLAGS))

# OBJ_CACHE=dir: an object whose preprocessed text and flags an earlier
# build compiled is copied from dir, not compiled again (extra/objcache.sh).
# The tests and make matrix use build/objcache: each pass builds 100-odd
# configurations, which mostly differ in a few files each.
COMPILE = $(CC) $(FINAL_CFLAGS) $(FINAL_CPPFLAGS) -c -o $@ $<
ifneq ($(OBJ_CACHE),)
OBJ_CACHE_ID := $(shell $(CC) -dumpmachine; $(CC) -v 2>&1 | grep ' version ')
COMPILE = OBJ_CACHE_ID='$(OBJ_CACHE_ID)' sh extra/objcache.sh $(OBJ_CACHE) $(BUILD) \
	$@ $< $(CC) $(FINAL_CFLAGS) $(FINAL_CPPFLAGS)
endif
$(BUILD)/%.o: src/%.c $(HEADERS) Makefile $(TLS_DEPS) $(H2_DEPS) $(BUILD)/flags
	$(Q_CC)$(COMPILE)

# mbed TLS for a cross or musl compiler, from Debian's source package
$(MBEDTLS_OWN)/lib/libmbedtls.a:
	@CC="$(CC)" AR="$(CROSS_COMPILE)ar" sh extra/mbedtls.sh $(MBEDTLS_OWN)

# make mbedtls [CC=... | CROSS_COMPILE=...]: that build alone
mbedtls:
	@CC="$(CC)" AR="$(CROSS_COMPILE)ar" \
	  sh extra/mbedtls.sh $(if $(MBEDTLS_OWN),$(MBEDTLS_OWN),$(CURDIR)/build/mbedtls/native)

# nghttp2 for a cross or musl compiler, from Debian's source package
$(NGHTTP2_OWN)/lib/libnghttp2.a:
	@CC="$(CC)" AR="$(CROSS_COMPILE)ar" sh extra/nghttp2.sh $(NGHTTP2_OWN)

# make nghttp2 [CC=... | CROSS_COMPILE=...]: that build alone
nghttp2:
	@CC="$(CC)" AR="$(CROSS_COMPILE)ar" \
	  sh extra/nghttp2.sh $(if $(NGHTTP2_OWN),$(NGHTTP2_OWN),$(CURDIR)/build/nghttp2/native)

$(BUILD)/mrhttpd: $(OBJS) $(BUILD)/flags
	$(CRYPT_CHECK)
	$(Q_LD)$(CC) $(FINAL_LDFLAGS) -o $@ $(OBJS) $(LIBS)
	$(SIZE_POSTLINK)

# --- trying it out -------------------------------------------------------------
RUN_DIR = build/run
# the keys make run sets, left out of the copy of CONF (2.2 names too), so
# that configure sees each once
RUN_KEYS = PUBLIC_DIR DOC_DIR PRIVATE_DIR SERVER_DOCS SERVER_ADDR LOG_LEVEL \
	LOG_FILE DETACH SERVER_ROOT SYSTEM_USER PID_FILE
space := $(subst ,, )
ifneq ($(CONF),$(RUN_DIR)/run.conf)
$(RUN_DIR)/run.conf: $(CONF) Makefile
	@mkdir -p $(RUN_DIR)
	@{ grep -Ev '^[[:space:]]*(export[[:space:]]+)?($(subst $(space),|,$(RUN_KEYS)))=' $(CONF); \
	  echo; echo '# make run: serve the sample site, log to the terminal'; \
	  echo 'PUBLIC_DIR=$(CURDIR)/www/htdocs'; \
	  echo 'PRIVATE_DIR=$(CURDIR)/www/private'; \
	  echo 'SERVER_ADDR=127.0.0.1'; echo 'LOG_LEVEL=4'; echo 'LOG_FILE='; \
	  echo 'DETACH=0'; echo 'SERVER_ROOT='; echo 'SYSTEM_USER='; echo 'PID_FILE='; } > $@
endif

run: $(RUN_DIR)/run.conf
	@$(MAKE) --no-print-directory BUILD=$(RUN_DIR) CONF=$(RUN_DIR)/run.conf
	@plain=$$(sed -n 's/^PLAIN_PORT = //p' $(RUN_DIR)/config.mk); \
	tls=$$(sed -n 's/^TLS_PORT = //p' $(RUN_DIR)/config.mk); \
	echo "Serving $(CURDIR)/www/htdocs on$${plain:+ http://127.0.0.1:$$plain/}$${tls:+ https://127.0.0.1:$$tls/} (Ctrl-C stops)"
	$(RUN_DIR)/mrhttpd -f

# --- tests -----------------------------------------------------------------------
# make check runs these, two at a time (CHECK_LANES), then fails if any failed:
#   check-native    the suite (unit and integration) as built
#   check-minimal   the suite again with RANGES=0 VALIDATORS=0 under every test,
#                   built with musl, static
#   check-sanitize  the suite again under -fsanitize=address,undefined
#   check-fuzz      every libFuzzer harness of tests/fuzz/ for 10 s
#   matrix          every feature switch off and on, -Werror
#   check-cross     the suite on CROSS_TARGETS under qemu-user (skips with
#                   a message when a compiler or qemu cannot be had)
# With another toolchain it runs the suite once, built and run that way:
#   make check CC=musl-gcc LDFLAGS=-static
#   make check CROSS_COMPILE=mips-linux-gnu- [RUN_WRAPPER=qemu-mips-static]
# A cross suite defaults to LDFLAGS=-static and RUN_WRAPPER=qemu-ARCH-static.
# JOBS: test files run at once. Most of a file's time is spent waiting
# (timeouts, slow clients), and every file takes its own ports, build
# directory and locks, so two at a time halve the suite's time
JOBS = 2
PROVE = prove --timer -j$(JOBS) -I tests/lib
# The whole suite on big-endian MIPS (alignment-strict); on 32-bit ARM
# (little-endian, char unsigned) all but CROSS_POLICY_TESTS; on
# little-endian MIPS, which adds a toolchain but no axis, the core files
# only: a fifth of the time
CROSS_TARGETS = mips-linux-gnu arm-linux-gnueabihf
CROSS_CORE_TARGETS = mipsel-linux-gnu
CROSS_CORE_TESTS = $(addprefix tests/t/,00-unit.t 10-static.t 11-keepalive.t \
	12-malformed.t 13-traversal.t 41-ranges.t 46-put-delete.t 50-cgi.t 80-h2.t)
# timeouts, fairness and floods: the server's policy, timed, where byte
# order, char and word size change nothing; 40% of ARM's time, and each
# runs on big-endian MIPS, natively, under ASan and on the minimal build
CROSS_POLICY_TESTS = $(addprefix tests/t/,14-timeouts.t 52-cgi-limits.t \
	60-attack-fds.t 60-attack-nproc.t 60-attack-pipeline.t \
	60-attack-slots.t 60-attack-slowloris.t 71-tls-attack.t \
	73-tls-fairness.t 81-h2-chromium.t 83-h2-address-share.t)
CROSS_TESTS_arm-linux-gnueabihf = $(filter-out $(CROSS_POLICY_TESTS),$(sort $(wildcard tests/t/*.t)))
# (checked where the tests are: a source tarball has none)
$(if $(wildcard tests/t/00-unit.t),$(if $(filter-out $(wildcard $(CROSS_POLICY_TESTS)),$(CROSS_POLICY_TESTS)),\
  $(error CROSS_POLICY_TESTS names no such file: $(filter-out $(wildcard $(CROSS_POLICY_TESTS)),$(CROSS_POLICY_TESTS)))))
CROSS_STEPS = $(addprefix check-cross-,$(CROSS_TARGETS) $(CROSS_CORE_TARGETS))
OTHER_TOOLCHAIN = $(CROSS_COMPILE)$(RUN_WRAPPER)$(filter -static,$(LDFLAGS))$(filter-out gcc cc clang,$(notdir $(CC)))
# CHECK_LANES: steps of make check at once.  One step alone leaves a core
# idle about a third of the time (its files wait on timeouts and clients);
# two overlap that with another's builds.  Longest first, so that the
# lanes end together.  Each step's lines come out together when it ends.
CHECK_LANES = 2
ifeq ($(OTHER_TOOLCHAIN),)
CHECK_PREP = check-deps cross-deps all
# longest first: the core cross steps before fuzz only
CHECK_STEPS = check-sanitize $(addprefix check-cross-,$(CROSS_TARGETS)) \
	check-minimal check-native matrix \
	$(addprefix check-cross-,$(CROSS_CORE_TARGETS)) check-fuzz
else
CHECK_PREP = check-deps
CHECK_STEPS = check-native
endif
ifneq ($(CROSS_COMPILE),)
CHECK_ENV = $(if $(strip $(LDFLAGS)),,LDFLAGS=-static) \
	$(if $(RUN_WRAPPER),,RUN_WRAPPER=qemu-$(firstword $(subst -, ,$(CROSS_COMPILE)))-static)
endif

# The installs (and the plain build) first, so that every step is ready
# to start in its turn.  The steps then run with CHECK_DEPS empty: a step
# with a prerequisite to wait on let make start the ones behind it first
# (fuzz and matrix, the short ones), and the lanes ended 200 s apart.
CHECK_DEPS = check-deps
check:
	@$(MAKE) --no-print-directory $(CHECK_PREP) || { \
	  echo "=== make check FAILED: preparing ($(CHECK_PREP)) failed, no step ran"; exit 1; }
	@if $(MAKE) --no-print-directory -k -j$(CHECK_LANES) -Otarget CHECK_DEPS= \
	    $(CHECK_STEPS); then \
	  echo "=== make check passed: $(CHECK_STEPS)"; \
	else echo "=== make check FAILED: the steps marked FAILED above"; exit 1; fi

# $(call step,COMMAND): a step of make check, between a line that names it
# and one that says how it ended and after how long.  Its output also goes
# to build/check/STEP.log as it comes, for a step that never ends: make
# prints a step's output only at its end (.ci/run shows the log's tail)
step = @mkdir -p build/check; rm -f build/check/$@.rc; echo "=== make $@ ==="; \
	s=$$(date +%s); { $(1); echo $$? > build/check/$@.rc; } 2>&1 | tee build/check/$@.log; \
	rc=$$(cat build/check/$@.rc 2>/dev/null || echo 1); \
	echo "=== make $@ $$([ $$rc = 0 ] && echo passed || echo FAILED) after $$(($$(date +%s) - s)) s"; \
	exit $$rc

check-deps:
	@sh tests/install-deps.sh

check-native: $(CHECK_DEPS) $(if $(CHECK_DEPS),$(if $(OTHER_TOOLCHAIN),,all))
	$(call step,$(CHECK_ENV) $(PROVE) tests/t/)

# the suite again on the minimal base: every switch of MINIMAL_CONF off
# under each test's own keys (what such a build lacks skips through
# has()), and built with musl, static, as firmware ships it
# (MINIMAL_TOOLCHAIN; the other steps link glibc, the cross ones static).
# musl-tools is among the packages check-deps installs
MINIMAL_CONF = RANGES=0 VALIDATORS=0
MINIMAL_TOOLCHAIN = CC=musl-gcc LDFLAGS=-static
check-minimal: $(CHECK_DEPS)
	$(call step,$(MINIMAL_TOOLCHAIN) MRHTTPD_TEST_CONF="$(MINIMAL_CONF)" $(PROVE) tests/t/)

check-sanitize: $(CHECK_DEPS)
	$(call step,MRHTTPD_SANITIZE=1 $(PROVE) tests/t/)

# check-cross: every target, one after another; make check takes each as a
# step of its own (check-cross-TRIPLET), after installing for all at once
# $(call cross_suite,TRIPLET): tests/cross.sh on it: CROSS_TESTS when set
# (make check-cross CROSS_TESTS=tests/t/10-static.t), else the core files
# on a CROSS_CORE_TARGETS one, CROSS_TESTS_TRIPLET where that is set
cross_files = $(or $(CROSS_TESTS),$(if $(filter $(1),$(CROSS_CORE_TARGETS)),$(CROSS_CORE_TESTS),$(CROSS_TESTS_$(1))))
cross_suite = JOBS=$(JOBS) $(if $(call cross_files,$(1)),CROSS_TESTS="$(strip $(call cross_files,$(1)))") \
	sh tests/cross.sh $(1)
check-cross: check-deps
	$(call step,r=0; $(foreach t,$(CROSS_TARGETS) $(CROSS_CORE_TARGETS),\
	  $(call cross_suite,$(t)) || r=1;) [ $$r = 0 ])

$(CROSS_STEPS): check-cross-%: $(CHECK_DEPS) $(CHECK_DEPS:check-deps=cross-deps)
	$(call step,$(call cross_suite,$*))

cross-deps:
	@sh tests/install-deps.sh --cross

# make fuzz: every libFuzzer harness of tests/fuzz/ (clang), built into
# tests/build/fuzz/ and run FUZZ_SECONDS each; fails on a crash.
# make check-fuzz: the same for 10 s each, $(JOBS) at a time (a core
# each); without clang or libFuzzer it says so and passes, unless
# MRHTTPD_FUZZ_REQUIRED=1 (tests/fuzz/run.sh).
FUZZ_SECONDS ?= 60
fuzz:
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh

check-fuzz: $(CHECK_DEPS)
	$(call step,FUZZ_SECONDS=10 FUZZ_JOBS=$(JOBS) sh tests/fuzz/run.sh --check)

# make check-tsan: the concurrency tests once under ThreadSanitizer (not
# part of make check: a pass takes minutes)
TSAN_TESTS = tests/t/21-idle-connections.t tests/t/23-idle-threads.t \
	tests/t/60-attack-*.t tests/t/80-h2.t \
	tests/t/82-h2-streams.t tests/t/83-h2-address-share.t \
	tests/t/70-tls.t tests/t/71-tls-attack.t tests/t/73-tls-fairness.t
check-tsan: check-deps
	MRHTTPD_MAKEFLAGS="SAN=-fsanitize=thread" CFLAGS="-O1 -g" \
	  $(PROVE) $(TSAN_TESTS)

test: check

# --- embedded builds, sizes, benchmarks (the logic lives in extra/) -----------------
# make matrix: every feature switch off and on, -Werror, one line per build
matrix:
	$(call step,sh extra/matrix.sh)

# make size: the size and memory budgets of doc/SIZE.md
size:
	@sh extra/size.sh

# make bench: mrhttpd side by side with nginx and lighttpd (doc/PERFORMANCE.md),
# over HTTP, then over HTTPS (make bench-tls alone), then HTTP/2 beside
# nghttpd, h2o and nginx (make bench-h2 alone)
bench:
	@sh extra/bench.sh && perl extra/bench-tls.pl && perl extra/bench-h2.pl

bench-tls:
	@perl extra/bench-tls.pl

bench-h2:
	@perl extra/bench-h2.pl

# make cost: callgrind instructions and strace system calls per request, for
# comparing two trees (extra/cost.sh OTHER-TREE for the other one)
cost:
	@sh extra/cost.sh .

# --- install ----------------------------------------------------------------------
install: all
	$(INSTALL) -d $(DESTDIR)$(BIN_DIR)
	$(INSTALL) -m 755 $(BUILD)/mrhttpd $(DESTDIR)$(BIN_DIR)/mrhttpd
	if [ -n "$(PRIVATE_DIR)" ]; then \
	  $(INSTALL) -d $(DESTDIR)$(SERVER_ROOT)$(PRIVATE_DIR) && \
	  $(INSTALL) -m 644 www/private/*.html $(DESTDIR)$(SERVER_ROOT)$(PRIVATE_DIR)/; fi
	$(INSTALL) -d $(DESTDIR)$(INITDIR)
	sed -e 's|@BIN_DIR@|$(BIN_DIR)|g' -e 's|@PID_FILE@|$(PID_FILE)|g' \
	  rc.httpd > $(DESTDIR)$(INITDIR)/rc.httpd
	chmod 755 $(DESTDIR)$(INITDIR)/rc.httpd
	if [ -f doc/mrhttpd.8 ]; then $(INSTALL) -d $(DESTDIR)$(MANDIR)/man8 && \
	  $(INSTALL) -m 644 doc/mrhttpd.8 $(DESTDIR)$(MANDIR)/man8/; fi

install-strip: install
	$(STRIP) $(DESTDIR)$(BIN_DIR)/mrhttpd

uninstall:
	rm -f $(DESTDIR)$(BIN_DIR)/mrhttpd $(DESTDIR)$(INITDIR)/rc.httpd \
	  $(DESTDIR)$(MANDIR)/man8/mrhttpd.8
	if [ -n "$(PRIVATE_DIR)" ]; then for f in www/private/*.html; do \
	  rm -f "$(DESTDIR)$(SERVER_ROOT)$(PRIVATE_DIR)/$${f##*/}"; done; fi

clean:
	rm -f src/*.o src/mrhttpd src/config.h src/config.mk src/flags
	rm -rf build tests/build

.PHONY: mbedtls nghttp2 bench-tls bench-h2 all run check check-deps check-native check-sanitize check-cross test \
	check-minimal cross-deps $(CROSS_STEPS) \
	check-tsan matrix size bench cost install install-strip uninstall clean fuzz check-fuzz FORCE
FORCE:
