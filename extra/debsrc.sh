#!/bin/sh
# debsrc.sh - Debian's source package of a library, once, for a build for
# the target (extra/mbedtls.sh, extra/nghttp2.sh).
#
# usage: . extra/debsrc.sh; debsrc PACKAGE FILE
#
# Unpacks "apt-get source PACKAGE" into build/src/PACKAGE, unless FILE (a
# path inside it) shows it is there already.  When apt has no deb-src
# line, one for the running release is added (as root; otherwise we stop
# and say so).  Nothing is downloaded from anywhere else.  Needs say() and
# die() from the caller.
#
# depslock SCRIPT DIR LIB: runs the calling script (SCRIPT DIR) again under
# flock(1) on build/deps.lock, unless it runs so already; there, exits when
# DIR/lib/LIB is built.  Two makes at once (prove -j2 building two
# configurations) would otherwise unpack one source into one directory,
# or write one library, at the same time; the second now waits, then
# finds the library there.  flock -o: no child of the script (a compiler,
# apt-get, a service a package starts) holds the lock.

depslock() {
	if [ -z "${MRHTTPD_DEPS_LOCKED-}" ] && command -v flock >/dev/null 2>&1; then
		mkdir -p build
		export MRHTTPD_DEPS_LOCKED=1
		# BusyBox's flock has no -o: then the lock is inherited
		flock -o build/deps.lock true 2>/dev/null &&
			exec flock -o build/deps.lock sh "$1" "$2"
		exec flock build/deps.lock sh "$1" "$2"
	fi
	command -v flock >/dev/null 2>&1 ||
		say "no flock(1): not safe against another build at the same time"
	if [ -f "$2/lib/$3" ]; then
		say "$2/lib/$3 is there already"
		exit 0
	fi
}

debsrc() {
	pkg=$1
	dir=build/src/$pkg
	[ -f "$dir/$2" ] && return 0
	command -v apt-get >/dev/null 2>&1 ||
		die "no apt-get: point the build at a $pkg built for the target"
	command -v dpkg-source >/dev/null 2>&1 || sh tests/install-deps.sh dpkg-dev
	if ! apt-cache showsrc "$pkg" 2>/dev/null | grep -q '^Version:'; then
		[ "$(id -u)" = 0 ] ||
			die "apt has no deb-src line, and only root can add one"
		. /etc/os-release
		say "adding a deb-src line for Debian $VERSION_CODENAME"
		printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' \
		    "Suites: $VERSION_CODENAME" 'Components: main' \
		    'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
		    > /etc/apt/sources.list.d/mrhttpd-src.sources
		timeout 600 apt-get -qq update || say "apt-get update failed"
		apt-cache showsrc "$pkg" 2>/dev/null | grep -q '^Version:' ||
			die "apt still finds no source for $pkg"
	fi
	rm -rf "build/src/dl-$pkg" "$dir"
	mkdir -p "build/src/dl-$pkg"
	(cd "build/src/dl-$pkg" && timeout 600 apt-get -qq source "$pkg") >&2 ||
		die "apt-get source $pkg failed"
	mv "build/src/dl-$pkg/$pkg"-*/ "$dir"
	rm -rf "build/src/dl-$pkg"
	say "source: Debian's $pkg $(sed -n '1s/.*(\(.*\)).*/\1/p' "$dir/debian/changelog")"
}
