#!/usr/bin/perl
# Limits: at MAX_CONNECTIONS further clients wait in the listen backlog
# until a slot frees; running out of file descriptors (EMFILE from accept)
# neither kills the server nor makes it spin.

use strict;
use warnings;

use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;

my $slack = $ENV{RUN_WRAPPER} ? 3 : 1;

my $t = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 2 });
$t->write_file('a.txt', "aaa\n");
$t->run();
sleep 0.3;	# let the start-up probe connection go away

sub get_on {
	my ($s, %o) = @_;
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n") or return undef;
	return read_response($s, %o);
}

{
	my $c1 = http_connect();
	my $r = get_on($c1);
	is($r && $r->{status}, 200, 'MAX_CONNECTIONS=2: first connection served');
	my $c2 = http_connect();
	$r = get_on($c2);
	is($r && $r->{status}, 200, 'MAX_CONNECTIONS=2: second connection served');

	my $c3 = http_connect();	# completes in the listen backlog
	my $t0 = time;
	$r = get_on($c3, timeout => 1);
	ok(!$r, 'third connection: no answer while both slots are held');

	# The held connections are still fine.
	$r = get_on($c2);
	is($r && $r->{status}, 200, 'second connection still served');

	close $c1;
	$t0 = time;
	$r = read_response($c3, timeout => 5 * $slack);
	my $el = time - $t0;
	is($r && $r->{status}, 200, 'third connection answered once the first closed');
	ok($el < 3 * $slack, 'third connection answered promptly') or diag("after $el s");
	$r = get_on($c3);
	is($r && $r->{status}, 200, 'third connection keeps working');
}
$t->stop();

# EMFILE: far more connections than descriptors.
SKIP: {
	skip 'no /proc/PID/stat', 6 unless -r "/proc/$$/stat";
	my $t2 = MrhttpdTest->new();
	$t2->write_file('a.txt', "aaa\n");
	$t2->allow_log(qr/accept|descriptor|EMFILE|Too many open files/i);
	$t2->run({ nofile => 30 });
	sleep 0.3;

	my @conns;
	for (1 .. 60) {
		my $s = http_connect(may_fail => 1, timeout => 2) or last;
		push @conns, $s;
	}
	is(scalar @conns, 60, '60 connections opened (accepted or in the backlog)');
	sleep 0.5;
	my $cpu0 = $t2->cpu_time;
	sleep 2;
	my $cpu1 = $t2->cpu_time;
	ok(defined $cpu1 && $cpu1 - $cpu0 < 0.5, 'EMFILE: the server does not spin')
		or diag(sprintf 'used %.2f s of CPU in 2 s', ($cpu1 // 0) - ($cpu0 // 0));
	ok($t2->alive, 'EMFILE: the server is still running');

	# Connections accepted before it still get an answer (perhaps an
	# error status, as opening the file may fail with EMFILE too).
	my $answered = 0;
	for my $s (@conns[0 .. 4]) {
		my $r = get_on($s, timeout => 2);
		$answered++ if $r && $r->{status};
	}
	ok($answered > 0, 'EMFILE: connections accepted before it are answered')
		or diag("answered $answered of 5");

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
