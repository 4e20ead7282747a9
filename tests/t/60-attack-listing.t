#!/usr/bin/perl
# Attack: one connection pipelines 32 GETs of a listing of 40,000 files
# and reads the answers as fast as they come, so the server's socket never
# fills.  A listing reads its directory and stats every entry; made on the
# event loop's turn, 32 of them in a row held up everyone else for
# seconds (the turn only passes on after REQ_BUDGET requests, or when a
# send would block).  Meanwhile a normal client from another address
# (127.0.0.2) GETs a small file on a fresh connection every ~150 ms: each
# must be answered within 1 s (x3 under a RUN_WRAPPER).  Every listing is
# answered whole, and the server still serves.

use strict;
use warnings;

use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);
use MrhttpdAttack;

my $FILES = 40_000;
my $N = $ENV{RUN_WRAPPER} ? 4 : 32;

my $t = MrhttpdTest->new(conf => { AUTO_INDEX => 1, REQUEST_TIMEOUT => 60 });
$t->write_file('probe.txt', "probe\n");
my $big = $t->htdocs . '/big';
mkdir $big or die "mkdir $big: $!";
for my $i (1 .. $FILES) {
	open(my $fh, '>', sprintf('%s/file-%06d.txt', $big, $i)) or die "$!";
	close $fh;
}
$t->run();
sleep 0.2;	# the start-up probe connection goes away

my $one = http("GET /big/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	timeout => 60);
my $len = length $one;
my $files = () = $one =~ /file-\d{6}\.txt"/g;
is($files, $FILES, "one listing of $FILES files ($len bytes)");

my $p = probe_start(port => $t->port, addr => '127.0.0.2');
my $t0 = time;
my $s = connect_from('127.0.0.1', '127.0.0.1', $t->port, 5)
	or BAIL_OUT("connect: $@");
http_send($s, "GET /big/ HTTP/1.1\r\nHost: x\r\n\r\n" x ($N - 1)
	. "GET /big/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
my ($got, $buf) = (0, '');
my $sel = IO::Select->new($s);
while ($sel->can_read(60)) {
	my $r = sysread($s, $buf, 1 << 20, length $buf);
	last unless $r;
}
close $s;
my $el = time - $t0;
sleep 0.3 if $el < 0.3;
my $res = probe_stop($p);
my $answers = () = $buf =~ m{^HTTP/1\.1 200 }mg;
is($answers, $N, sprintf('%d pipelined listings answered (%.1f s, %d bytes)',
	$N, $el, length $buf));
probe_check($res, 'listing');

ok($t->alive, 'the server is still running');
my ($r) = parse_responses(http_get('/probe.txt'));
is($r && $r->{status}, 200, 'and serves a GET afterwards');

$t->done_testing();
