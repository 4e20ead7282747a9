#!/bin/sh
# objcache.sh - compile one source file, reusing an object that an earlier
# build made from the same preprocessed text (make OBJ_CACHE=dir).
#
# usage: OBJ_CACHE_ID=compiler-identity \
#        sh extra/objcache.sh CACHE BUILD OBJ SRC CC [FLAGS...]
#
# Does what "CC FLAGS -c -o OBJ SRC" does.  The test suites build about a
# hundred configurations, and most of the ~15 files compile to the same
# thing in each: a key changes only the files whose code it reaches.  So
# the key of an object is a digest of the compiler's identity, the
# command, and the preprocessor's output with its line markers, with
# BUILD (the build directory, whose config.h each file includes) written
# as @BUILD@: equal keys compile the same text with the same flags.
# A miss compiles the real source (diagnostics name the real files), then
# stores a copy; writes go through a temporary name and rename(2), so two
# makes that share CACHE never see half an object.
set -e
cache=$1 build=$2 obj=$3 src=$4
shift 4
pp=$obj.objcache.i
"$@" -E -o "$pp" "$src" || exec "$@" -c -o "$obj" "$src"
b=$(printf '%s\n' "$build" | sed 's/[].[*^$\\|]/\\&/g')
key=$({ printf '%s\n' "$OBJ_CACHE_ID" "$*"; cat "$pp"; } |
	sed "s|$b|@BUILD@|g" | md5sum | cut -c1-32)
rm -f "$pp"
if [ -f "$cache/$key.o" ] && cp "$cache/$key.o" "$obj.objcache.$$" &&
    mv -f "$obj.objcache.$$" "$obj"; then
	exit 0
fi
"$@" -c -o "$obj" "$src"
# the cache is a help, not the build: a full disk only costs its copy
{ mkdir -p "$cache" && cp "$obj" "$cache/$key.$$" &&
    mv -f "$cache/$key.$$" "$cache/$key.o"; } 2>/dev/null ||
	rm -f "$cache/$key.$$" "$obj.objcache.$$"
