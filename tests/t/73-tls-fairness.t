#!/usr/bin/perl
# 73-tls-fairness.t - handshakes against an RSA key take CPU; they must
# not take the event loop.  40 ClientHellos come at once, and a few ms
# later a keep-alive client's next request: it is answered while the
# handshakes wait, not after them.  A step of a handshake runs off the
# turn holder, on at most as many threads as there are CPUs, and the
# rest wait in line, parked.  Before, the turn holder ran the steps past
# that count itself, one RSA signature after another, and the request
# waited for 34-39 of the 40 first flights.

use strict;
use warnings;

use IO::Select;
use IO::Socket::IP;
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT);
use MrhttpdTLS;

my $pki = tls_pki() or plan skip_all => "no test certificates: $@";
my $t = MrhttpdTest->new(conf => { tls_conf($pki, 'rsa'),
	REQUEST_TIMEOUT => 60, MAX_CONNECTIONS => 200,
	MAX_CONNECTIONS_PER_IP => 0 });
$t->has('tls')->has_prog('openssl');
$t->write_file('probe.txt', "probe\n");
my $sport = tls_port();
$t->run('-s', $sport);
my $hello = client_hello($pki);
cmp_ok(length $hello, '>', 100, 'a ClientHello was recorded');

# a keep-alive client, parked between requests
my $p = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $t->{port},
	Proto => 'tcp', Timeout => 5) or die "connect: $@";
my $get = "GET /probe.txt HTTP/1.1\r\nHost: a\r\n\r\n";
my $first = '';
syswrite($p, $get);
sysread($p, $first, 4096, length $first) or last until $first =~ /\r\n\r\nprobe\n/;
like($first, qr{^HTTP/1\.1 200 }, 'a keep-alive client is served');

# 40 ClientHellos, and a few ms later, while the server is busy with them,
# the keep-alive client's second request.  A first flight is whole when
# its last message, ServerHelloDone (type 14, empty), ends what came.
my $n = 40;
my @c = map {
	IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $sport,
		Proto => 'tcp', Timeout => 5) or die "connect: $@"
} 1 .. $n;
syswrite($_, $hello) == length $hello or die "send: $!" for @c;
my (%buf, %done, $answer, $sent, $before, $during);
my $sel = IO::Select->new(@c);
my $t0 = time;
my $deadline = $t0 + 60;
while ($sel->count && time < $deadline) {
	if (!defined $sent && time >= $t0 + 0.005) {
		$sent = scalar keys %done;
		syswrite($p, $get);
		$buf{$p} = '';
		$sel->add($p);
	}
	for my $s ($sel->can_read(0.001)) {
		my $got = sysread($s, $buf{$s}, 65536, length($buf{$s} // ''));
		if (!$got) {
			$sel->remove($s);
			next;
		}
		if ($s == $p) {
			if ($buf{$s} =~ /\r\n\r\nprobe\n/) {
				$answer = $buf{$s};
				$during = scalar(keys %done) - $sent;
				$sel->remove($s);
			}
		} elsif (!$done{$s} && $buf{$s} =~ /\x0e\x00\x00\x00\z/) {
			$done{$s} = 1;
			$sel->remove($s);
		}
	}
}
like($answer // '', qr{^HTTP/1\.1 200 }, 'its second request is answered');
is(scalar keys %done, $n, "all $n handshakes sent their first flight");
note("first flights out before the request: " . ($sent // 'n/a')
	. ", while it waited: " . ($during // 'n/a'));
cmp_ok($during // $n, '<', $n / 4,
	'... and the request did not wait for them');
ok($t->alive, 'the server is up');
done_testing();
