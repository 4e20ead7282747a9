#!/usr/bin/perl
# Attack: running the server out of file descriptors.  The server runs
# under RLIMIT_NOFILE 256 (soft and hard); the attacker, from 127.0.0.1,
# opens about 600 connections that send nothing and holds them, opening
# again any the server closes.  Accept then fails with EMFILE, and the
# server closes its oldest idle connection to take the new one.  A normal
# client from 127.0.0.2 GETs a small file on a fresh connection every
# ~150 ms and must be answered within 1 s (x3 under a RUN_WRAPPER).  The
# server stays up, does not spin, and serves once the attacker is gone.
# Then: stalled downloads whose threads had files cached.

use strict;
use warnings;

use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;
use MrhttpdAttack;

my $N = 600;
my $SECS = 5;

my $t = MrhttpdTest->new(conf => { KEEPALIVE_TIMEOUT => 30, REQUEST_TIMEOUT => 30 });
$t->write_file('probe.txt', "probe\n");
$t->run({ nofile => 256 });
sleep 0.2;
my $port = $t->port;
my $limits = MrhttpdTest::slurp('/proc/' . $t->pid . '/limits') // '';
like($limits, qr/^Max open files\s+256\s+256\b/m, 'the server runs with 256 descriptors');
cmp_ok(raise_nofile($N + 100), '>=', $N + 100, "we may open $N");

my $h = hold_start(port => $port, addrs => ['127.0.0.1'], n => $N,
	reconnect => 0, rate => 2000, max => $SECS + 20);
ok(hold_ready($h, 15), "the attacker opened $N silent connections");
my $p = probe_start(port => $port, addr => '127.0.0.2');
my $cpu0 = $t->cpu_time;
sleep $SECS;
my $cpu1 = $t->cpu_time;
my $res = probe_stop($p);
my $fds = () = glob('/proc/' . $t->pid . '/fd/*');
my $st = hold_stop($h);
note('fds: attacker: ' . hold_summary($st));
note("fds: the server had $fds descriptors open");

probe_check($res, 'fds');
cmp_ok($fds, '>=', 200, 'the attacker had taken (nearly) all the descriptors');
cmp_ok($st->{closed} // 0, '>=', 1, 'idle connections were closed to make room');
# 2 cores: a spinning accept loop would use about 1 s of CPU a second
ok(defined $cpu1 && $cpu1 - $cpu0 < 0.5 * $SECS, 'the server does not spin')
	or diag(sprintf 'used %.2f s of CPU in %d s', ($cpu1 // 0) - ($cpu0 // 0), $SECS);
ok($t->alive, 'the server is still running');
sleep 0.5;
my ($r) = parse_responses(http_get('/probe.txt'));
is($r && $r->{status}, 200, 'and serves a GET once the attacker is gone');
$t->allow_log(qr/Too many open files/);

# --- downloads that never finish, with files cached before them ----------
# Each attacking connection fetches four small files (cached by the thread
# serving it), then a 16 MiB file it never reads, which blocks that thread.
# With 1,024 descriptors, 300 such clients once left each blocked thread
# holding its four cached files, the server at its descriptor limit, and a
# normal client unanswered (seen on 3719ee3); a thread about to block now
# keeps only the file it sends.
{
	my $n = $ENV{RUN_WRAPPER} ? 100 : 300;
	my $u = MrhttpdTest->new(conf => { KEEPALIVE_TIMEOUT => 60,
		REQUEST_TIMEOUT => 60, MAX_CONNECTIONS => 1024,
		MAX_CONNECTIONS_PER_IP => 0 });
	$u->write_file("f$_.txt", "f$_\n") for 1 .. 8;
	$u->write_file('big.bin', 'x' x (16 << 20));
	$u->run({ nofile => 1024 });
	my @held;
	for my $i (1 .. $n) {
		my $s = http_connect(port => $u->port) or last;
		my $ok = grep { http_send($s, "GET /f$_.txt HTTP/1.1\r\nHost: x\r\n\r\n")
			&& read_response($s, timeout => 10) }
			map { ($i + $_) % 8 + 1 } 0 .. 3;
		last unless $ok == 4;
		http_send($s, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
		push @held, $s;
	}
	is(scalar @held, $n, "$n clients fetched four files, then stalled a download");
	sleep 1;
	my @fd = glob('/proc/' . $u->pid . '/fd/*');
	my $cached = grep { (readlink($_) // '') =~ /\.txt\z/ } @fd;
	note(scalar(@fd) . " descriptors open, $cached of them small files");
	my ($r) = parse_responses(http_get('/f1.txt', port => $u->port));
	is($r && $r->{status}, 200, '... a normal client is still served');
	cmp_ok($cached, '<=', 8, '... and the blocked threads hold no small files');
	close $_ for @held;
}

# --- slow uploads holding every descriptor ----------------------------------
# 48 PUTs from one address send their head and the start of the body,
# then stall, each holding its socket and its temporary file: under
# RLIMIT_NOFILE 64 that is every descriptor, with no connection parked
# and far from MAX_CONNECTIONS.  A newcomer then got 503 (no descriptor
# for its file) until the bodies timed out; now the wait for a client
# that began longest ago is cut when descriptors run out, as it is at
# MAX_CONNECTIONS.  (An attacker that reconnects as fast as it is cut
# still takes many of the descriptors freed before the newcomer does:
# with reconnects, 9 of 14 probes got 503, against 6 of 6 before; a
# share of descriptors per address would be the next step.)
SKIP: {
	my $u = MrhttpdTest->new(conf => { KEEPALIVE_TIMEOUT => 30,
		REQUEST_TIMEOUT => 30, PUT_PATH => '/up' });
	skip('no PUT in this build', 6)
		unless ($u->version_info->{features}{put} // '') eq 'yes';
	$u->write_file('probe.txt', "probe\n");
	$u->write_file('up/keep.txt', "keep\n");
	$u->run({ nofile => 64 });
	my $h = hold_start(port => $u->port, addrs => ['127.0.0.1'], n => 48,
		send => "PUT /up/slow.txt HTTP/1.1\r\nHost: x\r\n"
		. "Content-Length: 100\r\n\r\nthe start", reconnect => 0,
		rate => 500, max => $SECS + 15);
	ok(hold_ready($h, 10), 'slow uploads: 48 opened');
	sleep 1;
	my $p = probe_start(port => $u->port, addr => '127.0.0.2');
	sleep $SECS;
	my $res = probe_stop($p);
	my $fds = () = glob('/proc/' . $u->pid . '/fd/*');
	my $st = hold_stop($h);
	note('slow uploads: attacker: ' . hold_summary($st));
	probe_check($res, 'fds-slow-uploads');
	cmp_ok($fds, '>=', 56, "slow uploads: they held (nearly) every descriptor ($fds)");
	ok($u->alive, 'slow uploads: the server is still running');
	$u->stop();
	my @left = grep { !/keep\.txt$/ } glob($u->htdocs . '/up/* ' . $u->htdocs . '/up/.[!.]*');
	is("@left", '', 'slow uploads: no upload or temporary file left behind');
	$u->allow_log(qr/Too many open files/);
}

$t->done_testing();
