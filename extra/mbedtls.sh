#!/bin/sh
# mbedtls.sh - build mbed TLS for the target from Debian's source package.
#
# usage: extra/mbedtls.sh DIR     (make runs it: make mbedtls, or any TLS=1
#                                  build with a cross or musl compiler)
#
# Builds the static libraries libmbedtls.a, libmbedx509.a and
# libmbedcrypto.a with $CC and $AR (the target's compiler) into DIR/lib,
# and their headers into DIR/include, for MBEDTLS_DIR=DIR.
#
# The source is Debian's: "apt-get source mbedtls", once, into
# build/src/ (extra/debsrc.sh).  A firmware builder with an mbed TLS of their own
# sets MBEDTLS_DIR= to it and never runs this.  Libraries already in DIR
# are kept (remove DIR to build again); libmbedtls.a, which make looks
# for, is renamed into place last, so a build cut short leaves none.
#
# The configuration is Debian's with what a server needs: threads
# (THREADING_PTHREAD, as Debian's own build), and none of the client side,
# the protocols before TLS 1.2, DTLS, or the ciphers and key exchanges
# tls.c never offers, so a static binary carries less.  The libraries are
# built with -Os and one section per function, so the linker keeps only
# what mrhttpd calls, and with mrhttpd's 64-bit off_t and time_t: tls.c
# holds a ticket context, whose keys are dated, in its own memory.
set -eu

dest=${1:?usage: extra/mbedtls.sh DIR}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/.."
CC=${CC:-cc}
AR=${AR:-ar}
me=mbedtls
src=build/src/mbedtls
say() { printf '%s: %s\n' "$me" "$*" >&2; }
die() { say "$*"; exit 1; }

# --- the source: Debian's package, once ----------------------------------------
. extra/debsrc.sh
depslock "$self" "$dest" libmbedtls.a
command -v python3 >/dev/null 2>&1 || sh tests/install-deps.sh python3
debsrc mbedtls include/mbedtls/config.h

# --- configured and built for this compiler ------------------------------------
work=$dest.work.$$
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest/lib" "$dest/include"
cp -R "$src/." "$work"
cfg() { python3 "$work/scripts/config.py" -f "$work/include/mbedtls/config.h" "$@"; }
cfg set MBEDTLS_THREADING_C
cfg set MBEDTLS_THREADING_PTHREAD
for k in MBEDTLS_SSL_CLI_C MBEDTLS_SSL_PROTO_TLS1 MBEDTLS_SSL_PROTO_TLS1_1 \
    MBEDTLS_SSL_PROTO_DTLS MBEDTLS_SSL_DTLS_ANTI_REPLAY MBEDTLS_SSL_DTLS_HELLO_VERIFY \
    MBEDTLS_SSL_DTLS_CLIENT_PORT_REUSE MBEDTLS_SSL_DTLS_BADMAC_LIMIT \
    MBEDTLS_SSL_DTLS_CONNECTION_ID MBEDTLS_SSL_COOKIE_C MBEDTLS_SSL_CBC_RECORD_SPLITTING \
    MBEDTLS_SSL_RENEGOTIATION MBEDTLS_SSL_CONTEXT_SERIALIZATION \
    MBEDTLS_SSL_ENCRYPT_THEN_MAC MBEDTLS_SSL_TRUNCATED_HMAC \
    MBEDTLS_KEY_EXCHANGE_PSK_ENABLED MBEDTLS_KEY_EXCHANGE_DHE_PSK_ENABLED \
    MBEDTLS_KEY_EXCHANGE_ECDHE_PSK_ENABLED MBEDTLS_KEY_EXCHANGE_RSA_PSK_ENABLED \
    MBEDTLS_KEY_EXCHANGE_RSA_ENABLED MBEDTLS_KEY_EXCHANGE_DHE_RSA_ENABLED \
    MBEDTLS_KEY_EXCHANGE_ECDH_ECDSA_ENABLED MBEDTLS_KEY_EXCHANGE_ECDH_RSA_ENABLED \
    MBEDTLS_DES_C MBEDTLS_ARC4_C MBEDTLS_BLOWFISH_C MBEDTLS_CAMELLIA_C \
    MBEDTLS_ARIA_C MBEDTLS_XTEA_C MBEDTLS_RIPEMD160_C MBEDTLS_DHM_C \
    MBEDTLS_CCM_C MBEDTLS_CMAC_C MBEDTLS_NET_C MBEDTLS_TIMING_C \
    MBEDTLS_HAVEGE_C MBEDTLS_MD2_C MBEDTLS_MD4_C MBEDTLS_PADLOCK_C \
    MBEDTLS_SELF_TEST MBEDTLS_DEBUG_C MBEDTLS_ERROR_STRERROR_DUMMY \
    MBEDTLS_PKCS12_C MBEDTLS_PKCS5_C MBEDTLS_X509_CSR_PARSE_C \
    MBEDTLS_X509_CRL_PARSE_C MBEDTLS_X509_CREATE_C MBEDTLS_X509_CRT_WRITE_C \
    MBEDTLS_X509_CSR_WRITE_C MBEDTLS_PK_WRITE_C MBEDTLS_CERTS_C \
    MBEDTLS_PSA_CRYPTO_C MBEDTLS_PSA_CRYPTO_STORAGE_C MBEDTLS_PSA_ITS_FILE_C \
    MBEDTLS_ECP_DP_SECP192R1_ENABLED MBEDTLS_ECP_DP_SECP224R1_ENABLED \
    MBEDTLS_ECP_DP_SECP521R1_ENABLED MBEDTLS_ECP_DP_SECP192K1_ENABLED \
    MBEDTLS_ECP_DP_SECP224K1_ENABLED MBEDTLS_ECP_DP_SECP256K1_ENABLED \
    MBEDTLS_ECP_DP_BP256R1_ENABLED MBEDTLS_ECP_DP_BP384R1_ENABLED \
    MBEDTLS_ECP_DP_BP512R1_ENABLED MBEDTLS_ECP_DP_CURVE448_ENABLED; do
	cfg unset "$k"
done
say "building with $CC"
make -s -C "$work/library" CC="$CC" AR="$AR" \
    CFLAGS="-Os -ffunction-sections -fdata-sections -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64" \
    libmbedcrypto.a libmbedx509.a libmbedtls.a >&2 ||
	die "the build with $CC failed (log above)"
rm -rf "$dest/include/mbedtls"
cp -R "$work/include/mbedtls" "$dest/include/"
cp "$work/library/libmbedcrypto.a" "$work/library/libmbedx509.a" "$dest/lib/"
mv -f "$work/library/libmbedtls.a" "$dest/lib/libmbedtls.a"
rm -rf "$work"
say "built $dest/lib/libmbed{tls,x509,crypto}.a"
