#!/bin/sh
# size.sh - the size and memory budgets of doc/SIZE.md (make size).
#
# usage: extra/size.sh [-v]
#   -v  also show where the bytes go: the largest sections and symbols
#
# Builds, in build/size/, with the size profile (make SIZE=1):
#   minimal  extra/minimal.conf (PUBLIC_DIR, RANGES=0, VALIDATORS=0, nothing
#            optional), dynamically linked against glibc (gcc)
#   musl     the shipped mrhttpd.conf, static with musl (musl-gcc -static)
# and, for comparison, the same two with the default flags (-O2).  Then it
# runs extra/memusage.pl on the musl binary for idle RSS and RSS per idle
# keep-alive connection.  Then the same for the shipped configuration with
# TLS=1, HTTP2=1 and both (musl static, mbed TLS and nghttp2 from Debian's
# source packages).  Prints one line per figure against its budget.
# Exits 0 even when a budget is exceeded (it reports); SIZE_STRICT=1
# makes that an exit status of 1.  Sizes are bytes of the stripped file;
# RSS is kB as /proc/PID/status counts it.

cd "$(dirname "$0")/.." || exit 1
verbose=0
[ "${1-}" = -v ] && verbose=1
OUT=build/size
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
# the builds here choose their own toolchain and flags
unset CC CFLAGS CPPFLAGS LDFLAGS CROSS_COMPILE SIZE STRIP
mkdir -p "$OUT" || exit 1

# Budgets (the footprint issue): the seed's 15-20 KB claim; 48 KB for
# the shipped configuration (upstream 2.8's musl build is 64,152 bytes);
# upstream's 60 kB idle; 1 kB per connection.
BUDGET_MIN=20480
BUDGET_MUSL=49152
BUDGET_IDLE=60
BUDGET_CONN=1
over=0

# build NAME CONF MAKE-ARGS...: builds $OUT/NAME/mrhttpd and its stripped
# copy $OUT/NAME/mrhttpd.stripped; prints the make output on failure.
build() {
	name=$1 conf=$2
	shift 2
	mkdir -p "$OUT/$name"
	if ! make -s -j2 BUILD="$OUT/$name" CONF="$conf" "$@" \
	    > "$OUT/$name/build.log" 2>&1; then
		echo "size: build $name failed: make $*" >&2
		cat "$OUT/$name/build.log" >&2
		return 1
	fi
	strip -o "$OUT/$name/mrhttpd.stripped" "$OUT/$name/mrhttpd"
}

bytes() { wc -c < "$1" | tr -d ' '; }

# line LABEL VALUE BUDGET UNIT: one report line; counts a miss.
line() {
	if [ "$(echo "$2 $3" | awk '{ print ($1 <= $2) }')" = 1 ]; then
		verdict=ok
	else
		verdict="OVER by $(echo "$2 $3" | awk '{ printf "%.6g", $1 - $2 }')"
		over=$((over + 1))
	fi
	printf '%-58s %9s %-5s budget %6s  %s\n' "$1" "$2" "$4" "$3" "$verdict"
}

where() { # where BINARY: the largest sections and symbols
	[ $verbose = 1 ] || return 0
	echo "    largest sections (bytes; .bss and .tbss take no file space):"
	size -A "$1.stripped" | awk 'NR > 2 && $2 > 0 && $1 != "Total" {
	    print $2, $1 }' | sort -rn | head -n 8 |
	    awk '{ printf "      %7d  %s\n", $1, $2 }'
	echo "    largest symbols:"
	nm -S --size-sort "$1" 2>/dev/null | tail -n 12 |
	    while read -r _ s t n; do
		printf '      %7d  %s %s\n' "$(printf '%d' "0x$s")" "$t" "$n"
	    done | sort -rn
}

have_musl=1
command -v musl-gcc >/dev/null 2>&1 || have_musl=0

build minimal extra/minimal.conf SIZE=1 || exit 1
build minimal-O2 extra/minimal.conf || exit 1
if [ $have_musl = 1 ]; then
	build musl mrhttpd.conf SIZE=1 CC=musl-gcc LDFLAGS=-static || exit 1
	build musl-O2 mrhttpd.conf CC=musl-gcc LDFLAGS=-static || exit 1
fi

echo "mrhttpd $(sed -n 's/^VERSION=//p' configure), $(git describe --always --dirty 2>/dev/null || echo '?'), $(uname -m)"
line "(a) minimal, glibc dynamic, stripped (make SIZE=1)" \
    "$(bytes "$OUT/minimal/mrhttpd.stripped")" $BUDGET_MIN bytes
where "$OUT/minimal/mrhttpd"
printf '    same with the default flags (-O2): %s bytes\n' \
    "$(bytes "$OUT/minimal-O2/mrhttpd.stripped")"
if [ $have_musl = 0 ]; then
	echo "size: no musl-gcc (apt-get install musl-tools): (b)-(d) not measured"
else
	line "(b) mrhttpd.conf, musl static, stripped (make SIZE=1)" \
	    "$(bytes "$OUT/musl/mrhttpd.stripped")" $BUDGET_MUSL bytes
	where "$OUT/musl/mrhttpd"
	printf '    same with the default flags (-O2): %s bytes\n' \
	    "$(bytes "$OUT/musl-O2/mrhttpd.stripped")"
	# five runs, the median: where the kernel puts the main stack moves
	# idle RSS by a page from one start to the next (doc/SIZE.md)
	runs=
	for i in 1 2 3 4 5; do
		mem=$(perl extra/memusage.pl -q "$OUT/musl/mrhttpd.stripped") ||
			break
		runs="$runs $(echo "$mem" | sed -n 's/^idle_rss_kb=//p')"
	done
	if [ -n "$mem" ]; then
		get() { echo "$mem" | sed -n "s/^$1=//p"; }
		sorted=$(echo $runs | tr ' ' '\n' | sort -n | tr '\n' ' ')
		line "(c) idle RSS after start-up, musl static, median of 5" \
		    "$(echo $sorted | cut -d' ' -f3)" $BUDGET_IDLE kB
		echo "    runs: $sorted(kB)"
		line "(d) RSS per idle keep-alive connection, of $(get conns)" \
		    "$(get per_conn_kb)" $BUDGET_CONN kB
		printf '    VmRSS %s kB, VmHWM %s kB, %s threads with %s connections\n' \
		    "$(get busy_rss_kb)" "$(get busy_hwm_kb)" "$(get threads)" \
		    "$(get conns)"
	else
		echo "size: extra/memusage.pl failed" >&2
		over=$((over + 1))
	fi
fi

# HTTPS (TLS=1): the shipped configuration with TLS on, musl static, on
# mbed TLS built from Debian's source (make mbedtls); a certificate made
# here.  Reported; the footprint issue sets no budget for it yet.
tls_conf() {
	dir=$(pwd)/$OUT/tls
	mkdir -p "$dir"
	[ -s "$dir/key.pem" ] || openssl req -x509 -newkey ec -pkeyopt \
	    ec_paramgen_curve:P-256 -nodes -keyout "$dir/key.pem" \
	    -out "$dir/cert.pem" -days 365 -subj /CN=localhost >/dev/null 2>&1
	{ cat mrhttpd.conf; printf '\nTLS=1\nTLS_CERT=%s\nTLS_KEY=%s\n' \
	    "$dir/cert.pem" "$dir/key.pem"; } > "$dir/tls.conf.new"
	cmp -s "$dir/tls.conf.new" "$dir/tls.conf" ||
		cp "$dir/tls.conf.new" "$dir/tls.conf"
	[ -s "$dir/key.pem" ]
}
# option NAME CONF WHAT MEMFLAGS L1 L2 L3: an optional part's figures, the
# shipped configuration with it on, musl static: size, idle RSS, RSS per
# idle connection (memusage.pl with MEMFLAGS).
option() {
	if ! build "musl-$1" "$2" SIZE=1 CC=musl-gcc LDFLAGS=-static; then
		echo "size: the $3 build failed (its log: $OUT/musl-$1/build.log)"
		return 0
	fi
	printf '%-58s %9s bytes\n' "($5) mrhttpd.conf + $3, musl static, stripped" \
	    "$(bytes "$OUT/musl-$1/mrhttpd.stripped")"
	where "$OUT/musl-$1/mrhttpd"
	# shellcheck disable=SC2086
	if mem=$(perl extra/memusage.pl -q $4 "$OUT/musl-$1/mrhttpd.stripped"); then
		get() { echo "$mem" | sed -n "s/^$1=//p"; }
		printf '%-58s %9s kB\n' "($6) idle RSS of ($5)" "$(get idle_rss_kb)"
		printf '%-58s %9s kB\n' \
		    "($7) RSS per idle connection, of $(get conns)" "$(get per_conn_kb)"
	fi
}
if [ $have_musl = 1 ] && command -v openssl >/dev/null 2>&1 && tls_conf; then
	option tls "$OUT/tls/tls.conf" "TLS=1" -t e f g
	{ cat mrhttpd.conf; printf '\nHTTP2=1\n'; } > "$OUT/tls/h2.conf.new"
	cmp -s "$OUT/tls/h2.conf.new" "$OUT/tls/h2.conf" ||
		cp "$OUT/tls/h2.conf.new" "$OUT/tls/h2.conf"
	option h2 "$OUT/tls/h2.conf" "HTTP2=1" -2 h i j
	{ cat "$OUT/tls/tls.conf"; printf 'HTTP2=1\n'; } > "$OUT/tls/h2tls.conf.new"
	cmp -s "$OUT/tls/h2tls.conf.new" "$OUT/tls/h2tls.conf" ||
		cp "$OUT/tls/h2tls.conf.new" "$OUT/tls/h2tls.conf"
	option h2tls "$OUT/tls/h2tls.conf" "TLS=1 HTTP2=1" "-t -2" k l m
else
	echo "size: the TLS and HTTP/2 builds were not measured (musl-gcc, openssl)"
fi

if [ $over -gt 0 ]; then
	echo "size: $over figure(s) over budget (see doc/SIZE.md)"
	[ "${SIZE_STRICT:-0}" = 0 ] || exit 1
fi
exit 0
