#!/usr/bin/perl
# Listening addresses: all addresses (IPv4 and IPv6) without -a; -a ::1
# binds the IPv6 loopback only.

use strict;
use warnings;

use IO::Socket::IP;
use Test::More;
use MrhttpdTest;

my $has_v6 = IO::Socket::IP->new(LocalHost => '::1', LocalPort => 0,
	Proto => 'tcp', Listen => 1) ? 1 : 0;

my $t = MrhttpdTest->new();
$t->write_file('a.txt', "aaa\n");
$t->run({ addr => undef });

my ($r) = parse_responses(http_get('/a.txt', host => '127.0.0.1'));
is($r && $r->{body}, "aaa\n", 'all addresses: answers on 127.0.0.1');
SKIP: {
	skip 'no IPv6 loopback on this machine', 1 unless $has_v6;
	($r) = parse_responses(http_get('/a.txt', host => '::1'));
	is($r && $r->{body}, "aaa\n", 'all addresses: answers on [::1]');
}
$t->stop();

SKIP: {
	skip 'no IPv6 loopback on this machine', 3 unless $has_v6;
	my $t2 = MrhttpdTest->new();
	$t2->write_file('a.txt', "aaa\n");
	$t2->run({ addr => '::1' });
	($r) = parse_responses(http_get('/a.txt', host => '::1'));
	is($r && $r->{body}, "aaa\n", '-a ::1: answers on [::1]');
	ok(!http_connect(host => '127.0.0.1', may_fail => 1),
		'-a ::1: nothing on 127.0.0.1');
	SKIP: {
		skip 'curl not installed', 1 unless MrhttpdTest::find_prog('curl');
		my ($rc, $out) = run_cmd('curl', '-s', '--max-time', '10',
			'http://[::1]:' . $t2->port . '/a.txt');
		is($out, "aaa\n", '-a ::1: curl gets the file over IPv6');
	}
	my $log = '';
	for (1 .. 20) {
		$log = $t2->log;
		last if $log =~ /"GET \/a.txt/;
		select(undef, undef, undef, 0.1);
	}
	like($log, qr/^::1 - - \[/m, '-a ::1: the log names the IPv6 peer');
}

$t->done_testing();
