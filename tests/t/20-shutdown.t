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

# An upload in flight is finished too: its body was cut at the stop (the
# socket shut for reading), the client got a close, and the log a status
# of 0 (helper-70: a 300 KB PUT at 100 KB/s, SIGINT after a second)
SKIP: {
	my $t = MrhttpdTest->new(conf => { PUT_PATH => '/up' });
	skip 'built without PUT', 3 unless $t->feature('put');
	mkdir $t->htdocs . '/up';
	$t->run();
	my $n = 300 * 1024;
	my $s = http_connect();
	http_send($s, "PUT /up/mid.bin HTTP/1.1\r\nHost: x\r\nContent-Length: $n\r\n"
		. "Connection: close\r\n\r\n");
	my $sent = 0;
	my $t0 = time;
	while ($sent < $n) {
		http_send($s, 'u' x 10240) or last;
		$sent += 10240;
		kill 'INT', $t->pid if $sent == 102400;	# a second in
		sleep 0.1;
	}
	my ($r) = parse_responses(http('', sock => $s, timeout => 5));
	is($r && $r->{status}, 201, 'SIGINT during an upload: it is finished, 201');
	is(-s $t->htdocs . '/up/mid.bin', $n, '... the whole body stored');
	like($t->log // '', qr{"PUT /up/mid\.bin HTTP/1\.1" 201 }, '... and logged 201');
	$t->teardown;
}

# One whose client sends no more is cut when the drain ends, and has a
# moment to remove its temporary file (helper-73: it stayed, on a
# router's tmpfs, until a next start that may never come)
SKIP: {
	my $t = MrhttpdTest->new(conf => { PUT_PATH => '/up', REQUEST_TIMEOUT => 60 });
	skip 'built without PUT', 5 unless $t->feature('put');
	mkdir $t->htdocs . '/up';
	$t->run();
	my $s = http_connect();
	http_send($s, "PUT /up/stall.bin HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n"
		. "\r\n" . ('s' x 30000));
	my $temps = sub { opendir(my $d, $t->htdocs . '/up') or return 0;
		return scalar grep { /^\.mrhttpd-upload-/ } readdir $d };
	for (my $until = time + 5; !$temps->() && time < $until; sleep 0.05) {}
	ok($temps->(), 'a stalled upload has its temporary file');
	my $t0 = time;
	is($t->stop, 0, 'SIGTERM: exit 0');
	my $el = time - $t0;
	ok($el < 5 + 2 * $slack, sprintf('... after %.1f s, the drain', $el));
	is($temps->(), 0, '... and the temporary file is gone');
	ok(!-e $t->htdocs . '/up/stall.bin', '... nothing stored');
	$t->teardown;
}

done_testing();
