#!/usr/bin/perl
# Keep-alive and pipelining: HTTP/1.1 persistent by default, Connection:
# close honoured, HTTP/1.0 keep-alive on request, pipelined requests answered
# in order; curl reuses the connection; ab with and without -k fails nothing.

use strict;
use warnings;

use Test::More;
use Time::HiRes qw(sleep);
use MrhttpdTest;

my $t = MrhttpdTest->new();
$t->write_file('a.txt', "aaa\n");
$t->write_file('b.txt', "bbbbbb\n");
$t->write_file('c.txt', "c\n");
$t->run();

# HTTP/1.1: open by default, several requests on one connection.
{
	my $s = http_connect();
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r = read_response($s);
	is($r && $r->{status}, 200, '1.1: first request answered');
	is($r && $r->{body}, "aaa\n", '1.1: first body');
	unlike($r ? $r->{headers}{connection} // '' : 'close', qr/close/i,
		'1.1: no Connection: close');
	ok(!defined wait_closed($s, 0.5), '1.1: connection stays open');
	http_send($s, "GET /b.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	$r = read_response($s);
	is($r && $r->{body}, "bbbbbb\n", '1.1: second request on the same connection');
	http_send($s, "HEAD /c.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	$r = read_response($s, head => 1);
	is($r && $r->{status}, 200, '1.1: third request (HEAD) on the same connection');
	http_send($s, "GET /c.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	$r = read_response($s);
	is($r && $r->{body}, "c\n", '1.1: fourth request after a HEAD');
}

# HTTP/1.1 with Connection: close.
{
	my $s = http_connect();
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	my $r = read_response($s);
	is($r && $r->{status}, 200, '1.1 close: answered');
	like($r ? $r->{headers}{connection} // '' : '', qr/^close$/i,
		'1.1 close: Connection: close in the reply');
	ok(defined wait_closed($s, 3), '1.1 close: server closes the connection');
}

# HTTP/1.0: closes by default, keeps alive on request.
{
	my $s = http_connect();
	http_send($s, "GET /a.txt HTTP/1.0\r\n\r\n");
	my $r = read_response($s);
	is($r && $r->{body}, "aaa\n", '1.0: answered');
	like($r ? $r->{headers}{connection} // '' : '', qr/^close$/i,
		'1.0: Connection: close in the reply');
	ok(defined wait_closed($s, 3), '1.0: server closes the connection');

	$s = http_connect();
	http_send($s, "GET /a.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
	$r = read_response($s);
	is($r && $r->{body}, "aaa\n", '1.0 keep-alive: answered');
	like($r ? $r->{headers}{connection} // '' : '', qr/^keep-alive$/i,
		'1.0 keep-alive: Connection: keep-alive echoed');
	ok(!defined wait_closed($s, 0.5), '1.0 keep-alive: connection stays open');
	http_send($s, "GET /b.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
	$r = read_response($s);
	is($r && $r->{body}, "bbbbbb\n", '1.0 keep-alive: second request answered');
	http_send($s, "GET /c.txt HTTP/1.0\r\n\r\n");
	$r = read_response($s);
	is($r && $r->{body}, "c\n", '1.0 keep-alive: last request without keep-alive');
	ok(defined wait_closed($s, 3), '1.0 keep-alive: then closed');
}

# Pipelining: three requests in one write, answered in order.
{
	my $closed;
	my $raw = http(
		"GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET /b.txt HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET /c.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		closed => \$closed);
	my @r = parse_responses($raw);
	is(scalar @r, 3, 'pipelined: three responses');
	is(join('|', map { $_->{body} // '' } @r), "aaa\n|bbbbbb\n|c\n",
		'pipelined: bodies in request order');
	ok($closed, 'pipelined: closed after the Connection: close request');
}

# A long pipeline: more requests in one write than the head buffer holds.
{
	my @names = map { ('a', 'b', 'c')[$_ % 3] } 0 .. 499;
	my $req = join '', map { "GET /$_.txt HTTP/1.1\r\nHost: x\r\n\r\n" } @names;
	$req .= "GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	push @names, 'a';
	my $raw = http($req, timeout => 10);
	my @r = parse_responses($raw);
	is(scalar @r, scalar @names, '501 pipelined requests: all answered');
	my %want = (a => "aaa\n", b => "bbbbbb\n", c => "c\n");
	is(join('', map { $_->{body} // '?' } @r), join('', map { $want{$_} } @names),
		'501 pipelined requests: in order');
}

# Pipelining across reads: a request split in the middle, after a whole one.
{
	my $s = http_connect();
	http_send($s, "GET /c.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /b.t");
	my $r1 = read_response($s);
	select(undef, undef, undef, 0.3);
	http_send($s, "xt HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r2 = read_response($s);
	is($r1 && $r1->{body}, "c\n", 'split pipeline: first answered');
	is($r2 && $r2->{body}, "bbbbbb\n", 'split pipeline: rest of the second joined');
}

# curl reuses its connection for two URLs on the same server.
SKIP: {
	skip 'curl not installed', 2 unless MrhttpdTest::find_prog('curl');
	my $base = 'http://127.0.0.1:' . $t->port;
	my ($rc, $out) = run_cmd('curl', '-s', '--max-time', '10',
		'-o', '/dev/null', '-o', '/dev/null',
		'-w', '%{http_code} %{num_connects}\n', "$base/a.txt", "$base/b.txt");
	my @lines = split /\n/, $out;
	is(join(',', map { (split ' ')[0] } @lines), '200,200', 'curl: both 200');
	my $conns = 0;
	$conns += (split ' ')[1] // 0 for @lines;
	is($conns, 1, 'curl: one connection for two requests') or diag($out);
}

# ab: many concurrent clients, with HTTP/1.0 keep-alive and without.
SKIP: {
	skip 'ab not installed (apt-get install apache2-utils)', 6
		unless MrhttpdTest::find_prog('ab');
	my $n = scaled(100000);
	my $url = 'http://127.0.0.1:' . $t->port . '/a.txt';
	my $out = ab('-k', '-c', 100, '-n', $n, $url);
	like($out, qr/^Complete requests:\s+$n$/m, "ab -k -c 100 -n $n: all complete");
	like($out, qr/^Failed requests:\s+0$/m, 'ab -k: Failed requests: 0');
	like($out, qr/^Keep-Alive requests:\s+$n$/m, 'ab -k: every request kept alive');
	unlike($out, qr/^Non-2xx responses/m, 'ab -k: no non-2xx responses');

	$n = scaled(10000);
	$out = ab('-c', 50, '-n', $n, $url);
	like($out, qr/^Complete requests:\s+$n$/m, "ab -c 50 -n $n: all complete");
	like($out, qr/^Failed requests:\s+0$/m, 'ab without -k: Failed requests: 0');
}

# A request pipelined while the reply before it waits for room in the
# socket.  The connection is served again after a park that failed (its
# socket still in the epoll set), so the new request's event comes while
# its thread waits to write: it must be read after, not lost (it used to
# sit unread until KEEPALIVE_TIMEOUT, then the connection was reset).  A
# race between the event and the failed park: the old code lost about 1
# in 15 here, so 30 tries.
{
	my $p = MrhttpdTest->new(conf => { KEEPALIVE_TIMEOUT => 5 });
	$p->write_file('probe.txt', "probe\n");
	$p->write_file('big.bin', 'z' x 4000000);
	$p->run();
	my ($ok, $n) = (0, scaled(30));
	for (1 .. $n) {
		my $s = http_connect(port => $p->port);
		http_send($s, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
		sleep 0.2;
		http_send($s, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
		my $r = read_response($s, timeout => 10);
		sleep 0.2;	# the second reply fills the socket meanwhile
		http_send($s, "GET /probe.txt HTTP/1.1\r\nHost: x\r\n\r\n");
		my $r2 = read_response($s, timeout => 10);
		my $r3 = read_response($s, timeout => 8);
		$ok++ if $r && $r2 && $r3 && $r3->{body} eq "probe\n";
		close $s;
	}
	is($ok, $n, "a request pipelined while the reply before it waits: answered ($ok of $n)");
	$p->stop();
}

ok($t->alive, 'server still running');
$t->done_testing();

sub ab {
	my @cmd = ('ab', '-s', 30, @_);
	unshift @cmd, 'timeout', 170 if MrhttpdTest::find_prog('timeout');
	my ($rc, $out) = run_cmd(@cmd);
	diag("@cmd\n$out") unless $out =~ /^Failed requests:\s+0$/m;
	return $out;
}
