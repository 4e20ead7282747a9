# Makefile for mrhttpd.
#
#   make                    build src/mrhttpd from mrhttpd.conf
#   make run                build and serve www/htdocs on http://127.0.0.1:8080/
#   make check              every test, then again under ASan/UBSan
#   make install            binary to BIN_DIR, error pages, rc.httpd, man page
#   make BUILD=dir CONF=f   build dir/mrhttpd from another configuration
#
# Packagers: CC CFLAGS CPPFLAGS LDFLAGS CROSS_COMPILE DESTDIR PREFIX are
# honoured; V=1 shows the commands.

CROSS_COMPILE ?=
ifeq ($(origin CC),default)
CC = $(CROSS_COMPILE)gcc
endif
STRIP ?= $(CROSS_COMPILE)strip
CFLAGS ?= -O2
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
INITDIR ?= /etc/init.d
BUILD ?= src
CONF ?= mrhttpd.conf
SANITIZE ?=

WARN = -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes \
	-Wmissing-declarations -Wshadow -Wpointer-arith -Wsign-compare
ifeq ($(SANITIZE),1)
SAN = -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -g
endif
FINAL_CFLAGS = -std=gnu99 $(WARN) $(CFLAGS) $(SAN) -pthread
FINAL_CPPFLAGS = -D_GNU_SOURCE -I$(BUILD) -Isrc $(CPPFLAGS)
FINAL_LDFLAGS = $(LDFLAGS) $(SAN) -pthread

ifndef V
Q_CC = @printf '  CC      %s\n' $@;
Q_LD = @printf '  LD      %s\n' $@;
Q_GEN = @printf '  GEN     %s\n' $@;
endif

# configure writes config.h and config.mk; make re-runs it when the
# configuration changes.
-include $(BUILD)/config.mk

OBJS-y = main.o server.o request.o response.o file.o io.o util.o mime.o body.o
OBJS-$(CONFIG_LOG) += log.o
OBJS-$(CONFIG_AUTO_INDEX) += dirlist.o
OBJS-$(CONFIG_PUT) += put.o
OBJS-$(CONFIG_CGI) += cgi.o
OBJS-$(CONFIG_AUTH_FILE) += auth.o
# crypt(3) is in musl's libc, and in libcrypt next to glibc
ifeq ($(CONFIG_AUTH_FILE),y)
LIBS += $(shell echo 'int main(void){return 0;}' | $(CC) -x c - -lcrypt \
	-o /dev/null 2>/dev/null && echo -lcrypt)
endif
OBJS = $(addprefix $(BUILD)/,$(OBJS-y))
HEADERS = src/mrhttpd.h src/log.h src/dirlist.h src/put.h src/cgi.h src/auth.h \
	$(BUILD)/config.h

all: $(BUILD)/mrhttpd

$(BUILD)/config.h $(BUILD)/config.mk: $(CONF) configure
	$(Q_GEN)./configure -o $(BUILD) $(CONF) >/dev/null

$(BUILD)/%.o: src/%.c $(HEADERS)
	$(Q_CC)$(CC) $(FINAL_CFLAGS) $(FINAL_CPPFLAGS) -c -o $@ $<

$(BUILD)/mrhttpd: $(OBJS)
	$(Q_LD)$(CC) $(FINAL_LDFLAGS) -o $@ $(OBJS) $(LIBS)

# --- trying it out -------------------------------------------------------------
RUN_DIR = build/run
ifneq ($(CONF),$(RUN_DIR)/run.conf)
$(RUN_DIR)/run.conf: $(CONF)
	@mkdir -p $(RUN_DIR)
	@{ cat $(CONF); echo; echo '# make run: serve the sample site, log to the terminal'; \
	  echo 'PUBLIC_DIR=$(CURDIR)/www/htdocs'; \
	  echo 'PRIVATE_DIR=$(CURDIR)/www/private'; \
	  echo 'SERVER_ADDR=127.0.0.1'; echo 'LOG_LEVEL=4'; echo 'LOG_FILE='; \
	  echo 'DETACH=0'; echo 'SERVER_ROOT='; echo 'SYSTEM_USER='; } > $@
endif

run: $(RUN_DIR)/run.conf
	@$(MAKE) --no-print-directory BUILD=$(RUN_DIR) CONF=$(RUN_DIR)/run.conf
	@echo "Serving $(CURDIR)/www/htdocs on http://127.0.0.1:8080/ (Ctrl-C stops)"
	$(RUN_DIR)/mrhttpd -f

# --- tests -----------------------------------------------------------------------
PROVE = prove -I tests/lib
check: all
	@sh tests/install-deps.sh
	$(PROVE) tests/t/
	@echo "--- again under -fsanitize=address,undefined ---"
	MRHTTPD_SANITIZE=1 $(PROVE) tests/t/

test: check

# --- sizes ------------------------------------------------------------------------
size: all
	@cp $(BUILD)/mrhttpd $(BUILD)/mrhttpd.stripped && $(STRIP) $(BUILD)/mrhttpd.stripped
	@printf 'mrhttpd stripped: %s bytes (%s)\n' \
	  "$$(wc -c < $(BUILD)/mrhttpd.stripped)" "$(CONF)"
	@rm -f $(BUILD)/mrhttpd.stripped

# --- install ----------------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(BIN_DIR)
	install -m 755 $(BUILD)/mrhttpd $(DESTDIR)$(BIN_DIR)/mrhttpd
	if [ -n "$(PRIVATE_DIR)" ]; then \
	  install -d $(DESTDIR)$(SERVER_ROOT)$(PRIVATE_DIR) && \
	  install -m 644 www/private/*.html $(DESTDIR)$(SERVER_ROOT)$(PRIVATE_DIR)/; fi
	install -d $(DESTDIR)$(INITDIR)
	sed -e 's|@BIN_DIR@|$(BIN_DIR)|g' -e 's|@PID_FILE@|$(PID_FILE)|g' \
	  rc.httpd > $(DESTDIR)$(INITDIR)/rc.httpd
	chmod 755 $(DESTDIR)$(INITDIR)/rc.httpd
	if [ -f doc/mrhttpd.8 ]; then install -d $(DESTDIR)$(MANDIR)/man8 && \
	  install -m 644 doc/mrhttpd.8 $(DESTDIR)$(MANDIR)/man8/; fi

uninstall:
	rm -f $(DESTDIR)$(BIN_DIR)/mrhttpd $(DESTDIR)$(INITDIR)/rc.httpd \
	  $(DESTDIR)$(MANDIR)/man8/mrhttpd.8

clean:
	rm -f src/*.o src/mrhttpd src/config.h src/config.mk
	rm -rf build tests/build

.PHONY: all run check test size install uninstall clean
