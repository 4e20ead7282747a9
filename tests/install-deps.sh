#!/bin/sh
# install-deps.sh - install the Debian packages the test suite uses.
#
# Usage: tests/install-deps.sh [--cross | PACKAGE...]
#
# Checks PACKAGES (or CROSS_PACKAGES with --cross, or the packages named as
# arguments) with dpkg-query and, when run as root on a system with
# apt-get, installs the missing ones.  Otherwise it only lists them.  It
# always exits 0: a package that is missing or cannot be installed is a
# warning, and the tests that need its tool skip themselves with a reason.
# MRHTTPD_NO_INSTALL=1 lists without installing.

# Tools the tests run; keep them in this one list.
PACKAGES="curl apache2-utils wrk file busybox-static dash musl-tools procps psmisc iproute2
wget php-cgi libxml2-utils jq python3-venv chromium util-linux clang libclang-rt-14-dev
slowhttptest binutils libmbedtls-dev openssl testssl.sh libnss3-tools
libnghttp2-dev nghttp2-client golang-go tcpdump git strace"
# What `make check-cross` (tests/cross.sh) needs: Debian's cross compilers
# and qemu-user, to build the suite's binaries and run them; dpkg-dev and
# python3 to unpack and configure mbed TLS's source (extra/mbedtls.sh).
# The C libraries' headers are only recommended by the compilers, and
# apt here installs no recommends: name them.
CROSS_PACKAGES="gcc-arm-linux-gnueabihf gcc-aarch64-linux-gnu gcc-mipsel-linux-gnu
gcc-mips-linux-gnu libc6-dev-armhf-cross libc6-dev-arm64-cross
libc6-dev-mipsel-cross libc6-dev-mips-cross qemu-user-static dpkg-dev python3"

# h2spec, the HTTP/2 conformance suite, is no Debian package: it is built
# with Debian's Go, as its README says, into tests/build/bin (the module
# cache in tests/build/go).  Once built, it stays.
H2SPEC=github.com/summerwind/h2spec/cmd/h2spec@latest

# How long one apt-get run may take before we give up on it, in seconds.
APT_TIMEOUT=600

me=install-deps

say()
{
	printf '%s: %s\n' "$me" "$*"
}

warn()
{
	printf '%s: warning: %s\n' "$me" "$*" >&2
}

# Builds h2spec when it is missing and go is there; a failure is a
# warning, as for a package.
h2spec()
{
	root=$(cd "$(dirname "$0")/.." && pwd)
	[ -x "$root/tests/build/bin/h2spec" ] && return 0
	if ! command -v go >/dev/null 2>&1; then
		warn "no go (apt-get install golang-go): no h2spec; the HTTP/2 tests will skip"
		return 0
	fi
	say "building h2spec: go install $H2SPEC"
	mkdir -p "$root/tests/build/go" "$root/tests/build/bin"
	if GOPATH="$root/tests/build/go" GOCACHE="$root/tests/build/go/cache" \
	    GOBIN="$root/tests/build/bin" GOFLAGS=-modcacherw \
	    timeout "$APT_TIMEOUT" go install "$H2SPEC"; then
		say "h2spec: $root/tests/build/bin/h2spec"
	else
		warn "could not build h2spec; the HTTP/2 tests will skip"
	fi
}

finish()
{
	[ "$with_h2spec" = 0 ] || h2spec
	exit 0
}

# True when dpkg has PKG fully installed (for every architecture it has).
installed()
{
	case $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) in
	*" ok installed")
		return 0 ;;
	esac
	return 1
}

# Prints the packages of the list that are not installed.
missing_of()
{
	out=
	for p in "$@"; do
		installed "$p" || out="$out $p"
	done
	printf '%s\n' "${out# }"
}

# True when apt knows a version of PKG it could install.
available()
{
	cand=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	[ -n "$cand" ] && [ "$cand" != "(none)" ]
}

# apt-get, non-interactive, bounded in time, waiting a while for the dpkg
# lock instead of failing at once when another apt is running.
aptget()
{
	set -- apt-get -qq -o Dpkg::Lock::Timeout=120 -o Dpkg::Use-Pty=0 "$@"
	if command -v timeout >/dev/null 2>&1; then
		set -- timeout "$APT_TIMEOUT" "$@"
	fi
	DEBIAN_FRONTEND=noninteractive "$@"
}

if [ "${1-}" = --cross ]; then
	PACKAGES=$CROSS_PACKAGES
elif [ $# -gt 0 ]; then
	PACKAGES="$*"
fi
# the suite's own packages bring Go: h2spec comes with them
with_h2spec=0
[ $# -gt 0 ] || with_h2spec=1

# Word splitting of the list is wanted from here on.
# shellcheck disable=SC2086
set -- $PACKAGES

if ! command -v dpkg-query >/dev/null 2>&1; then
	say "no dpkg-query, not Debian: install these by hand if tests skip: $*"
	finish
fi

missing=$(missing_of "$@")
if [ -z "$missing" ]; then
	say "all $# packages present"
	finish
fi

why=
if [ "${MRHTTPD_NO_INSTALL:-0}" != 0 ]; then
	why="MRHTTPD_NO_INSTALL is set"
elif [ "$(id -u)" != 0 ]; then
	why="not root"
elif ! command -v apt-get >/dev/null 2>&1; then
	why="no apt-get"
fi
if [ -n "$why" ]; then
	say "missing: $missing"
	say "not installing ($why); tests needing them will skip"
	finish
fi

say "installing: $missing"
# The package lists may be missing (fresh machine) or stale; if the update
# fails, the old lists may still do.
aptget update || warn "apt-get update failed; trying the lists we have"

# A package apt has never heard of would make the whole install fail, so
# leave such packages out with a warning.
want=
for p in $missing; do
	if available "$p"; then
		want="$want $p"
	else
		warn "package $p is not available from apt; skipping it"
	fi
done

# shellcheck disable=SC2086
if [ -n "$want" ] && ! aptget install -y --no-install-recommends $want; then
	# Find out which one broke, and keep the rest.
	for p in $want; do
		aptget install -y --no-install-recommends "$p" ||
		    warn "could not install $p"
	done
fi

# shellcheck disable=SC2086
left=$(missing_of $missing)
if [ -n "$left" ]; then
	warn "still missing: $left; tests needing them will skip"
else
	say "done"
fi
finish
