#!/usr/bin/perl
# CGI limits and cleanup: CGI_TIMEOUT ends a `sleep 1000` program and its
# whole process group (504 before the head, a cut connection after it,
# SIGKILL for one that ignores SIGTERM); a client that hangs up gets its
# program killed; no zombies and no leaked descriptors after 10,000
# requests; CGI_MAX_BODY answers 413; CGI_MAX answers 503 with Retry-After;
# a client that stops reading gets its program killed at REQUEST_TIMEOUT.

use strict;
use warnings;

use IO::Select;
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_RCVBUF pack_sockaddr_in inet_aton);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;
use MrhttpdAttack qw(connect_from);
use MrhttpdCGI qw(cgi_dir script spew slurp wait_for zombies children
	pgrp_members exchange);

my $dir = cgi_dir('cgi-52');
my $bin = "$dir/cgi-bin";
my $run = "$dir/run";		# the programs write their pids here
mkdir $run;
# slack for timing under ASan or an emulator
my $slow = $ENV{RUN_WRAPPER} ? 3 : $ENV{MRHTTPD_SANITIZE} ? 1.5 : 1;

# Each program first records its pid, which is also its process group.
sub prog {
	my ($name, $body) = @_;
	script("$bin/$name", "#!/bin/sh\necho \$\$ > '$run/$name.pid'\n$body");
}
prog('sleep.sh', "sleep 1000\n");
# a whole reply of 70 KB, and an exit of its own
script("$bin/whole.sh", "#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\n'\n"
	. "head -c 71680 /dev/zero | tr '\\0' b\nexit 0\n");
prog('sleep-ignore.sh', "trap '' TERM\nsleep 1000\necho never\n");
prog('sleep-after-head.sh', "printf 'Content-Type: text/plain\\n\\npartial\\n'\nsleep 1000\n");
prog('sleep-bg.sh', "sleep 1000 &\nprintf 'Content-Type: text/plain\\n\\nbackground\\n'\n");
prog('detach.sh', "printf 'Content-Type: text/plain\\n\\ndetached\\n'\nexec >&- 2>&-\nsleep 1000\n");
prog('loop.sh', "printf 'Content-Type: text/plain\\n\\n'\n"
	. "while :; do echo 'tick tick tick tick tick tick tick tick'; sleep 0.05; done\n");
prog('wait-body.sh', "cat > /dev/null\nprintf 'Content-Type: text/plain\\n\\nread it all\\n'\n");
prog('count.sh', "n=\$(wc -c)\nprintf 'Content-Type: text/plain\\n\\nread %s bytes\\n' \$n\n");
prog('slow.sh', "sleep 1.5\nprintf 'Content-Type: text/plain\\n\\nslow done\\n'\n");
prog('flood-out.sh', "printf 'Content-Type: text/plain\\n\\n'\nl=\$(printf '%01000d' 0)\n"
	. "while :; do echo \$l || exit; done\n");
# for the server's stop: one that dies of SIGTERM, one that ignores it
script("$bin/stop-plain.sh", "#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\n'\nexec sleep 41\n");
script("$bin/stop-stubborn.sh", "#!/bin/sh\ntrap '' TERM INT HUP PIPE\n"
	. "printf 'Content-Type: text/plain\\n\\n'\nsleep 42\n");
prog('detach-kids.sh', "printf 'Content-Type: text/plain\\n\\nkids\\n'\nexec >&- 2>&-\n"
	. "(trap '' TERM; exec sleep 1000) &\nexec sleep 1000\n");
prog('late.sh', "sleep 2\nprintf 'Content-Type: text/plain\\n\\nfirst %s\\n' \$(head -c 66000 | wc -c)\n"
	. "printf 'rest %s\\n' \$(wc -c)\n");
prog('linger.sh', "printf 'Content-Type: text/plain\\n\\nlinger\\n'\nexec >&- 2>&-\nsleep 4\n");
# output over, work going on that reports on stderr (an "apply settings"
# script); then a second program the same, and a third that writes more
# to stderr than a pipe holds
prog('late-stderr.sh', "printf 'Content-Type: text/plain\\n\\nlate\\n'\nexec >&-\n"
	. "sleep 0.5\necho 'late line' >&2\necho done > '$run/late-stderr.done'\n");
prog('late-flood.sh', "printf 'Content-Type: text/plain\\n\\nflood\\n'\nexec >&-\n"
	. "sleep 0.3\nl=\$(printf '%0100d' 0 | tr 0 x)\ni=0\n"
	. "while [ \$i -lt 2000 ]; do echo \$l >&2; i=\$((i + 1)); done\n"
	. "echo done > '$run/late-flood.done'\n");
# and one whose output ended, left to the reaper, with a child that
# ignores SIGTERM
script("$bin/stop-orphan.sh", "#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\nbye\\n'\n"
	. "exec >&- 2>&-\n(trap '' TERM; exec sleep 44) &\nexec sleep 43\n");
script("$bin/order.sh", "#!/bin/sh\necho \"\$QUERY_STRING\" >> '$run/order'\n"
	. "printf 'Content-Type: text/plain\\n\\nok\\n'\n");
script("$bin/quick.sh", "#!/bin/sh\nprintf 'Content-Type: text/plain\\nContent-Length: 3\\n\\nok\\n'\n");

sub pid_of {
	my ($name) = @_;
	my $p;
	wait_for(sub { ($p) = (slurp("$run/$name.pid") // '') =~ /^(\d+)/; $p }, 5 * $slow);
	return $p;
}

# gone(PGID, SECONDS): true once no live process is left in the group.
sub gone {
	my ($pgid, $secs) = @_;
	return wait_for(sub { !pgrp_members($pgid) }, $secs);
}

# ps_sleepers(PGID): `ps` lines of "sleep 1000" in that process group.
sub ps_sleepers {
	my ($pgid) = @_;
	my (undef, $out) = run_cmd('ps', '-eo', 'pid=,pgid=,stat=,args=');
	return grep { /^\s*\d+\s+(\d+)\s+(\S+)\s+sleep 1000\s*$/ && $1 == $pgid && $2 !~ /^Z/ }
		split /\n/, $out;
}

# other_address(PORT, WORK): quick.sh asked from 127.0.0.2, WORK called
# while its answer comes (5 s at most); returns (the answer, its seconds)
sub other_address {
	my ($port, $work) = @_;
	my $v = connect_from('127.0.0.2', '127.0.0.1', $port)
		or die "connect: $!";
	http_send($v, "GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	$v->blocking(0);
	my ($resp, $t0) = ('', time);
	while (time < $t0 + 5 * $slow) {
		$work->();
		my $n = sysread($v, my $b, 4096);
		last if defined $n && $n == 0;
		$resp .= $b if $n;
	}
	close $v;
	return ($resp, time - $t0);
}

sub send_req {
	my ($raw) = @_;
	my $s = http_connect();
	http_send($s, $raw);
	return $s;
}

my $t = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin,
	CGI_TIMEOUT => 2, CGI_MAX_BODY => 100000, REQUEST_TIMEOUT => 5 });
$t->has('cgi');
$t->has_prog('ps');
$t->allow_log(qr/cgi \S+: /);
$t->run();
my $pid = $t->pid;

# --- CGI_TIMEOUT=2: five at once ---------------------------------------------------
my $t0 = time;
my %sock = map { $_ => send_req("GET /cgi-bin/$_ HTTP/1.1\r\nHost: x\r\n\r\n") }
	qw(sleep.sh sleep-ignore.sh sleep-after-head.sh sleep-bg.sh);
# and a client that stalls in the middle of its request body
$sock{'wait-body.sh'} = send_req("POST /cgi-bin/wait-body.sh HTTP/1.1\r\nHost: x\r\n"
	. "Content-Length: 50000\r\n\r\n" . ('b' x 1000));
my %pg = map { $_ => pid_of($_) } keys %sock;
ok(!grep({ !$_ } values %pg), 'the five programs started') or diag(explain \%pg);
my @sleepers = ps_sleepers($pg{'sleep.sh'});
is(scalar @sleepers, 1, 'sleep.sh: ps shows its `sleep 1000` in its process group')
	or diag(`ps -eo pid,pgid,stat,args`);

# read them in the order they should end: the four at CGI_TIMEOUT, then
# the one that needs SIGKILL a second later (a reply read after it would
# seem to come at 3 s, whenever it came)
my %got = map { $_ => exchange(sock => $sock{$_}, head => '', timeout => 10 * $slow) }
	qw(sleep.sh sleep-after-head.sh sleep-bg.sh wait-body.sh sleep-ignore.sh);
my $r = $got{'sleep.sh'};
is($r->{status}, 504, 'sleep 1000 past CGI_TIMEOUT=2: 504');
my $after = $r->{start} + ($r->{head_at} // 99) - $t0;
ok($after >= 1.8 && $after < 4 * $slow, sprintf('... after about 2 s (%.2f s)', $after));
ok(gone($pg{'sleep.sh'}, 3 * $slow), '... and its process group is gone');
is(scalar(ps_sleepers($pg{'sleep.sh'})), 0, '... ps shows no `sleep 1000` with its pgid');

$r = $got{'sleep-ignore.sh'};
is($r->{status}, 504, 'a program that ignores SIGTERM: 504 too');
$after = $r->{start} + ($r->{head_at} // 99) - $t0;
ok($after >= 1.8 && $after < 5 * $slow, sprintf('... after %.2f s (SIGKILL a second after SIGTERM)', $after));
ok(gone($pg{'sleep-ignore.sh'}, 3 * $slow), '... its process group is gone (SIGKILL)');
is(scalar(ps_sleepers($pg{'sleep-ignore.sh'})), 0, '... no `sleep 1000` left');

$r = $got{'sleep-after-head.sh'};
is($r->{status}, 200, 'a program that hangs after its head: the 200 was sent');
is($r->{body}, "partial\n", '... with what it wrote');
ok($r->{closed} && !$r->{complete}, '... then the connection is cut, without the last chunk');
ok(gone($pg{'sleep-after-head.sh'}, 3 * $slow), '... and its process group is gone');

$r = $got{'sleep-bg.sh'};
is($r->{body}, "background\n", 'a program that left `sleep 1000 &` holding its stdout: its body');
ok(gone($pg{'sleep-bg.sh'}, 3 * $slow), '... the background sleep is killed at the timeout');
is(scalar(ps_sleepers($pg{'sleep-bg.sh'})), 0, '... no `sleep 1000` left');
$r = $got{'wait-body.sh'};
is($r->{status}, 504, 'a client that stalls in its body: 504');
ok(gone($pg{'wait-body.sh'}, 3 * $slow), '... the program is gone');
$after = $r->{start} + ($r->{head_at} // 99) - $t0;
ok($after >= 1.8 && $after < 4 * $slow, sprintf('... at CGI_TIMEOUT, about 2 s (%.2f s)', $after));
ok(time - $t0 < 8 * $slow, sprintf('the timeouts ran side by side (%.1f s)', time - $t0));
for my $n (qw(sleep.sh sleep-ignore.sh sleep-after-head.sh)) {
	like($t->log, qr/^\S+ \[warn\] cgi \Q$n\E: timed out after 2 s$/m, "$n: the timeout is logged");
}
is(zombies($pid), 0, 'no zombies after the timeouts');

# A program that closes its stdout and keeps running: the response ends
# at the end of its output (RFC 3875 6: the response is what it wrote).
{
	my $s = send_req("GET /cgi-bin/detach.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	$r = exchange(sock => $s, head => '', timeout => 10 * $slow);
	is($r->{body}, "detached\n", 'a program that closes stdout and goes on: its body');
	my $pg = pid_of('detach.sh');
	ok($r->{complete} && $r->{done_at} < $slow, sprintf('... the response is complete at once (%.2f s)',
		$r->{done_at}));
	# and the connection is not held for it: the next request on it is
	# answered while the program runs on
	http_send($s, "GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r2 = read_response($s, timeout => 10 * $slow);
	ok($r2 && $r2->{body} eq "ok\n" && pgrp_members($pg),
		'... the next request on the connection is answered while it runs on');
	close $s;
	# a close-delimited reply (HTTP/1.0) ends with the output too
	unlink "$run/detach.sh.pid";
	$r = exchange(head => "GET /cgi-bin/detach.sh HTTP/1.0\r\n\r\n", timeout => 10 * $slow);
	my $pg2 = pid_of('detach.sh');
	ok($r->{closed} && $r->{body} eq "detached\n" && pgrp_members($pg2),
		'HTTP/1.0: the connection closes at the end of the output, the program running on');
	# one whose child ignores SIGTERM: the group gets SIGKILL when the
	# program has gone, as for a program still answering
	$r = exchange(head => "GET /cgi-bin/detach-kids.sh HTTP/1.0\r\n\r\n", timeout => 10 * $slow);
	my $pg3 = pid_of('detach-kids.sh');
	ok($r->{closed} && $r->{body} eq "kids\n" && pgrp_members($pg3) == 2,
		'a program and a child that ignores SIGTERM run on past the output');
	# still bounded by CGI_TIMEOUT, and reaped
	ok(gone($pg, 5 * $slow) && gone($pg2, 5 * $slow), '... both end at CGI_TIMEOUT');
	ok(gone($pg3, 6 * $slow), '... and so does the child that ignores SIGTERM (SIGKILL to the group)')
		or diag(explain [pgrp_members($pg3)]);
	ok(wait_for(sub { zombies($pid) == 0 }, 3 * $slow), '... reaped: no zombie left');
	like($t->log, qr/^\S+ \[warn\] cgi detach\.sh: still running after 2 s, killed$/m,
		'... and the kill is logged');
}

# A program that runs on past its output and writes to stderr: its stderr
# was closed with its stdout, so that write killed it (SIGPIPE) and the
# work it was doing was lost.  Now the reaper reads it for the log.
{
	$r = exchange(head => "GET /cgi-bin/late-stderr.sh HTTP/1.0\r\n\r\n", timeout => 10 * $slow);
	is($r->{body}, "late\n", 'a program whose output ended and runs on: its body');
	ok(wait_for(sub { -e "$run/late-stderr.done" }, 3 * $slow),
		'... it writes to stderr afterwards and is not killed for it (its work is done)');
	ok(wait_for(sub { $t->log =~ /^\S+ \[warn\] cgi late-stderr\.sh: late line$/m }, 3 * $slow),
		'... and the line it wrote is in the log') or diag($t->log);
	$r = exchange(head => "GET /cgi-bin/late-flood.sh HTTP/1.0\r\n\r\n", timeout => 10 * $slow);
	ok($r->{body} eq "flood\n" && wait_for(sub { -e "$run/late-flood.done" }, 3 * $slow),
		'202,000 bytes to stderr after the output: read, the program not blocked or killed');
	# read at most 32 lines a tick (20 ms) for the log: the rest of what
	# a read brought is counted instead, and the program waits meanwhile
	my ($logged, $counted) = (0, 0);
	ok(wait_for(sub {
		my $log = $t->log;
		$logged = () = $log =~ /cgi late-flood\.sh: x{100}$/mg;
		$counted = 0;
		$counted += $1 while $log =~ /cgi late-flood\.sh: (\d+) more lines on stderr not logged$/mg;
		$logged + $counted == 2000 }, 5 * $slow),
		"... each of its 2,000 lines logged ($logged) or counted as not logged ($counted)")
		or diag(join "\n", grep { /late-flood/ && !/x{100}$/ } split /\n/, $t->log);
}

# --- CGI_MAX_BODY=100000 ------------------------------------------------------------------
{
	unlink "$run/count.sh.pid";
	$r = exchange(head => "POST /cgi-bin/count.sh HTTP/1.1\r\nHost: x\r\nContent-Length: 100001\r\n"
		. "Connection: close\r\n\r\n", size => 100001);
	is($r->{status}, 413, 'CGI_MAX_BODY: a Content-Length one byte over: 413');
	ok(!-e "$run/count.sh.pid", '... and the program never ran');
	$r = exchange(head => "POST /cgi-bin/count.sh HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n"
		. "Connection: close\r\n\r\n", size => 100000);
	is($r->{status}, 200, 'CGI_MAX_BODY: exactly the limit: 200');
	like($r->{body}, qr/read 100000 bytes/, '... all of it read');
	$r = exchange(head => "POST /cgi-bin/count.sh HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
		. "Connection: close\r\n\r\n", size => 90000, chunk => 10000);
	is($r->{status}, 200, 'CGI_MAX_BODY: a chunked body under the limit: 200');
	like($r->{body}, qr/read 90000 bytes/, '... all of it read');
	$r = exchange(head => "POST /cgi-bin/count.sh HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
		. "Connection: close\r\n\r\n", size => 300000, chunk => 10000);
	{
		is($r->{status}, 413, 'CGI_MAX_BODY: a chunked body over the limit: 413');
		unlike($r->{body}, qr/read \d+ bytes/, '... the program does not answer for a cut body');
	}
}

# --- no zombies, no leaked descriptors, after 10,000 requests ----------------------------
SKIP: {
	skip "'ab' is not installed (apt-get install apache2-utils)", 5
		unless MrhttpdTest::find_prog('ab');
	my $n = scaled(10000);
	my @fd0 = glob "/proc/$pid/fd/*";
	my $url = 'http://127.0.0.1:' . $t->port . '/cgi-bin/quick.sh';
	my ($rc, $out) = run_cmd('ab', '-q', '-c', 10, '-n', $n, '-s', 30, $url);
	my ($failed) = $out =~ /^Failed requests:\s+(\d+)/m;
	my ($done) = $out =~ /^Complete requests:\s+(\d+)/m;
	my ($non2xx) = $out =~ /^Non-2xx responses:\s+(\d+)/m;
	ok($rc == 0 && ($done // 0) == $n && defined $failed && $failed == 0 && !$non2xx,
		"ab -c 10 -n $n on a CGI: 0 failed") or diag($out);
	ok(wait_for(sub { !children($pid) }, 3), "after $n CGI requests: no child left")
		or diag(explain [children($pid)]);
	is(zombies($pid), 0, "after $n CGI requests: no zombies");
	my @fd1 = glob "/proc/$pid/fd/*";
	ok(wait_for(sub { @fd1 = glob "/proc/$pid/fd/*"; @fd1 <= @fd0 }, 3),
		sprintf('no descriptors leaked (%d before, %d after)', scalar @fd0, scalar @fd1));
	my (undef, $ps) = run_cmd('ps', '--ppid', $pid, '-o', 'pid=,stat=,args=');
	unlike($ps, qr/\S/, 'ps --ppid: nothing');
}
$t->stop;

# --- a client that hangs up (CGI_TIMEOUT 60, CGI_MAX=2) -------------------------
my $tm = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin, CGI_MAX => 2 });
$tm->allow_log(qr/cgi \S+: /);
$tm->run();
{
	my $s = send_req("GET /cgi-bin/loop.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	my $pg = pid_of('loop.sh');
	my $buf = '';
	my $sel = IO::Select->new($s);
	while (length $buf < 300 && $sel->can_read(3)) {
		sysread($s, $buf, 4096, length $buf) or last;
	}
	like($buf, qr/^HTTP\/1\.1 200 .*tick tick/s, 'a looping program streams its output');
	ok(pgrp_members($pg) > 0, '... and is running');
	close $s;
	my $t1 = time;
	ok(gone($pg, 2 * $slow), sprintf('client closed mid-response: the program is gone (%.2f s)', time - $t1));
	ok(wait_for(sub { zombies($tm->pid) == 0 }, 2), '... reaped, no zombie');
}
{
	# hung up before the program wrote a byte
	unlink "$run/sleep.sh.pid";
	my $s = send_req("GET /cgi-bin/sleep.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	my $pg = pid_of('sleep.sh');
	close $s;
	my $t1 = time;
	ok(gone($pg, 2 * $slow), sprintf('client closed before any output: the program is gone (%.2f s)',
		time - $t1));
	is(scalar(ps_sleepers($pg)), 0, '... no `sleep 1000` left');
	# no status reached the client, but the log has the one the server
	# was at: the program had not answered, a 500
	my $line;
	wait_for(sub { ($line) = $tm->log =~ m{^(.*"GET /cgi-bin/sleep\.sh HTTP/1\.1" \d+ .*)$}m }, 3 * $slow);
	like($line // '', qr{" 500 }, '... its access log line says 500, not 0') or diag($tm->log);
}
{
	# hung up in the middle of its request body
	unlink "$run/wait-body.sh.pid";
	my $s = send_req("POST /cgi-bin/wait-body.sh HTTP/1.1\r\nHost: x\r\nContent-Length: 50000\r\n\r\n"
		. ('b' x 1000));
	my $pg = pid_of('wait-body.sh');
	close $s;
	ok(gone($pg, 2 * $slow), 'client closed in the middle of its body: the program is gone');
}

# --- CGI_MAX=2: the third waits for a place, 2 s at most, then 503 ---------------
unlink glob "$run/*.pid";
# the programs killed above have been reaped and their slots given back
ok(wait_for(sub { !children($tm->pid) }, 3 * $slow), 'CGI_MAX=2: nothing running to begin with');
sleep 0.2;
my @slow = map { send_req("GET /cgi-bin/slow.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n") } 1 .. 2;
ok(wait_for(sub { my @p = grep { $_->[2] =~ /slow\.sh/ } children($tm->pid); @p >= 2 }, 3 * $slow),
	'CGI_MAX=2: two slow programs running');
# it got 503 at once; now it waits for the first place given back (slow.sh
# sleeps 1.5 s), then runs its own 1.5 s
$r = exchange(head => "GET /cgi-bin/slow.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	timeout => 10 * $slow);
is($r->{status}, 200, 'CGI_MAX=2: a third at the same time waits for a place: 200');
ok($r->{done_at} > 2.5, sprintf('... after one of the two was done (%.2f s)', $r->{done_at}));
my @ok = map { exchange(sock => $_, head => '', timeout => 10 * $slow) } @slow;
is(join(',', map { $_->{status} } @ok), '200,200', 'CGI_MAX=2: the two running ones answer 200');
# a slot is free once its program is reaped, a moment after its reply
# is complete: allow that moment
{
	my $st = 0;
	my $until = time + 2 * $slow;
	while (time < $until) {
		$st = exchange(head => "GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")->{status};
		last if $st == 200;
		sleep 0.05;
	}
	is($st, 200, 'CGI_MAX=2: once they are done, the next one runs');
}
# a hung-up client frees its slot too
{
	my @s = map { send_req("GET /cgi-bin/sleep.sh HTTP/1.1\r\nHost: x\r\n\r\n") } 1 .. 2;
	wait_for(sub { my @p = children($tm->pid); @p >= 2 }, 3 * $slow);
	# no place comes free within CGI_PLACE_WAIT_MS: 503
	my $r = exchange(head => "GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n", timeout => 10 * $slow);
	is($r->{status}, 503, 'CGI_MAX=2, both places held: a third gets 503');
	like($r->{headers}{'retry-after'} // '', qr/^\d+$/, '... with Retry-After');
	ok($r->{done_at} > 1.9 && $r->{done_at} < 2 + $slow,
		sprintf('... after waiting 2 s for a place (%.2f s)', $r->{done_at}));
	close $_ for @s;
	ok(wait_for(sub { exchange(head => "GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n")->{status} == 200 }, 3 * $slow),
		'CGI_MAX=2: slots of killed programs are given back');
}
ok(wait_for(sub { !children($tm->pid) }, 3 * $slow), 'CGI_MAX=2: no child left');
# a program that runs on past its output keeps its place until it ends
{
	sleep 0.2;	# the last one reaped has given its place back
	my @r = map { exchange(head => "GET /cgi-bin/linger.sh HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n", timeout => 5 * $slow) } 1 .. 2;
	is(join(',', map { $_->{body} // '' } @r), "linger\n,linger\n",
		'CGI_MAX=2: two programs that run on past their output have answered');
	is(exchange(head => "GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n", timeout => 5 * $slow)->{status}, 503,
		'... and still hold their places: 503');
	ok(wait_for(sub { exchange(head => "GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n")->{status} == 200 }, 5 * $slow),
		'... given back once they end');
}
ok(wait_for(sub { !children($tm->pid) }, 5 * $slow), '... no child left');

# --- CGI_MAX=2: bodies that never come hold no place against a newcomer -------------
# Two POSTs to a program that reads its input send their head and one
# byte of the body, then stall: each held its place until REQUEST_TIMEOUT
# or CGI_TIMEOUT, and everyone else got 503 (one address could take every
# place that way).  Now the wait for a body that moved longest ago (and
# at least a second ago) is cut for the newcomer, as a wait for a client
# is at MAX_CONNECTIONS: that program is ended, its connection closed,
# and the newcomer runs.
{
	sleep 0.2;
	my @b = map { my $s = send_req("POST /cgi-bin/wait-body.sh HTTP/1.1\r\n"
		. "Host: x\r\nContent-Length: 100\r\n\r\nx"); sleep 0.2; $s } 1 .. 2;
	ok(wait_for(sub { my @p = grep { $_->[2] =~ /wait-body/ } children($tm->pid);
		@p >= 2 }, 3 * $slow), 'CGI_MAX=2: two programs wait for their bodies');
	sleep 1.2;	# a program a second old (CGI_CUT_AGE_MS) may be cut
	my $r = exchange(head => "GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n", timeout => 5 * $slow);
	is($r->{status}, 200, sprintf('... a third program runs (%.2f s)',
		$r->{done_at} // -1));
	# the one cut is the older: its connection is closed, unanswered
	my @eof = map { my $sel = IO::Select->new($_);
		$sel->can_read(0.5) && !sysread($_, my $x, 1) ? 1 : 0 } @b;
	is("@eof", '1 0', '... for it, the wait that began first was cut');
	close $_ for @b;
}
ok(wait_for(sub { !children($tm->pid) }, 5 * $slow), '... no child left');
# an upload that flows is never cut: one place held by a program at work,
# the other by a body sent 1 KiB every 50 ms; a newcomer gets 503, and
# the upload its 200 (the first cut took the first body wait listed, and
# cut this upload after 11 KiB)
{
	sleep 0.2;
	my $busy = send_req("GET /cgi-bin/sleep.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	my $up = send_req("POST /cgi-bin/count.sh HTTP/1.1\r\nHost: x\r\n"
		. "Content-Length: 40960\r\nConnection: close\r\n\r\n");
	my ($sent, $st) = (0, 0);
	while ($sent < 40) {
		http_send($up, 'u' x 1024);
		$sent++;
		sleep 0.05;
		$st = exchange(head => "GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\n"
			. "Connection: close\r\n\r\n", timeout => 5 * $slow)->{status}
			if $sent == 20;
	}
	is($st, 503, 'CGI_MAX=2, a program at work and an upload that flows: '
		. 'a newcomer gets 503');
	my $r = exchange(sock => $up, head => '', timeout => 5 * $slow);
	ok(($r->{status} // 0) == 200 && ($r->{body} // '') =~ /read 40960 bytes/,
		'... and the upload is not cut: 200, every byte read');
	close $_ for $busy, $up;
}
ok(wait_for(sub { !children($tm->pid) }, 5 * $slow), '... no child left');

# an address that holds two places more than the waiter's gives one up,
# its uploads flowing or not: both places held by 127.0.0.1's uploads,
# each 1 KiB every 50 ms; 127.0.0.2 asks, and is served, and one upload
# gets 503 (before: 503 for every other address until CGI_TIMEOUT)
{
	sleep 0.2;
	my @up = map { send_req("POST /cgi-bin/count.sh HTTP/1.1\r\nHost: x\r\n"
		. "Content-Length: 81920\r\nConnection: close\r\n\r\n") } 1 .. 2;
	my $sent = 0;
	my $feed = sub {
		return if $sent >= 80;
		http_send($_, 'u' x 1024) for @up;
		$sent++;
		sleep 0.05;
	};
	$feed->() for 1 .. 30;	# a program a second old may be cut
	my ($resp, $secs) = other_address($tm->port,
		sub { $feed->(); sleep 0.05 if $sent >= 80 });
	like($resp, qr{\AHTTP/1\.1 200 }, sprintf('CGI_MAX=2, both places held by '
		. 'flowing uploads of one address: another address is served (%.1f s)',
		$secs)) or diag($resp);
	$feed->() while $sent < 80;
	my @st = sort map { exchange(sock => $_, head => '', timeout => 5 * $slow)->{status} // 0 } @up;
	# the cut one's 503 may be lost to the reset of the body still coming
	like("@st", qr/^(?:0|503) 200$/, '... and one of the uploads was cut (503), the other went on')
		or diag("@st");
	close $_ for @up;
}
ok(wait_for(sub { !children($tm->pid) }, 5 * $slow), '... no child left');

# --- CGI_MAX=2: replies read at a modest pace hold not every place ----------------
# One address runs both programs, whose endless output its two clients
# take at about 20 KB/s, steadily, so that no send times out: another
# address waited its 2 s and got 503 until CGI_TIMEOUT.  Now an address
# that holds two places more than the waiter's gives one up: the program
# whose output has waited longest is stopped and its connection closed.
{
	sleep 0.2;
	my @r = map {
		my $s = IO::Socket::INET->new(Proto => 'tcp') or die "socket: $!";
		setsockopt($s, SOL_SOCKET, SO_RCVBUF, pack('i', 4096)) or die "SO_RCVBUF: $!";
		$s->connect(pack_sockaddr_in($tm->port, inet_aton('127.0.0.1')))
			or die "connect: $!";
		http_send($s, "GET /cgi-bin/flood-out.sh HTTP/1.1\r\nHost: x\r\n\r\n");
		$s->blocking(0);
		$s } 1 .. 2;
	my %eof;
	# 2 KiB from each every 100 ms
	my $take = sub {
		for my $s (@r) {
			next if $eof{$s};
			my $n = sysread($s, my $b, 2048);
			$eof{$s} = 1 if (defined $n && $n == 0) || (!defined $n && !$!{EAGAIN});
		}
		sleep 0.1;
	};
	ok(wait_for(sub { my @p = grep { $_->[2] =~ /flood-out/ } children($tm->pid);
		@p >= 2 }, 3 * $slow), 'CGI_MAX=2: both places held by replies read slowly');
	$take->() for 1 .. 12;	# a program a second old may be cut
	my ($resp, $secs) = other_address($tm->port, $take);
	like($resp, qr{\AHTTP/1\.1 200 }, sprintf('... another address is served (%.1f s)',
		$secs)) or diag($resp);
	$take->() for 1 .. 30 * $slow;	# the cut one's queued bytes, then its end
	is(scalar(grep { $eof{$_} } @r), 1, '... and one of them was cut, the other goes on');
	close $_ for @r;
}
ok(wait_for(sub { !children($tm->pid) }, 5 * $slow), '... no child left');

# Waiters that come together cut one program, not one each: each judged
# by counts that the cuts under way had not changed yet.  127.0.0.1 holds
# both places with replies it never reads; 127.0.0.2 asks twice at once:
# one cut (1 and 1 then), so one 200 and one 503.  Then 127.0.0.1 asks
# twice: no cut back (before: 127.0.0.2 got both places, then 127.0.0.1
# cut both back).
{
	sleep 0.2;
	# n requests from src at once; their statuses after secs
	my $ask = sub {
		my ($src, $n) = @_;
		my @s = map { connect_from($src, '127.0.0.1', $tm->port) or die "connect: $!" } 1 .. $n;
		http_send($_, "GET /cgi-bin/flood-out.sh HTTP/1.1\r\nHost: x\r\n\r\n") for @s;
		return @s;
	};
	my $status = sub {
		return join ' ', sort map { my $sel = IO::Select->new($_);
			my $b = '';
			sysread($_, $b, 64) if $sel->can_read(0.2);
			$b =~ m{^HTTP/1\.1 (\d+)} ? $1 : '-' } @_;
	};
	my @a = $ask->('127.0.0.1', 2);
	ok(wait_for(sub { my @p = grep { $_->[2] =~ /flood-out/ } children($tm->pid);
		@p >= 2 }, 3 * $slow), 'CGI_MAX=2: both places held by replies never read');
	sleep 1.2;
	my @b = $ask->('127.0.0.2', 2);
	sleep 2.5 * $slow;
	is($status->(@b), '200 503', '... two waiters of another address at once: one cut, '
		. 'one 200 and one 503');
	my @a2 = $ask->('127.0.0.1', 2);
	sleep 2.5 * $slow;
	is($status->(@a2), '503 503', '... and no cut back: the first address\'s '
		. 'new requests get 503');
	close $_ for @a, @b, @a2;
}
ok(wait_for(sub { !children($tm->pid) }, 5 * $slow), '... no child left');

# --- CGI_MAX=2: a place given back goes to the address that holds fewest ----------
# Before, every request that found both places taken got 503 at once, so
# an address that asked over and over took nearly every place given back
# (measured with CGI_MAX=4: 12 connections from one address, 2 of 48
# requests from another answered).  Now requests wait for a place, and
# it goes to the waiter whose address holds fewest.  Here 127.0.0.1 holds
# both places, one for 1.5 s and one for good, and asks for a third;
# then 127.0.0.2 asks.  The first place given back goes to 127.0.0.2
# although it asked later; the place that its program then gives back
# goes to 127.0.0.1.
{
	sleep 0.2;
	unlink "$run/order";
	my $hold = send_req("GET /cgi-bin/sleep.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	my $brief = send_req("GET /cgi-bin/slow.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	ok(wait_for(sub { children($tm->pid) >= 2 }, 3 * $slow), 'CGI_MAX=2: both places held by 127.0.0.1');
	my $wa = send_req("GET /cgi-bin/order.sh?a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	sleep 0.2;
	my $wb = connect_from('127.0.0.2', '127.0.0.1', $tm->port) or die "connect: $!";
	http_send($wb, "GET /cgi-bin/order.sh?b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	my @st = map { exchange(sock => $_, head => '', timeout => 5 * $slow)->{status} // 0 } $wa, $wb;
	is("@st", '200 200', '... both waiters get a place, none 503');
	is(join(' ', split /\n/, slurp("$run/order") // ''), 'b a',
		'... 127.0.0.2 first, though it asked after 127.0.0.1');
	close $_ for $hold, $brief, $wa, $wb;
}
ok(wait_for(sub { !children($tm->pid) }, 5 * $slow), '... no child left');

# --- a client that stops reading (REQUEST_TIMEOUT=1, CGI_TIMEOUT=10) ------------
# A client pipelines a static file and a program and reads nothing.  The
# file fills its socket (the client's small SO_RCVBUF and the server's
# send buffer) so that the program's response head, nearly 4 KB, finds no
# room.  When that write fails, at REQUEST_TIMEOUT, the program must end
# at once, not run on to CGI_TIMEOUT.  How much such a socket takes is
# measured first, the same way: a larger file, not read, until the
# server gives up on it.  Three files leave 1000, 2000 and 3000 bytes of
# room (the heads of the files' responses differ by a byte or two).
SKIP: {
	my ($rt, $ct) = (1, int(10 * $slow));
	my $tw = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin,
		REQUEST_TIMEOUT => $rt, CGI_TIMEOUT => $ct });
	$tw->allow_log(qr/cgi \S+: /);
	script("$bin/stream.sh", "#!/bin/sh\necho \$\$ > \"$run/stream.sh-\$QUERY_STRING.pid\"\n"
		. "printf 'Content-Type: text/plain\\nX-Pad: %s\\n\\n' " . ('p' x 3900) . "\n"
		. 'while :; do echo ' . ('x' x 4000) . "; sleep 0.05; done\n");
	# sparse(NAME, SIZE): a file of SIZE zeros in htdocs, taking no disk
	my $sparse = sub {
		open my $fh, '>', $tw->htdocs . "/$_[0]" or die "$_[0]: $!";
		truncate($fh, $_[1]) or die "truncate $_[0]: $!";
		close $fh;
	};
	# a connection that holds little: SO_RCVBUF before connect()
	my $small = sub {
		my $s = IO::Socket::INET->new(Proto => 'tcp') or die "socket: $!";
		setsockopt($s, SOL_SOCKET, SO_RCVBUF, pack('i', 2048)) or die "SO_RCVBUF: $!";
		$s->connect(pack_sockaddr_in($tw->port, inet_aton('127.0.0.1'))) or die "connect: $!";
		return $s;
	};
	my $big = 64 << 20;
	$sparse->('measure.bin', $big);
	$tw->run();

	my $s = $small->();
	http_send($s, "GET /measure.bin HTTP/1.1\r\nHost: x\r\n\r\n");
	# its log line is written when the server has given up on it
	wait_for(sub { $tw->log =~ m{"GET /measure\.bin HTTP/1\.1" \d+ } }, ($rt + 5) * $slow);
	my $held = http(undef, sock => $s, timeout => 5 * $slow);
	my $hlen = index($held, "\r\n\r\n") + 4;
	my $measured = ok($hlen > 4 && length($held) > $hlen + 10000 && length($held) < $hlen + $big,
		sprintf('a socket that is not read holds %d bytes of a response', length $held));
	skip 'how much the socket holds was not measured', 8 unless $measured;

	my @room = (1000, 2000, 3000);
	$sparse->("f$_.bin", length($held) - $hlen - $_) for @room;
	my $t0 = time;
	my %sock = map { $_ => $small->() } @room;
	http_send($sock{$_}, "GET /f$_.bin HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET /cgi-bin/stream.sh?$_ HTTP/1.1\r\nHost: x\r\n\r\n") for @room;
	my %pg = map { $_ => pid_of("stream.sh-$_") } @room;
	ok(!grep({ !$_ } values %pg), 'after each file, its program started') or diag(explain \%pg);
	# when each one's process group is gone, in seconds since the requests
	my %gone;
	wait_for(sub {
		for (grep { $pg{$_} && !defined $gone{$_} } @room) {
			$gone{$_} = time - $t0 unless pgrp_members($pg{$_});
		}
		return !grep { $pg{$_} && !defined $gone{$_} } @room;
	}, ($rt + 3) * $slow);
	# not to be left running, whatever the outcome
	kill 'KILL', -$pg{$_} for grep { $pg{$_} && !defined $gone{$_} } @room;
	for my $d (@room) {
		my @r = parse_responses(http(undef, sock => $sock{$d}, timeout => 3 * $slow));
		ok(@r && !$r[0]{incomplete} && $r[0]{status} == 200
			&& length($r[0]{body}) == length($held) - $hlen - $d
			&& (@r == 1 || (@r == 2 && $r[1]{incomplete})),
			"room for $d bytes: the file came whole, the program's response head did not");
		ok(defined $gone{$d} && $gone{$d} < ($rt + 3) * $slow,
			sprintf('... the program ended when that write failed, at REQUEST_TIMEOUT=%d (%s), '
			. 'not at CGI_TIMEOUT=%d', $rt, defined $gone{$d} ? sprintf('%.2f s', $gone{$d})
			: 'still running', $ct));
	}
	ok(wait_for(sub { !children($tw->pid) }, 3 * $slow), 'no child left');
}

# --- a request body that stops coming (REQUEST_TIMEOUT=1, CGI_TIMEOUT=10) -------------
# Each piece of the body may take REQUEST_TIMEOUT, while the program's
# output flows; one that takes longer is a 408, and the program ends.
{
	my $tb = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin,
		REQUEST_TIMEOUT => 1, CGI_TIMEOUT => int(10 * $slow) });
	$tb->allow_log(qr/cgi \S+: /);
	$tb->run();
	my $s = http_connect(port => $tb->port);
	http_send($s, "POST /cgi-bin/count.sh HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n"
		. "Connection: close\r\n\r\n");
	for (1 .. 6) { sleep 0.5; http_send($s, 'b') }
	$r = exchange(sock => $s, head => '', timeout => 5 * $slow);
	like($r->{body} // '', qr/read 6 bytes/,
		'a body in 6 pieces 0.5 s apart, REQUEST_TIMEOUT=1: each piece in time, all read');
	unlink "$run/wait-body.sh.pid";
	my $t1 = time;
	$r = exchange(head => "POST /cgi-bin/wait-body.sh HTTP/1.1\r\nHost: x\r\n"
		. "Content-Length: 50000\r\n\r\n" . ('b' x 1000), timeout => 10 * $slow);
	is($r->{status}, 408, 'a body that stops: 408');
	ok(time - $t1 < 4 * $slow, sprintf('... at REQUEST_TIMEOUT, not CGI_TIMEOUT (%.1f s)', time - $t1));
	ok(gone(pid_of('wait-body.sh'), 3 * $slow), '... and the program is gone');
	# the time the program takes to read what it was given is not the
	# client's: 66,000 bytes fill its stdin pipe (64 KiB) and the
	# server's buffer, and the client sends the rest when it sees the
	# program's first answer, 2 s later
	$s = http_connect(port => $tb->port);
	http_send($s, "POST /cgi-bin/late.sh HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n"
		. "Connection: close\r\n\r\n" . ('a' x 66000));
	my ($got, $sel) = ('', IO::Select->new($s));
	my $until = time + 10 * $slow;
	while ($got !~ /first 66000/ && (my $left = $until - time) > 0) {
		last unless $sel->can_read($left);
		sysread($s, $got, 65536, length $got) or last;
	}
	http_send($s, 'b' x 4000) if $got =~ /first 66000/;
	while ($got !~ /rest 4000/ && (my $left = $until - time) > 0) {
		last unless $sel->can_read($left);
		sysread($s, $got, 65536, length $got) or last;
	}
	close $s;
	like($got, qr/first 66000.*rest 4000/s,
		'a program slow to read its input: the client\'s REQUEST_TIMEOUT runs from when it is asked for more')
		or diag("got: " . substr($got, 0, 300));
	$tb->stop;
}

# --- started with SIGCHLD ignored (a launcher's leftover) -----------------------------
# Inherited SIG_IGN would have the kernel reap the programs unseen; the
# server sets it back, or each program kept its CGI_MAX place for good.
{
	my $ti = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin,
		CGI_MAX => 2 });
	$ti->allow_log(qr/cgi \S+: /);
	{
		local $SIG{CHLD} = 'IGNORE';
		$ti->run();
	}
	# each once the last has gone: a program that lingers after its
	# output (a loaded machine) keeps its place until it is reaped
	my @st = map { wait_for(sub { !children($ti->pid) }, 5);
		exchange(head => "GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n")->{status} } 1 .. 5;
	is("@st", '200 200 200 200 200', 'SIGCHLD ignored at start, CGI_MAX=2: five programs one after another');
	$ti->stop;
}

# --- the server stops: its programs do not outlive it --------------------------------
# After the 5 s drain, what still runs gets SIGTERM to its process group
# and SIGKILL a second later, as at CGI_TIMEOUT (60 s here).  Before, both
# went on with init as their parent, the second for good.
{
	my $ts = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
	$ts->run();
	my $sleeps = sub {
		my (undef, $out) = run_cmd('ps', '-eo', 'stat=,args=');
		return grep { /^\s*[^Z\s]\S*\s+sleep 4[1234]\s*$/ } split /\n/, $out;
	};
	my @s = map { send_req("GET /cgi-bin/$_ HTTP/1.1\r\nHost: x\r\n\r\n") }
		qw(stop-plain.sh stop-stubborn.sh stop-orphan.sh);
	ok(wait_for(sub { $sleeps->() == 4 }, 5 * $slow),
		'three programs run, one of them past its output with a child');
	is($ts->stop, 0, 'SIGTERM with them running: the server exits 0');
	ok(wait_for(sub { $sleeps->() == 0 }, 3 * $slow),
		'... and no program is left, the one that ignores SIGTERM included')
		or diag(join "\n", $sleeps->());
	# a reply the stop ended is cut, not closed with a last chunk that
	# passes it for whole (a settings backup, say) (helper-70)
	my $got = http('', sock => $s[0], timeout => 5);
	like($got, qr{^HTTP/1\.1 200 .*\r\ntransfer-encoding: chunked\r\n}is,
		'... the first program\'s reply had begun, chunked');
	unlike($got, qr/(?:^|\r\n)0\r\n\r\n\z/, '... and has no last chunk: cut short, as it was');
	close $_ for @s;
	# not to be left running, whatever the outcome
	run_cmd('pkill', '-KILL', '-f', '^sleep 4[1234]$');
}

# --- a client that takes the output a trickle at a time (CGI_TIMEOUT=2) -----------
# (REQUEST_TIMEOUT=10)
# Each write waited up to REQUEST_TIMEOUT from the client's last byte taken,
# and the deadline was looked at only between pieces of output: a client
# that takes 100 bytes a second kept the program, and its CGI_MAX place,
# for a minute a piece.  Now no write waits past CGI_TIMEOUT.
{
	my $tc = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin,
		CGI_TIMEOUT => 2, REQUEST_TIMEOUT => 10 });
	$tc->allow_log(qr/cgi \S+: /);
	$tc->run();
	unlink "$run/flood-out.sh.pid";
	my $s = IO::Socket::INET->new(Proto => 'tcp') or die "socket: $!";
	setsockopt($s, SOL_SOCKET, SO_RCVBUF, pack('i', 4096)) or die "SO_RCVBUF: $!";
	$s->connect(pack_sockaddr_in($tc->port, inet_aton('127.0.0.1'))) or die "connect: $!";
	http_send($s, "GET /cgi-bin/flood-out.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	my $pg = pid_of('flood-out.sh');
	my ($t0, $ended) = (time);
	while (time - $t0 < 12 * $slow) {
		sysread($s, my $b, 100);
		if (!pgrp_members($pg)) { $ended = time - $t0; last }
		sleep 0.5;
	}
	ok(defined $ended && $ended < 5 * $slow, sprintf('a client taking 200 bytes a second: '
		. 'the program ends at CGI_TIMEOUT (after %s s)',
		defined $ended ? sprintf('%.1f', $ended) : 'more than ' . 12 * $slow));
	close $s;
	$tc->stop;
}

# Out of descriptors (ulimit -n 40, idle keep-alive clients holding them):
# a program cannot get its pipes, which is a 503 with Retry-After, busy
# rather than broken; it was a 500 (helper-71)
{
	my $tn = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin,
		MAX_CONNECTIONS_PER_IP => 0 });
	$tn->allow_log(qr/cgi \S+: cannot start/);
	$tn->write_file('index.html', "x\n");
	$tn->run({ nofile => 40 });
	my @idle;
	for (1 .. 60) {
		my $s = eval { http_connect() } or last;
		http_send($s, "GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n");
		read_response($s);
		push @idle, $s;
	}
	my ($r) = parse_responses(http("GET /cgi-bin/quick.sh HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n"));
	ok($r && ($r->{status} == 200 || ($r->{status} == 503 && $r->{headers}{'retry-after'})),
		'out of descriptors: a program is a 503 with Retry-After (or runs), not a 500')
		or diag($r ? $r->{status} : 'no answer');
	close $_ for @idle;
}

# A program that wrote its whole reply and ended by itself before the
# stop, the reply's tail still on its way to a slow client when the
# programs are ended: that reply ends whole, with its last chunk; the
# first cut looked at the stop alone, and cut it (helper-73)
{
	my $tw = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
	$tw->run();
	my $s = IO::Socket::INET->new(Proto => 'tcp') or die "socket: $!";
	setsockopt($s, SOL_SOCKET, SO_RCVBUF, pack('i', 4096)) or die "SO_RCVBUF: $!";
	$s->connect(pack_sockaddr_in($tw->port, inet_aton('127.0.0.1'))) or die "connect: $!";
	http_send($s, "GET /cgi-bin/whole.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	sleep 1.5;
	kill 'TERM', $tw->pid;
	sleep 5.2;	# past the drain: the programs are being ended
	my $got = http('', sock => $s, timeout => 5);
	my ($body) = $got =~ /\r\n\r\n(.*)\z/s;
	my $n = 0;
	$n += length $1 while ($body // '') =~ /\G[0-9a-f]+\r\n(b+)\r\n/gc;
	is($n, 71680, 'a program that ended by itself before the stop: its whole reply');
	like($got, qr/\r\n0\r\n\r\n\z/, '... with its last chunk, not cut');
	$tw->stop;
}

$t->done_testing();
