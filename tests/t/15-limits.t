#!/usr/bin/perl
# Limits: at MAX_CONNECTIONS the connection parked longest (idle, with
# nothing sent yet, or with half a head) is closed to make room for a new
# client; when every slot waits for its client (an unread reply), the
# wait that began longest ago is cut for a newcomer; when every slot is
# busy with a request that waits for no client (a program at work),
# further clients wait in the listen backlog until a slot frees.  Running out of file descriptors (EMFILE from
# accept) makes room the same way, and neither kills the server nor makes
# it spin.

use strict;
use warnings;

use IO::Select;
use IO::Socket::IP;
use Socket qw(SOL_SOCKET SO_RCVBUF);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;

my $slack = $ENV{RUN_WRAPPER} ? 3 : 1;

# MAX_CONNECTIONS_PER_IP=0: every client here comes from 127.0.0.1
my $t = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 2,
	MAX_CONNECTIONS_PER_IP => 0 });
$t->write_file('a.txt', "aaa\n");
$t->run();
sleep 0.3;	# let the start-up probe connection go away

# unread_get(PORT, PATH): a client with a small receive buffer that asks
# for PATH and reads nothing.
sub unread_get {
	my ($port, $path) = @_;
	my $s = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port,
		Sockopts => [[SOL_SOCKET, SO_RCVBUF, 4096]]) or die "connect: $@";
	http_send($s, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n");
	return $s;
}

sub get_on {
	my ($s, %o) = @_;
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n") or return undef;
	return read_response($s, %o);
}

{
	my $c1 = http_connect();
	my $r = get_on($c1);
	is($r && $r->{status}, 200, 'MAX_CONNECTIONS=2: first connection served');
	sleep 0.05;	# c1 is parked before c2
	my $c2 = http_connect();
	$r = get_on($c2);
	is($r && $r->{status}, 200, 'MAX_CONNECTIONS=2: second connection served');

	# both idle: the third makes room by closing the oldest, c1
	my $c3 = http_connect();
	my $t0 = time;
	$r = get_on($c3, timeout => 3 * $slack);
	is($r && $r->{status}, 200, 'third connection: served at once, both others idle');
	ok(time - $t0 < 1 * $slack, '... promptly') or diag(sprintf '%.2f s', time - $t0);
	ok(defined wait_closed($c1, 2 * $slack), 'the oldest idle connection was closed for it');
	$r = get_on($c2);
	is($r && $r->{status}, 200, 'the second connection is still served');
}

# Both with half a head: parked as well, so the third makes room by
# closing the one parked longest, and the other may still finish.
{
	my @half = map { my $s = http_connect();
		http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n");
		sleep 0.05; $s } 1 .. 2;	# parked in this order
	sleep 0.2;
	my $c3 = http_connect();
	my $t0 = time;
	my $r = get_on($c3, timeout => 3 * $slack);
	is($r && $r->{status}, 200, 'both slots mid-head: the third is served');
	ok(time - $t0 < 1 * $slack, '... promptly') or diag(sprintf '%.2f s', time - $t0);
	ok(defined wait_closed($half[0], 2 * $slack),
		'the head parked longest was closed for it');
	http_send($half[1], "\r\n");
	$r = read_response($half[1], timeout => 3 * $slack);
	is($r && $r->{status}, 200, 'the other finishes its head: answered');
}
$t->stop();

# Every slot waiting for its client to read a reply (slow reads): the
# wait that began longest ago is cut for a newcomer, who is answered at
# once; the other reply goes on whole.  Before, the newcomer waited in
# the backlog for REQUEST_TIMEOUT.
{
	my $b = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 2,
		MAX_CONNECTIONS_PER_IP => 0, REQUEST_TIMEOUT => 30 });
	$b->write_file('a.txt', "aaa\n");
	$b->write_file('big.bin', 'z' x (16 << 20));
	$b->run();
	sleep 0.3;
	my @busy = map { my $s = unread_get($b->port, '/big.bin'); sleep 0.3; $s } 1 .. 2;
	my $c3 = http_connect();
	my $t0 = time;
	my $r = get_on($c3, timeout => 5 * $slack);
	my $el = time - $t0;
	is($r && $r->{status}, 200, 'both slots waiting for unread replies: a third is served');
	ok($el < 1 * $slack, '... at once') or diag(sprintf '%.2f s', $el);
	# what each of the two gets, read now to the end: the one cut gets
	# what was queued for it, then the end of the stream
	my $drain = sub {
		my ($s) = @_;
		my ($n, $buf, $got) = (0, '', 0);
		my $sel = IO::Select->new($s);
		while ($sel->can_read(5 * $slack) && ($n = sysread($s, $buf, 1 << 16))) {
			$got += $n;
		}
		return $got;
	};
	cmp_ok($drain->($busy[0]), '<', 16 << 20, '... the reply stalled longest was cut for it');
	cmp_ok($drain->($busy[1]), '>', 16 << 20, '... the other came whole');
	close $_ for @busy;
	$b->stop();
}

# Every slot busy with a request that waits for no client (a CGI program
# at work): a newcomer waits in the backlog until a slot frees.
SKIP: {
	my $dir = MrhttpdTest::fixed_dir('cgi-15');
	mkdir "$dir/cgi-bin";
	MrhttpdTest::spew("$dir/cgi-bin/slow.sh", "#!/bin/sh\nsleep 2\n"
		. "printf 'Content-Type: text/plain\\nContent-Length: 5\\n\\nslow\\n'\n",
		0755);
	my $b = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 2,
		MAX_CONNECTIONS_PER_IP => 0, CGI_PATH => '/cgi-bin',
		CGI_DIR => "$dir/cgi-bin" });
	skip('no CGI in this build', 4) unless $b->feature('cgi');
	$b->write_file('a.txt', "aaa\n");
	$b->run();
	sleep 0.3;
	my @busy = map { my $s = http_connect();
		http_send($s, "GET /cgi-bin/slow.sh HTTP/1.1\r\nHost: x\r\n\r\n");
		$s } 1 .. 2;
	sleep 0.3;
	my $c3 = http_connect();	# completes in the listen backlog
	my $r = get_on($c3, timeout => 1);
	ok(!$r, 'both slots busy with a program: the third gets no answer yet');
	my $t0 = time;
	$r = read_response($c3, timeout => 5 * $slack);
	my $el = time - $t0;
	is($r && $r->{status}, 200, 'third connection answered once a slot freed');
	ok($el < 3 * $slack, 'third connection answered promptly') or diag("after $el s");
	$r = read_response($busy[0], timeout => 5 * $slack);
	is($r && $r->{body}, "slow\n", 'the program\'s reply was not cut');
	$b->stop();
}

# Both slots busy with programs when the newcomer comes (the listener is
# out), then both waiting for clients that do not read the programs'
# output: a wait that begins brings the listener back, and the newcomer
# is served.  Before, it stayed in the backlog until REQUEST_TIMEOUT.
SKIP: {
	my $dir = MrhttpdTest::fixed_dir('cgi-15b');
	mkdir "$dir/cgi-bin";
	MrhttpdTest::spew("$dir/cgi-bin/late.sh", "#!/bin/sh\nsleep 1\n"
		. "printf 'Content-Type: application/octet-stream\\n\\n'\n"
		. "exec head -c 8000000 /dev/zero\n", 0755);
	my $b = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 2,
		MAX_CONNECTIONS_PER_IP => 0, REQUEST_TIMEOUT => 20,
		CGI_PATH => '/cgi-bin', CGI_DIR => "$dir/cgi-bin" });
	skip('no CGI in this build', 2) unless $b->feature('cgi');
	$b->write_file('a.txt', "aaa\n");
	$b->run();
	sleep 0.3;
	my @busy = map { unread_get($b->port, '/cgi-bin/late.sh') } 1 .. 2;
	sleep 0.3;
	my $c3 = http_connect();	# both slots busy: in the backlog
	my $t0 = time;
	my $r = get_on($c3, timeout => 8 * $slack);
	my $el = time - $t0;
	is($r && $r->{status}, 200, 'programs whose output is not read: a newcomer is served');
	ok($el < 4 * $slack, '... once their waits begin, not at REQUEST_TIMEOUT')
		or diag(sprintf 'after %.2f s', $el);
	close $_ for @busy;
	$b->stop();
}

# EMFILE: far more connections than descriptors.
SKIP: {
	skip 'no /proc/PID/stat', 7 unless -r "/proc/$$/stat";
	my $t2 = MrhttpdTest->new();
	$t2->write_file('a.txt', "aaa\n");
	$t2->allow_log(qr/accept|descriptor|EMFILE|Too many open files/i);
	# qemu-user and ASan keep descriptors of their own inside the limit,
	# and are slower to hand out the rest
	my $nofile = $ENV{RUN_WRAPPER} || $ENV{MRHTTPD_SANITIZE} ? 64 : 30;
	$t2->run({ nofile => $nofile });
	sleep 0.3;

	# A silent client is handed to the server only when its first bytes
	# come, or a second after it connected (TCP_DEFER_ACCEPT): so the
	# oldest come first and are parked a while before the crowd, which
	# arrives all at once a second after it connected.
	my $open = sub {
		my @s;
		for (1 .. shift) {
			my $s = http_connect(may_fail => 1, timeout => 2) or last;
			push @s, $s;
		}
		return @s;
	};
	my @conns = $open->(5);
	sleep 1.5;
	push @conns, $open->(2 * $nofile - 10);
	is(scalar @conns, 2 * $nofile - 5, 2 * $nofile - 5
		. ' connections opened (accepted or in the backlog)');
	sleep 1.5;
	my $cpu0 = $t2->cpu_time;
	sleep 2;
	my $cpu1 = $t2->cpu_time;
	ok(defined $cpu1 && $cpu1 - $cpu0 < 0.5, 'EMFILE: the server does not spin')
		or diag(sprintf 'used %.2f s of CPU in 2 s', ($cpu1 // 0) - ($cpu0 // 0));
	ok($t2->alive, 'EMFILE: the server is still running');

	# Newcomers that ask at once get the descriptors of the idle ones
	# parked longest, and an answer (perhaps an error status, as opening
	# the file may fail with EMFILE too); the oldest were closed for them.
	my @new = $open->(5);
	http_send($_, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n") for @new;
	my $answered = 0;
	for my $s (@new) {
		my $r = read_response($s, timeout => 5 * $slack);
		$answered++ if $r && $r->{status};
	}
	is($answered, 5, 'EMFILE: the newest connections are answered')
		or diag("answered $answered of 5");
	my $closed = grep { defined wait_closed($_, 2) } @conns[0 .. 4];
	is($closed, 5, 'EMFILE: the oldest idle ones were closed to make room');
	push @conns, @new;

	close $_ for @conns;
	@conns = ();
	my $r;
	my $deadline = time + 10 * $slack;
	while (time < $deadline) {
		($r) = parse_responses(http_get('/a.txt', timeout => 3));
		last if $r && $r->{status} == 200;
		sleep 0.2;
	}
	is($r && $r->{status}, 200, 'EMFILE: serves again once the clients left');
	ok($t2->alive, 'EMFILE: still running at the end');
}

$t->done_testing();
