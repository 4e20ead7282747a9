#!/usr/bin/perl
# Logging: Combined Log Format per reply at LOG_LEVEL=4, whole lines under
# concurrency, each level logs exactly its classes, LOG_FILE instead of stdout.

use strict;
use warnings;

use Fcntl ();
use File::Path qw(make_path);
use POSIX ();
use Time::HiRes qw(sleep);
use Test::More;
use MrhttpdTest;

my $clf = clf_re();
my $info = qr{^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \[info\] (\S+) accepted "((?:[^"\\]|\\.)*)"$};
my $other = qr{^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \[(?:info|warn|error)\] \S.*$};

# wait_log($t, qr//, $count): the log once it has $count matching lines
# (or after 5 s).
sub wait_log {
	my ($t, $re, $count) = @_;
	my $log = '';
	for (1 .. 100) {
		$log = $t->log;
		my $n = () = $log =~ /$re/mg;
		last if $n >= ($count // 1);
		sleep 0.05;
	}
	return $log;
}

sub clf_lines { return grep { /$clf/ } split /\n/, $_[0] }

my $t = MrhttpdTest->new(conf => { LOG_LEVEL => 4 });
$t->write_file('a.txt', "0123456789\n");
$t->run();

SKIP: {
	skip 'curl not installed', 10 unless MrhttpdTest::find_prog('curl');
	my $base = 'http://127.0.0.1:' . $t->port;
	run_cmd('curl', '-s', '-o', '/dev/null', '-e', 'http://ref.example/page',
		'-A', 'TestAgent/1.0 (mrhttpd)', "$base/a.txt");
	my $log = wait_log($t, qr{"GET /a\.txt HTTP/1\.1" 200});
	my @l = grep { m{"GET /a\.txt } } clf_lines($log);
	is(scalar @l, 1, 'one CLF line for one 200') or diag($log);
	my @f = ($l[0] // '') =~ $clf;
	is($f[0], '127.0.0.1', 'CLF: client address');
	is($f[2], 'GET /a.txt HTTP/1.1', 'CLF: request line');
	is($f[3], 200, 'CLF: status');
	is($f[4], 11, 'CLF: body bytes');
	is($f[5], 'http://ref.example/page', 'CLF: referer');
	is($f[6], 'TestAgent/1.0 (mrhttpd)', 'CLF: user agent');
	like($log, qr{^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \[info\] 127\.0\.0\.1 accepted "GET /a\.txt HTTP/1\.1"$}m,
		'level 2 line for the accepted request');

	run_cmd('curl', '-s', '-o', '/dev/null', "$base/missing.txt");
	$log = wait_log($t, qr{"GET /missing\.txt HTTP/1\.1" 404});
	@l = grep { m{"GET /missing\.txt } } clf_lines($log);
	is(scalar @l, 1, 'one CLF line for a 404');
	like($l[0] // '', qr{ 404 \d+ "-" "curl/[^"]*"$}, 'CLF 404: no referer is "-"');
}

# A request without Host etc. is logged with what the parser refused.
{
	http("GET /a.txt HTTP/1.1\r\n\r\n");
	my $log = wait_log($t, qr{"GET /a\.txt HTTP/1\.1" 400});
	like($log, qr{^127\.0\.0\.1 - - \[[^\]]+\] "GET /a\.txt HTTP/1\.1" 400 \d+ "-" "-"$}m,
		'400 logged in CLF');
	http("GET /a\"b.txt HTTP/1.0\r\nUser-Agent: evil\"agent\r\n\r\n");
	$log = wait_log($t, qr{evil});
	my @bad = grep { /evil/ && !/$clf/ } split /\n/, $log;
	ok(!@bad, 'quotes from the client cannot break the CLF line') or diag(@bad);
	# refused with bare LF line ends: the request line alone, not the
	# fields after it
	http("GET /lf.txt HTTP/1.1\nHost: x\nAuthorization: Basic c2VjcmV0\n"
		. "Cookie: s=SECRET\nX: \x01\n\n");
	$log = wait_log($t, qr{/lf\.txt});
	like($log, qr{^127\.0\.0\.1 - - \[[^\]]+\] "GET /lf\.txt HTTP/1\.1" 400 \d+ "-" "-"$}m,
		'a head refused with LF line ends: its request line logged');
	unlike($log, qr{SECRET|c2VjcmV0}, '... and no field after it');
}

# Many concurrent clients: every line whole, one per reply.
SKIP: {
	skip 'ab not installed (apt-get install apache2-utils)', 4
		unless MrhttpdTest::find_prog('ab');
	my $before = () = clf_lines($t->log);
	my $n = scaled(5000);
	my @cmd = ('ab', '-s', 30, '-c', 50, '-n', $n,
		'http://127.0.0.1:' . $t->port . '/a.txt');
	unshift @cmd, 'timeout', 120 if MrhttpdTest::find_prog('timeout');
	my ($rc, $out) = run_cmd(@cmd);
	like($out, qr/^Failed requests:\s+0$/m, "ab -c 50 -n $n: no failures");
	my $log = wait_log($t, qr{"GET /a\.txt HTTP/1\.0" 200}, $n);
	my @lines = split /\n/, $log, -1;
	is(pop @lines, '', 'log ends with a newline');
	my @bad = grep { !/$clf/ && !/$info/ && !/$other/ } @lines;
	ok(!@bad, 'every log line is complete and well-formed')
		or diag(scalar(@bad) . " bad lines, e.g.\n" . join("\n", @bad[0 .. ($#bad < 4 ? $#bad : 4)]));
	my $got = () = clf_lines($log);
	cmp_ok($got - $before, '>=', $n, ">= $n new CLF lines");
}
$t->stop();

# The levels: 1 = rejections (the parser's, and the route's: a path that
# climbs out or does not decode, an unknown method, failed credentials, as
# upstream's "rejected requests"); 2 adds "accepted" (every request that
# parsed); 3 adds 4xx/5xx replies; 4 everything.  0 = nothing at all.
for my $level (0 .. 3) {
	my $tl = MrhttpdTest->new(conf => { LOG_LEVEL => $level,
		AUTH_HEADER => 'Basic dTpw', AUTH_METHODS => 2 });
	$tl->write_file('a.txt', "aaa\n");
	$tl->run();
	http_get('/a.txt');
	http_get('/missing.txt');
	http("GET /a.txt HTTP/1.1\r\n\r\n");	# 400 from the parser
	# refused by the route
	http("GET /../a.txt HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
	http("FOO /a.txt HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
	http_head('/a.txt');	# 401: HEAD needs credentials here
	$tl->stop();
	my $log = $tl->log;
	my @clf = clf_lines($log);
	my $accepted = grep { /$info/ } split /\n/, $log;
	my $s200 = grep { / 200 / } @clf;
	my $s404 = grep { / 404 / } @clf;
	my $s400 = grep { / 400 / } @clf;
	my $refused = grep { m{"(?:GET /\.\./a|FOO /a|HEAD /a)\S* HTTP/1\.[01]" (?:400|501|401) } } @clf;
	if ($level == 0) {
		is($log, '', 'LOG_LEVEL=0: nothing logged');
		is($tl->version_info->{features}{log}, 'no', 'LOG_LEVEL=0: log: no');
		next;
	}
	is($s400, 2, "LOG_LEVEL=$level: parser rejection and /../ logged");
	is($refused, 3, "LOG_LEVEL=$level: the route's refusals logged (400, 501, 401)")
		or diag($log);
	is($accepted, $level >= 2 ? 5 : 0,
		"LOG_LEVEL=$level: accepted requests " . ($level >= 2 ? '' : 'not ') . 'logged');
	is($s404, $level >= 3 ? 1 : 0,
		"LOG_LEVEL=$level: 404 " . ($level >= 3 ? '' : 'not ') . 'logged');
	is($s200, 0, "LOG_LEVEL=$level: 200 not logged");
	my @bad = grep { !/$clf/ && !/$info/ && !/$other/ } split /\n/, $log;
	ok(!@bad, "LOG_LEVEL=$level: nothing else in the log") or diag(@bad);
}

# LOG_FILE: a compile-time path, so a fixed one under tests/build.
my $dir = MrhttpdTest::fixed_dir('data-17-log');
my $file = "$dir/mrhttpd.log";
my $tf = MrhttpdTest->new(conf => { LOG_LEVEL => 4, LOG_FILE => $file });
$tf->has('log-file');
$tf->write_file('a.txt', "aaa\n");
$tf->run();
http_get('/a.txt');
my $log = wait_log($tf, qr{"GET /a\.txt HTTP/1\.0" 200});
like($log, qr{^127\.0\.0\.1 - - \[[^\]]+\] "GET /a\.txt HTTP/1\.0" 200 4 }m,
	'LOG_FILE: the line is in the file');
$tf->stop();
is((-s $tf->testdir . '/stdout.log') || 0, 0, 'LOG_FILE: nothing on stdout');

# The log on a pipe whose reader stops reading (procd's, a shell's): the
# server waited for it, and every client with it.  Now the lines that do
# not fit are lost, and counted once it reads again.
{
	my $tp = MrhttpdTest->new(conf => { LOG_LEVEL => 4 });
	$tp->write_file('a.txt', "aaa\n");
	my $fifo = $tp->testdir . '/log.fifo';
	unlink $fifo;
	POSIX::mkfifo($fifo, 0600) or die "mkfifo: $!";
	sysopen(my $rd, $fifo, Fcntl::O_RDONLY() | Fcntl::O_NONBLOCK())
		or die "open $fifo: $!";
	$tp->run({ stdout => $fifo });
	my $s = http_connect();
	my $n = 0;
	# about 200 bytes of log each: twice the pipe's 64 KiB
	for (1 .. 600) {
		http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
		my $r = read_response($s, timeout => 5);
		last unless $r && $r->{status} == 200;
		$n++;
	}
	is($n, 600, 'a log pipe nobody reads: 600 requests served');
	my $drain = sub {
		my $got = '';
		while (sysread($rd, my $buf, 65536)) { $got .= $buf }
		return $got;
	};
	my $got = $drain->();
	ok(length($got) > 0 && length($got) < 600 * 150,
		'... its lines in part: ' . length($got) . ' bytes');
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	read_response($s, timeout => 5);
	$got = '';
	for (1 .. 50) {
		$got .= $drain->();
		last if $got =~ /lost/;
		sleep 0.05;
	}
	like($got, qr/^\S+ \[warn\] \d+ log lines lost: the log did not take them in time$/m,
		'read again: a warning counts the lines lost');
	close $s;
	$tp->stop();
}

# LOG_FILE a FIFO whose reader stops reading, before and after SIGHUP's
# reopen (which has no /proc in a jail to make it non-blocking): opened
# with O_NONBLOCK, it never holds the server up; with no reader at all,
# the start fails at once instead of waiting for one
{
	my $ff = "$dir/log.fifo";
	my $tq = MrhttpdTest->new(conf => { LOG_LEVEL => 4, LOG_FILE => $ff });
	$tq->write_file('a.txt', "aaa\n");
	unlink $ff;
	POSIX::mkfifo($ff, 0600) or die "mkfifo: $!";
	my ($rc, $out) = run_cmd('timeout', '-k', '2', '10', MrhttpdTest::_wrapper(),
		$tq->binary, '-f', '-p', '1', '-r', $tq->htdocs);
	ok($rc != 0 && $rc != 124 && $out =~ /cannot open log file .*log\.fifo/,
		'LOG_FILE a FIFO nobody reads: the start fails at once, saying so') or diag("$rc: $out");
	sysopen(my $rd, $ff, Fcntl::O_RDONLY() | Fcntl::O_NONBLOCK()) or die "open $ff: $!";
	$tq->run();
	my $s = http_connect();
	my $n = 0;
	for my $i (1 .. 600) {
		kill 'HUP', $tq->pid if $i == 300;
		http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
		my $r = read_response($s, timeout => 5);
		last unless $r && $r->{status} == 200;
		$n++;
	}
	is($n, 600, 'LOG_FILE a FIFO nobody reads: 600 requests served, SIGHUP halfway');
	close $s;
	$tq->stop();
	close $rd;
	unlink $ff;
}

$t->done_testing();
