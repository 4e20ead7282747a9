#!/bin/sh
# run.sh - build the libFuzzer harnesses and run each a while (make fuzz).
#
# usage: tests/fuzz/run.sh [--check] [HARNESS...]
#        make fuzz [FUZZ_SECONDS=N]        make check-fuzz
#
# Builds every tests/fuzz/fuzz_*.c (or the HARNESSes named, e.g.
# fuzz_path) with clang -fsanitize=fuzzer,address,undefined into
# tests/build/fuzz/, against a config.h that configure writes there from
# tests/fuzz/fuzz.conf (every feature on).  Then runs each for
# FUZZ_SECONDS (default 60) on a private copy of its seed corpus,
# tests/fuzz/corpus/NAME/, so the repository is never written to; crash
# inputs go to tests/build/fuzz/artifacts/NAME-crash-*, the output to
# tests/build/fuzz/NAME.log.  Prints one line per harness,
#
#   fuzz NAME: EXECUTIONS executions, CRASHES crashes
#
# and exits 1 when a harness crashed or did not build.  To replay a crash:
# tests/build/fuzz/NAME tests/build/fuzz/artifacts/NAME-crash-...
#
# FUZZ_CC (default clang, else clang-14) is the compiler; FUZZ_JOBS
# (default 1) harnesses run at once; FUZZ_FLAGS are more libFuzzer
# options (e.g. -max_len=8192).
#
# --check (make check-fuzz): where clang or libFuzzer is missing, says so
# and exits 0, unless MRHTTPD_FUZZ_REQUIRED is set (to anything but 0):
# then that is a failure.

me=fuzz
cd "$(dirname "$0")/../.." || exit 1
OUT=tests/build/fuzz
CONF=tests/fuzz/fuzz.conf
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}

check=0
if [ "${1-}" = --check ]; then
	check=1
	shift
fi

say() { printf '%s: %s\n' "$me" "$*"; }

case $SECONDS_EACH in
''|*[!0-9]*|0) say "FUZZ_SECONDS: '$SECONDS_EACH' is not a positive number of seconds"; exit 2 ;;
esac
case $JOBS in
''|*[!0-9]*|0) say "FUZZ_JOBS: '$JOBS' is not a positive number"; exit 2 ;;
esac

# no_fuzzer REASON: without a fuzzer, check-fuzz skips and fuzz fails
no_fuzzer() {
	if [ $check = 1 ] && [ "${MRHTTPD_FUZZ_REQUIRED:-0}" = 0 ]; then
		say "SKIPPING: $1"
		exit 0
	fi
	[ $check = 0 ] || say "MRHTTPD_FUZZ_REQUIRED is set: a skip is a failure"
	say "FAILED: $1"
	exit 1
}

CC=${FUZZ_CC:-}
if [ -z "$CC" ]; then
	for c in clang clang-14; do
		if command -v "$c" >/dev/null 2>&1; then
			CC=$c
			break
		fi
	done
	[ -n "$CC" ] || no_fuzzer "no clang (apt-get install clang libclang-rt-14-dev)"
elif ! command -v "$CC" >/dev/null 2>&1; then
	no_fuzzer "no $CC (FUZZ_CC)"
fi

SAN='-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all'
# as the Makefile: 64-bit off_t on 32-bit targets too
CFLAGS="-std=gnu99 -Wall -Wextra -g -O1 -fno-omit-frame-pointer $SAN -pthread"
CPPFLAGS="-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64 -I$OUT/cfg -Isrc"

mkdir -p "$OUT/artifacts" "$OUT/corpus" || exit 1

# Can it link a fuzzer at all?  Debian keeps libFuzzer in libclang-rt-N-dev.
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
    '{ (void)d; (void)n; return 0; }' > "$OUT/probe.c"
# shellcheck disable=SC2086
if ! "$CC" $SAN -o "$OUT/probe" "$OUT/probe.c" > "$OUT/probe.log" 2>&1; then
	no_fuzzer "$CC cannot link -fsanitize=fuzzer (no libFuzzer? apt-get install libclang-rt-14-dev): $(head -c 300 "$OUT/probe.log")"
fi

# config.h, again only when the configuration or configure changed
if [ ! -f "$OUT/cfg/config.h" ] || [ "$CONF" -nt "$OUT/cfg/config.h" ] ||
    [ configure -nt "$OUT/cfg/config.h" ]; then
	if ! sh ./configure -o "$OUT/cfg" "$CONF" > "$OUT/configure.log" 2>&1; then
		say "FAILED: configure -o $OUT/cfg $CONF:"
		cat "$OUT/configure.log"
		exit 1
	fi
fi

if [ $# -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		n=${f##*/}
		set -- "$@" "${n%.c}"
	done
fi

# run NAME: fuzzes one harness; its line goes to $OUT/NAME.result
run() {
	n=$1
	rm -rf "$OUT/corpus/$n"
	mkdir -p "$OUT/corpus/$n"
	if [ -d "tests/fuzz/corpus/$n" ]; then
		cp tests/fuzz/corpus/"$n"/* "$OUT/corpus/$n/" 2>/dev/null
	fi
	# shellcheck disable=SC2086
	"$OUT/$n" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
	    -artifact_prefix="$OUT/artifacts/$n-" ${FUZZ_FLAGS-} \
	    "$OUT/corpus/$n" > "$OUT/$n.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/$n.log" | tail -n 1)
	crashes=$(grep -c 'Test unit written to' "$OUT/$n.log")
	# died without saying so (out of memory, killed): a crash too
	[ "$rc" = 0 ] || [ "$crashes" -gt 0 ] || crashes=1
	echo "fuzz $n: ${execs:-0} executions, $crashes crashes" > "$OUT/$n.result"
	if [ "$crashes" -gt 0 ]; then
		grep -E 'invariant violated|ERROR: |SUMMARY: |Test unit written to' \
		    "$OUT/$n.log" | head -n 6 | sed 's/^/    /' >> "$OUT/$n.result"
		echo "    (exit $rc; the whole output: $OUT/$n.log)" >> "$OUT/$n.result"
	fi
}

failed=0 built=''
for n in "$@"; do
	src=tests/fuzz/$n.c
	# the libraries a harness names in a " * libs: " line of its comment
	libs=$(sed -n 's/^ \* libs: //p' "$src" 2>/dev/null)
	# shellcheck disable=SC2086
	if [ -f "$src" ] && "$CC" $CFLAGS $CPPFLAGS -o "$OUT/$n" "$src" tests/fuzz/stubs.c \
	    $libs > "$OUT/$n.build.log" 2>&1; then
		built="$built $n"
	else
		echo "fuzz $n: FAILED to build (see $OUT/$n.build.log)"
		head -n 8 "$OUT/$n.build.log" 2>/dev/null | sed 's/^/    /'
		failed=$((failed + 1))
	fi
done

# Word splitting of the list is wanted.
# shellcheck disable=SC2086
set -- $built
say "$# harnesses, $SECONDS_EACH s each, $JOBS at a time, with $CC"
while [ $# -gt 0 ]; do
	batch='' i=0
	while [ $# -gt 0 ] && [ $i -lt "$JOBS" ]; do
		run "$1" &
		batch="$batch $1"
		i=$((i + 1))
		shift
	done
	wait
	for n in $batch; do
		cat "$OUT/$n.result"
		head -n 1 "$OUT/$n.result" | grep -q ', 0 crashes$' ||
		    failed=$((failed + 1))
	done
done

if [ $failed -gt 0 ]; then
	say "$failed FAILED (crash inputs in $OUT/artifacts/)"
	exit 1
fi
say "no crashes"
