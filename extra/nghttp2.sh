#!/bin/sh
# nghttp2.sh - build nghttp2's library for the target from Debian's source
# package.
#
# usage: extra/nghttp2.sh DIR     (make runs it: make nghttp2, or any
#                                  HTTP2=1 build with a cross or musl compiler)
#
# Builds the static library libnghttp2.a with $CC and $AR (the target's
# compiler) into DIR/lib, and its headers into DIR/include, for
# NGHTTP2_DIR=DIR.  The library alone: no tools, no autotools.  Its
# sources need only the few HAVE_ macros any Linux libc satisfies, and the
# version header that configure would write.
#
# The source is Debian's: "apt-get source nghttp2", once, into build/src/
# (extra/debsrc.sh), Debian's security patches included.  A firmware
# builder with an nghttp2 of their own sets NGHTTP2_DIR= and never runs
# this.  -Os, one section per function: the linker keeps what h2.c calls.
# A library already in DIR is kept (remove DIR to build again); it is
# renamed into place last, so a build cut short leaves none.
set -eu

dest=${1:?usage: extra/nghttp2.sh DIR}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/.."
CC=${CC:-cc}
AR=${AR:-ar}
me=nghttp2
say() { printf '%s: %s\n' "$me" "$*" >&2; }
die() { say "$*"; exit 1; }

. extra/debsrc.sh
depslock "$self" "$dest" libnghttp2.a
debsrc nghttp2 lib/nghttp2_session.c
src=build/src/nghttp2

ver=$(sed -n 's/^AC_INIT(\[nghttp2\], \[\([0-9.]*\).*/\1/p' "$src/configure.ac")
[ -n "$ver" ] || die "no version in $src/configure.ac"
num=$(echo "$ver" | awk -F. '{ printf "0x%02x%02x%02x", $1, $2, $3 }')
work=$dest.work.$$
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work" "$dest/lib" "$dest/include/nghttp2"
sed -e "s/@PACKAGE_VERSION@/$ver/" -e "s/@PACKAGE_VERSION_NUM@/$num/" \
    "$src/lib/includes/nghttp2/nghttp2ver.h.in" > "$dest/include/nghttp2/nghttp2ver.h"
cp "$src/lib/includes/nghttp2/nghttp2.h" "$dest/include/nghttp2/"
say "building nghttp2 $ver with $CC"
for f in "$src"/lib/*.c; do
	o=$work/$(basename "$f" .c).o
	$CC -Os -ffunction-sections -fdata-sections -DBUILDING_NGHTTP2 \
	    -DHAVE_ARPA_INET_H -DHAVE_NETINET_IN_H -DHAVE_TIME_H \
	    -DHAVE_CLOCK_GETTIME -I"$dest/include" -I"$src/lib" \
	    -c -o "$o" "$f" || die "the build of $f with $CC failed"
done
$AR rcs "$work/libnghttp2.a" "$work"/*.o
mv -f "$work/libnghttp2.a" "$dest/lib/libnghttp2.a"
rm -rf "$work"
say "built $dest/lib/libnghttp2.a"
