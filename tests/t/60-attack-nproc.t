#!/usr/bin/perl
# Attack: no thread can be started.  The server runs as an unprivileged
# user (a uid of its own, so that no other process counts against it)
# with RLIMIT_NPROC 8: the main thread, the turn holder and six more.
# 40 slow clients from 127.0.0.1 each send a PUT's head and the start of
# its body, and stop; each makes the turn holder hand the turn on before
# it waits, until no thread can be started.  (Half a head is not enough:
# it waits parked, on no thread.)  Then the turn holder keeps the event
# loop and sheds: the slow client gets a 503, and a complete PUT (which
# would wait on the disk) gets a 503 too.  A normal client from 127.0.0.2 GETs
# a small file on a fresh connection every ~150 ms and must be answered
# within 1 s (x3 under a RUN_WRAPPER).  Every slow client ends with a
# 503, a 408 (REQUEST_TIMEOUT) or a close, the server stays within its
# threads and up, and serves (PUT too) once they are gone.

use strict;
use warnings;

use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;
use MrhttpdAttack;

plan skip_all => 'needs root: RLIMIT_NPROC binds only an unprivileged user'
	unless $> == 0;

my $RT = 4;			# REQUEST_TIMEOUT
my $SLOW = 40;
# qemu-user has a thread of its own
my $NPROC = 8 + ($ENV{RUN_WRAPPER} ? 2 : 0);

my $t = MrhttpdTest->new(conf => { REQUEST_TIMEOUT => $RT, KEEPALIVE_TIMEOUT => 30,
	PUT_PATH => '/up' });
$t->has('put');
$t->has_prog('setpriv', 'prlimit');
$t->write_file('probe.txt', "probe\n");
$t->write_file('up/.keep', '');

# A uid no process has (nobody may be running other tests' servers) and
# no user name, for the count of RLIMIT_NPROC to be ours alone.
my $uid = 40000 + $$ % 20000;
$uid++ while getpwuid($uid) || getgrgid($uid) || grep {
	(MrhttpdTest::slurp("$_/status") // '') =~ /^Uid:\s+\d+\s+$uid\b/m
} glob('/proc/[0-9]*');
chmod 0755, $t->testdir;
chown $uid, $uid, $t->htdocs . '/up';
{
	# the harness runs RUN_WRAPPER before the binary: the limit, then the user
	local $ENV{RUN_WRAPPER} = join(' ', 'prlimit', "--nproc=$NPROC:$NPROC",
		'setpriv', "--reuid=$uid", "--regid=$uid", '--clear-groups',
		$ENV{RUN_WRAPPER} // ());
	$t->run();
}
sleep 0.2;
my $port = $t->port;
my $pid = $t->pid;
my $status = MrhttpdTest::slurp("/proc/$pid/status") // '';
like($status, qr/^Uid:\s+$uid\s/m, "the server runs as uid $uid");
like(MrhttpdTest::slurp("/proc/$pid/limits") // '',
	qr/^Max processes\s+$NPROC\s+$NPROC\b/m, "with RLIMIT_NPROC $NPROC");
sub threads { return (MrhttpdTest::slurp("/proc/$pid/status") // '') =~ /^Threads:\s+(\d+)/m ? $1 : -1 }

sub put {
	my ($path, $body) = @_;
	my $s = connect_from('127.0.0.2', '127.0.0.1', $port) or return undef;
	my ($r) = parse_responses(http("PUT $path HTTP/1.1\r\nHost: x\r\n"
		. 'Content-Length: ' . length($body) . "\r\nConnection: close\r\n\r\n$body",
		sock => $s, timeout => 5));
	return $r;
}

my $p = probe_start(port => $port, addr => '127.0.0.2');
my $h = hold_start(port => $port, addrs => ['127.0.0.1'], n => $SLOW,
	send => "PUT /up/slow.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"
		. "\r\nthe start", rate => 200,
	max => $RT + 4 * slack());
ok(hold_ready($h, 10), "$SLOW slow clients sent part of a PUT");
sleep 0.5;
my $most = threads();
cmp_ok($most, '<=', $NPROC, "the server has $most threads, at most $NPROC");
my $t0 = time;
my $r = put('/up/a.txt', "while starved\n");
my $el = time - $t0;
is($r && $r->{status}, 503, 'no thread to spare: a PUT gets a 503');
like($r ? $r->{raw_head} : '', qr/\r\nRetry-After: \d+\r\n/i, '... with Retry-After');
cmp_ok($el, '<', latency_bound(), '... at once');
ok(!-e $t->htdocs . '/up/a.txt', '... and writes nothing');

# the slow ones end: shed at once, or after REQUEST_TIMEOUT with a 408
ok(defined wait_child($h->{pid}, $RT + 6 * slack()), 'the slow clients are done');
my $st = hold_stop($h);
my $res = probe_stop($p);
note('nproc: slow clients: ' . hold_summary($st));
probe_check($res, 'nproc');
my $s503 = $st->{status}{503} // 0;
cmp_ok($s503, '>=', 1, 'slow clients that found no thread got a 503');
cmp_ok($s503, '>=', $SLOW - $NPROC, '... all but those that had a thread');
is($st->{open} // -1, 0, 'every slow client was answered or closed');
my %other = %{ $st->{status} };
delete @other{503, 408};
is(join(' ', sort keys %other), '', '... with nothing but 503 or 408');

ok($t->alive, 'the server is still running');
cmp_ok(threads(), '<=', $NPROC, 'within its threads');
($r) = parse_responses(http_get('/probe.txt'));
is($r && $r->{status}, 200, 'and serves a GET afterwards');
$r = put('/up/b.txt', "later\n");
like($r && $r->{status}, qr/^20[14]$/, 'and a PUT');

$t->allow_log(qr/pthread_create/);
$t->done_testing();
