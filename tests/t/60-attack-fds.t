#!/usr/bin/perl
# Attack: running the server out of file descriptors.  The server runs
# under RLIMIT_NOFILE 256 (soft and hard); the attacker, from 127.0.0.1,
# opens about 600 connections that send nothing and holds them, opening
# again any the server closes.  Accept then fails with EMFILE, and the
# server closes its oldest idle connection to take the new one.  A normal
# client from 127.0.0.2 GETs a small file on a fresh connection every
# ~150 ms and must be answered within 1 s (x3 under a RUN_WRAPPER).  The
# server stays up, does not spin, and serves once the attacker is gone.

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

$t->done_testing();
