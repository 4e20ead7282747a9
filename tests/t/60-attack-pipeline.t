#!/usr/bin/perl
# Attack: one connection pipelines "OPTIONS * HTTP/1.1" without pause for
# about 5 s (a forked writer; a forked reader drains the responses, so the
# server is kept busy rather than blocked on a full socket).  Meanwhile a
# normal client from another address (127.0.0.2) GETs a small file on a
# fresh connection every ~150 ms: each must be answered within 1 s (x3
# under a RUN_WRAPPER), as the turn passes on after REQ_BUDGET requests in
# a row.  Afterwards every pipelined request has been answered, in order,
# and the server still serves.

use strict;
use warnings;

use Socket qw(SHUT_WR);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);
use MrhttpdAttack;

my $SECS = 5;

my $t = MrhttpdTest->new(conf => { KEEPALIVE_TIMEOUT => 30, REQUEST_TIMEOUT => 30 });
$t->write_file('probe.txt', "probe\n");
$t->run();
sleep 0.2;	# the start-up probe connection goes away

# the baseline: the normal client alone
my $p = probe_start(port => $t->port, addr => '127.0.0.2');
sleep 1;
my $base = probe_stop($p);
probe_check($base, 'pipeline-baseline');

my $req = "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n";
my $chunk = $req x 512;
my $dir = $t->testdir;

my $s = connect_from('127.0.0.1', '127.0.0.1', $t->port, 5)
	or BAIL_OUT("connect: $@");
$p = probe_start(port => $t->port, addr => '127.0.0.2');
my $t0 = time;

# the writer: whole chunks for $SECS seconds, then a half-close, so that
# the server ends the connection once it has answered the last request
my $writer = spawn('writer', $SECS + 30, sub {
	local $SIG{PIPE} = 'IGNORE';
	my ($n, $end) = (0, time + $SECS);
	while (time < $end) {
		last unless http_send($s, $chunk);
		$n += 512;
	}
	shutdown($s, SHUT_WR);
	MrhttpdTest::spew("$dir/sent", $n);
	return 0;
});
# the reader: counts the responses, and checks each is a 204 with
# Allow (the server's answer to OPTIONS *), until the server closes
my $reader = spawn('reader', $SECS + 60, sub {
	my ($n, $bad, $buf) = (0, 0, '');
	my $sel = IO::Select->new($s);
	for (;;) {
		last unless $sel->can_read(20);
		my $r = sysread($s, $buf, 1 << 20, length $buf);
		last unless $r;
		# whole responses: a head ending in an empty line, no body
		# (OPTIONS * is answered with Content-Length: 0)
		my $pos = 0;
		while ((my $e = index($buf, "\r\n\r\n", $pos)) >= 0) {
			my $head = substr($buf, $pos, $e - $pos);
			$n++;
			$bad++ unless $head =~ m{^HTTP/1\.1 204 }
				&& $head =~ /\r\nAllow: [^\r]*OPTIONS/i
				&& $head !~ /\r\nContent-Length: [1-9]/i;
			$pos = $e + 4;
		}
		substr($buf, 0, $pos) = '';
	}
	MrhttpdTest::spew("$dir/answered", "$n $bad " . length($buf));
	return 0;
});
close $s;

my $wst = wait_child($writer, $SECS + 30);
my $rst = wait_child($reader, 40);
my $res = probe_stop($p);
my $el = time - $t0;
stop_child($_) for $writer, $reader;

my $sent = slurp("$dir/sent") // 0;
my ($answered, $bad, $left) = split ' ', slurp("$dir/answered") // '0 0 0';
note("pipeline: $sent requests sent in $SECS s, $answered answered, in "
	. sprintf('%.1f', $el) . ' s');
cmp_ok($sent, '>=', 10_000 / slack(), 'the attacker pipelined a flood of requests');
is($answered, $sent, 'every pipelined request was answered');
is($bad, 0, '... each with a 204 and Allow, no body');
is($left, 0, '... and nothing else came back');
probe_check($res, 'pipeline');

# still alive, still serving
ok($t->alive, 'the server is still running');
my ($r) = parse_responses(http_get('/probe.txt'));
is($r && $r->{status}, 200, 'and serves a GET afterwards');

$t->done_testing();
