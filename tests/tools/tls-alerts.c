/*
 * tls-alerts.c - a TLS 1.2 client, on mbed TLS, that completes a handshake
 * and then sends warning alerts (user_canceled, which a receiver skips)
 * until it has sent N or the server closes.  For 71-tls-attack.t: a
 * flood of records that carry no data must not hold the server.
 *
 * usage: tls-alerts HOST PORT N
 * Prints "sent K" (K alerts went out before a send failed) and exits 0;
 * exits 1 when it cannot connect or the handshake fails.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/ssl.h>

int
main(int argc, char **argv)
{
	mbedtls_net_context fd;
	mbedtls_ssl_context ssl;
	mbedtls_ssl_config conf;
	mbedtls_entropy_context ent;
	mbedtls_ctr_drbg_context drbg;
	long n, k;
	int r;

	if (argc != 4) {
		fprintf(stderr, "usage: tls-alerts HOST PORT N\n");
		return 2;
	}
	n = atol(argv[3]);
	signal(SIGPIPE, SIG_IGN);
	mbedtls_net_init(&fd);
	mbedtls_ssl_init(&ssl);
	mbedtls_ssl_config_init(&conf);
	mbedtls_entropy_init(&ent);
	mbedtls_ctr_drbg_init(&drbg);
	if (mbedtls_ctr_drbg_seed(&drbg, mbedtls_entropy_func, &ent, NULL, 0) ||
	    mbedtls_ssl_config_defaults(&conf, MBEDTLS_SSL_IS_CLIENT,
	    MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT))
		return 1;
	mbedtls_ssl_conf_authmode(&conf, MBEDTLS_SSL_VERIFY_NONE);
	mbedtls_ssl_conf_rng(&conf, mbedtls_ctr_drbg_random, &drbg);
	if (mbedtls_ssl_setup(&ssl, &conf) ||
	    mbedtls_net_connect(&fd, argv[1], argv[2], MBEDTLS_NET_PROTO_TCP))
		return 1;
	mbedtls_ssl_set_bio(&ssl, &fd, mbedtls_net_send, mbedtls_net_recv, NULL);
	while ((r = mbedtls_ssl_handshake(&ssl)) != 0)
		if (r != MBEDTLS_ERR_SSL_WANT_READ && r != MBEDTLS_ERR_SSL_WANT_WRITE) {
			fprintf(stderr, "tls-alerts: handshake failed: -0x%x\n", -r);
			return 1;
		}
	for (k = 0; k < n; k++)
		if (mbedtls_ssl_send_alert_message(&ssl,
		    MBEDTLS_SSL_ALERT_LEVEL_WARNING,
		    MBEDTLS_SSL_ALERT_MSG_USER_CANCELED) != 0)
			break;
	printf("sent %ld\n", k);
	return 0;
}
