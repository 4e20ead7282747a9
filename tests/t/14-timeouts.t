#!/usr/bin/perl
# Timeouts: idle keep-alive connections are closed after KEEPALIVE_TIMEOUT;
# a head that does not arrive in REQUEST_TIMEOUT (even byte by byte) gets
# 408; a client that stops reading is dropped; the server keeps serving.

use strict;
use warnings;

use IO::Select;
use Socket qw(SOL_SOCKET SO_RCVBUF);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;

my $t = MrhttpdTest->new(conf => { KEEPALIVE_TIMEOUT => 2, REQUEST_TIMEOUT => 2 });
$t->write_file('a.txt', "aaa\n");
$t->write_file('big.bin', 'z' x (16 * 1024 * 1024));
$t->run();
# Under a wrapper (qemu) or the sanitizers everything is slower.
my $slack = $ENV{RUN_WRAPPER} ? 3 : 1;

# Idle after a reply: closed after about KEEPALIVE_TIMEOUT.
{
	my $s = http_connect();
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r = read_response($s);
	is($r && $r->{status}, 200, 'keep-alive: first reply');
	my $waited = wait_closed($s, 10 * $slack);
	ok(defined $waited && $waited >= 1.5 && $waited <= 6 * $slack,
		'keep-alive: idle connection closed after ~2 s')
		or diag('closed after ' . ($waited // 'never (10 s)'));
}

# Connected but silent: closed as well (quietly, or with a 408).
{
	my $s = http_connect();
	my $waited = wait_closed($s, 10 * $slack);
	ok(defined $waited && $waited >= 1.5 && $waited <= 6 * $slack,
		'silent connection closed after ~2 s')
		or diag('closed after ' . ($waited // 'never (10 s)'));
	my $buf = ${*$s}{mrhttpd_buf} // '';
	like($buf, qr{^(?:|HTTP/1\.[01] 408 .*)$}s,
		'silent connection: nothing, or a 408');
}

# A partial head: 408, then close.
{
	my $t0 = time;
	my $s = http_connect();
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n");
	my $r = read_response($s, timeout => 10 * $slack);
	my $el = time - $t0;
	is($r && $r->{status}, 408, 'partial head: 408');
	ok($el >= 1.5 && $el <= 6 * $slack, 'partial head: after ~2 s')
		or diag("after $el s");
	ok(defined wait_closed($s, 3), 'partial head: connection closed');
}

# A partial head after a complete request on the same connection.
{
	my $s = http_connect();
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /a.txt HTTP/1.1\r\n");
	my $r1 = read_response($s);
	my $r2 = read_response($s, timeout => 10 * $slack);
	is($r1 && $r1->{status}, 200, 'partial second head: first answered');
	is($r2 && $r2->{status}, 408, 'partial second head: 408');
}

# A head that comes in pieces within REQUEST_TIMEOUT is served, and the
# next head on the connection gets a REQUEST_TIMEOUT of its own: each of
# two spans 1.2 s of the 2, together 2.4.
{
	my $s = http_connect();
	for my $n (1, 2) {
		for my $piece ("GET /a.txt HT", "TP/1.1\r\nHost: x\r\n", "\r\n") {
			http_send($s, $piece);
			sleep 0.6 unless $piece eq "\r\n";
		}
		my $r = read_response($s, timeout => 5 * $slack);
		is($r && $r->{status}, 200, "head $n in three pieces over 1.2 s: 200");
	}
}

# One byte a second: the timeout covers the whole head, not each byte.
{
	my $req = "GET /a.txt HTTP/1.1\r\nHost: x\r\nUser-Agent: slowloris\r\n\r\n";
	my $s = http_connect();
	my $t0 = time;
	my $sent = 0;
	my $r;
	for my $byte (split //, $req) {
		last unless http_send($s, $byte);
		$sent++;
		my $sel = IO::Select->new($s);
		if ($sel->can_read(1)) {
			$r = read_response($s, timeout => 2);
			last;
		}
		last if time - $t0 > 10 * $slack;
	}
	my $el = time - $t0;
	is($r && $r->{status}, 408, 'dribbling client: 408');
	ok($el <= 5 * $slack, 'dribbling client: within ~2-5 s')
		or diag("after $el s and $sent bytes");
	ok(defined wait_closed($s, 3), 'dribbling client: connection closed');
}

# A client that stops reading: the stalled send is given up.
{
	my $s = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $t->port,
		Proto => 'tcp', Sockopts => [[SOL_SOCKET, SO_RCVBUF, 4096]])
		or die "connect: $@";
	http_send($s, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
	sleep(6 * $slack);		# well over REQUEST_TIMEOUT with no progress
	my $got = 0;
	my $eof = 0;
	my $deadline = time + 20 * $slack;
	my $sel = IO::Select->new($s);
	while (time < $deadline && $sel->can_read($deadline - time)) {
		my $n = sysread($s, my $buf, 1 << 20);
		if (!$n) {
			$eof = 1;
			last;
		}
		$got += $n;
	}
	ok($eof, 'stalled reader: connection closed by the server');
	ok($got < 16 * 1024 * 1024, 'stalled reader: the body was cut short')
		or diag("got $got bytes");
}

ok($t->alive, 'server still running');
my ($r) = parse_responses(http_get('/a.txt'));
is($r->{status}, 200, 'server serves normally afterwards');

# REQUEST_TIMEOUT shorter than KEEPALIVE_TIMEOUT: a head parked half-sent
# is still answered on time, not at the next sweep for idle connections.
{
	my $u = MrhttpdTest->new(conf => { KEEPALIVE_TIMEOUT => 30,
		REQUEST_TIMEOUT => 2 });
	$u->write_file('a.txt', "aaa\n");
	$u->run();
	my ($r) = parse_responses(http_get('/a.txt'));	# a sweep is planned
	my $t0 = time;
	my $s = http_connect();
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n");
	$r = read_response($s, timeout => 20 * $slack);
	my $el = time - $t0;
	is($r && $r->{status}, 408, 'REQUEST_TIMEOUT 2, KEEPALIVE_TIMEOUT 30: 408');
	ok($el >= 1.5 && $el <= 5 * $slack, '... after ~2 s') or diag("after $el s");

	# 40 of them time out at once, their clients still there: each is
	# answered and closed on the turn, none lingers on a thread of its own
	my @s = map { my $c = http_connect();
		http_send($c, "GET /a.txt HTTP/1.1\r\nHost: x\r\n"); $c } 1 .. 40;
	my $n408 = grep { my $x = read_response($_, timeout => 10 * $slack);
		$x && $x->{status} == 408 } @s;
	my $threads = (MrhttpdTest::slurp('/proc/' . $u->pid . '/status') // '')
		=~ /^Threads:\s+(\d+)/m ? $1 : -1;
	is($n408, 40, '40 half-sent heads: 40 times 408');
	cmp_ok($threads, '<=', 5, '... on no thread of their own')
		or diag("$threads threads");
	$u->stop();
}

$t->done_testing();
