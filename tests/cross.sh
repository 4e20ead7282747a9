#!/bin/sh
# cross.sh - run the test suite on cross-built binaries under qemu-user.
#
# usage: tests/cross.sh [TRIPLET...]
#   default: mipsel-linux-gnu mips-linux-gnu arm-linux-gnueabihf
#            (little- and big-endian MIPS, 32-bit ARM; make check runs the
#            whole suite on big-endian MIPS, all but the timed policy files
#            on ARM, the core files on little-endian MIPS)
#   others:  aarch64-linux-gnu
#
# CROSS_TESTS: the test files to run (default tests/t/, all of them).
#
# For each TRIPLET the harness builds every test binary, and the unit
# tests, with CROSS_COMPILE=TRIPLET- LDFLAGS=-static, and starts them
# under RUN_WRAPPER=qemu-ARCH-static.  Static, because a dynamic binary
# would need qemu to be pointed at the target's libraries.
#
# As root on Debian, missing compilers and qemu are installed first
# (tests/install-deps.sh --cross).  A target whose compiler or qemu is
# still missing, or that cannot build and run a static "hello", is skipped
# with a message; MRHTTPD_CROSS_REQUIRED=1 makes such a skip a failure.
# Exits 1 when a suite failed.

me=check-cross
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- mipsel-linux-gnu mips-linux-gnu arm-linux-gnueabihf

say() { printf '%s: %s\n' "$me" "$*"; }

sh tests/install-deps.sh --cross

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mrhttpd-cross.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
printf 'int main(void) { return 42; }\n' > "$tmp/hello.c"

failed='' skipped='' passed=''
skip() { # skip TRIPLET REASON
	say "SKIPPING $1: $2"
	skipped="$skipped $1"
}

for t in "$@"; do
	arch=${t%%-*}			# arm-linux-gnueabihf -> arm
	qemu=qemu-$arch-static
	if ! command -v "$t-gcc" >/dev/null 2>&1; then
		skip "$t" "no $t-gcc (apt-get install gcc-$t)"
		continue
	fi
	if ! command -v "$qemu" >/dev/null 2>&1; then
		skip "$t" "no $qemu (apt-get install qemu-user-static)"
		continue
	fi
	if ! "$t-gcc" -static -o "$tmp/hello-$t" "$tmp/hello.c" \
	    >"$tmp/hello.err" 2>&1; then
		skip "$t" "$t-gcc cannot link a static program: $(head -c 300 "$tmp/hello.err")"
		continue
	fi
	"$qemu" "$tmp/hello-$t"
	if [ $? -ne 42 ]; then
		skip "$t" "$qemu cannot run a static $t program"
		continue
	fi

	say "the suite on $t under $qemu${CROSS_TESTS:+: $CROSS_TESTS}"
	start=$(date +%s)
	# CC must not be inherited: CROSS_COMPILE picks the compiler.
	# The output is kept, so that the summary at the end can repeat the
	# failures of every target: a log's tail shows only the last one.
	if env -u CC CROSS_COMPILE="$t-" LDFLAGS="${LDFLAGS:+$LDFLAGS }-static" \
	    RUN_WRAPPER="$qemu" prove --timer -j"${JOBS:-2}" -I tests/lib ${CROSS_TESTS:-tests/t/} 2>&1 |
	    tee "$tmp/prove-$t.log"; [ "$(tail -n 1 "$tmp/prove-$t.log")" = "Result: PASS" ]; then
		passed="$passed $t"
	else
		failed="$failed $t"
	fi
	say "$t took $(($(date +%s) - start)) s"
done

for t in $failed; do
	say "failures on $t:"
	grep -E '^#   Failed test|^# +(got|expected):|Dubious|Failed [0-9]+/|Wstat|Failed tests?:' \
	    "$tmp/prove-$t.log" | head -n 60
done
say "passed:${passed:- none}; failed:${failed:- none}; skipped:${skipped:- none}"
[ -z "$failed" ] || exit 1
if [ -n "$skipped" ] && [ "${MRHTTPD_CROSS_REQUIRED:-0}" != 0 ]; then
	say "MRHTTPD_CROSS_REQUIRED is set: a skipped target is a failure"
	exit 1
fi
exit 0
