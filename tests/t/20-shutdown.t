#!/usr/bin/perl
# SIGTERM: the listener closes at once, a request in flight is finished,
# idle keep-alive connections do not hold the exit up, and the exit is 0.

use strict;
use warnings;

use IO::Select;
use Socket qw(SOL_SOCKET SO_RCVBUF);
use Time::HiRes qw(time sleep);
use Digest::MD5 qw(md5);
use Test::More;
use MrhttpdTest;

my $slack = $ENV{RUN_WRAPPER} ? 3 : 1;
my $size = 4 * 1024 * 1024;
my $data = substr(join('', map { md5($_) } 0 .. $size / 16), 0, $size);

# Idle keep-alive connections: the server still exits promptly.
{
	my $t = MrhttpdTest->new();
	$t->write_file('a.txt', "aaa\n");
	$t->run();
	my @idle = map { http_connect() } 1 .. 3;
	http_send($_, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n") for @idle;
	my $ok = grep { my $r = read_response($_); $r && $r->{status} == 200 } @idle;
	is($ok, 3, 'three keep-alive connections served');
	my $t0 = time;
	is($t->stop, 0, 'SIGTERM with idle connections: exit 0');
	my $el = time - $t0;
	ok($el < 6 * $slack, 'SIGTERM with idle connections: exits within the grace time')
		or diag("took $el s");
	ok(!http_connect(port => $t->port, may_fail => 1, timeout => 1),
		'after exit: nothing listens');
	$t->teardown;
}

# A response in flight is completed; the listener is gone meanwhile.
{
	my $t = MrhttpdTest->new();
	$t->write_file('big.bin', $data);
	$t->run();
	my $s = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $t->port,
		Proto => 'tcp', Sockopts => [[SOL_SOCKET, SO_RCVBUF, 16384]])
		or die "connect: $@";
	http_send($s, "GET /big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	my $got = '';
	sysread($s, $got, 4096);	# the reply has started
	kill 'TERM', $t->pid;
	sleep 0.3;
	ok(!http_connect(port => $t->port, may_fail => 1, timeout => 1),
		'SIGTERM: listener closed while a response is in flight');
	# Read the rest slowly for a second, then at full speed.
	my $t0 = time;
	my $deadline = $t0 + 10 * $slack;
	my $sel = IO::Select->new($s);
	while (time < $deadline && $sel->can_read($deadline - time)) {
		my $n = sysread($s, my $buf, 256 * 1024);
		last unless $n;
		$got .= $buf;
		sleep 0.05 if time - $t0 < 1;
	}
	my ($r) = parse_responses($got);
	is($r && $r->{status}, 200, 'in-flight response: 200');
	ok($r && $r->{body} eq $data, 'in-flight response: completed, byte-identical')
		or diag('got ' . length($got) . ' bytes');
	is($t->stop, 0, 'SIGTERM with a response in flight: exit 0');
	$t->teardown;
}

done_testing();
