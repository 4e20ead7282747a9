#!/usr/bin/perl
# Attack: Debian's slowhttptest against the default limits
# (MAX_CONNECTIONS 1024, MAX_CONNECTIONS_PER_IP 256, REQUEST_TIMEOUT 30).
#   -H	slow headers (Slowloris): 4000 connections at 500 a second, each
#	sending a header line every 5 s, for 15 s
#   -B	slow bodies (R-U-Dead-Yet) to a PUT below PUT_PATH: 4000
#	connections announcing 64 KiB, sending 10 bytes every 2 s, for 15 s
# slowhttptest cannot choose its source address, so it attacks from
# 127.0.0.1 and the normal client comes from 127.0.0.2: a fresh
# connection every ~150 ms, a GET of a small file, answered within 1 s (x3
# under a RUN_WRAPPER).  The attack must be real (slowhttptest held
# connections open), the server survives and serves, and the aborted
# uploads leave no file or temporary file behind.

use strict;
use warnings;

use File::Find qw(find);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;
use MrhttpdAttack;

my $SECS = 15;
my $t = MrhttpdTest->new(conf => { PUT_PATH => '/up' });
$t->has('put');
$t->has_prog('slowhttptest', 'timeout');
$t->write_file('probe.txt', "probe\n");
$t->write_file('index.html', "<p>index</p>\n");
$t->write_file('up/keep.txt', "keep\n");

# slowhttptest wants a descriptor per connection: raise ours (inherited)
# Under qemu-user (RUN_WRAPPER) the server is 20-50 times slower: 4000
# connections at once would measure the emulator's accept loop, so a
# twentieth of them attack there (scaled()).
my $conns = scaled(4000);
my $nofile = raise_nofile($conns + 200);
$conns = $nofile - 200 if $nofile < $conns + 200;
cmp_ok($conns, '>=', scaled(1000), "descriptors for $conns attacking connections")
	or diag("RLIMIT_NOFILE is $nofile");
$t->run();
sleep 0.2;
my $port = $t->port;

# slowhttptest(NAME, ARGS...): runs it with a probe; returns (exit
# status, the most connections it held at once, the last status block)
sub slowhttptest {
	my ($name, @args) = @_;
	my $p = probe_start(port => $port, addr => '127.0.0.2');
	my $t0 = time;
	my ($rc, $out) = run_cmd('timeout', '-k', 5, $SECS + 20, 'slowhttptest',
		'-c', $conns, '-r', 500, '-l', $SECS, '-p', 3, @args);
	my $el = time - $t0;
	my $res = probe_stop($p);
	(my $plain = $out) =~ s/\e\[[0-9;]*[A-Za-z]//g;
	my @held = $plain =~ /^connected:\s+(\d+)/mg;
	my ($most) = sort { $b <=> $a } @held, 0;
	my ($last) = $plain =~ /.*(slow HTTP test status on.*)\z/s;
	note("$name: slowhttptest ran " . sprintf('%.1f', $el) . " s, held up to $most");
	is($rc, 0, "$name: slowhttptest ran to its end")
		or diag(substr($plain, -1500));
	cmp_ok($el, '<', $SECS + 15, "$name: ... in about $SECS s");
	probe_check($res, $name);
	ok($t->alive, "$name: the server is still running");
	my ($r) = parse_responses(http_get('/probe.txt', host => '127.0.0.1'));
	is($r && $r->{status}, 200, "$name: and serves a GET afterwards");
	return ($most, $last // '');
}

# --- slow headers -----------------------------------------------------------
{
	my ($most) = slowhttptest('slowloris-headers', '-H', '-i', 5, '-x', 24,
		'-u', "http://127.0.0.1:$port/index.html");
	cmp_ok($most, '>=', 100, 'slow headers: the server held many of them open');
}

# --- slow bodies ------------------------------------------------------------
{
	my ($most) = slowhttptest('slowloris-bodies', '-B', '-t', 'PUT',
		'-s', 65536, '-i', 2, '-x', 10,
		'-u', "http://127.0.0.1:$port/up/slow.bin");
	cmp_ok($most, '>=', 100, 'slow bodies: the server held many of them open');
	# the uploads were all cut short: nothing of them may stay
	my $dir = $t->htdocs . '/up';
	my @left;
	for (1 .. 50) {
		@left = ();
		find({ no_chdir => 1, wanted => sub {
			push @left, $File::Find::name if -f $_ && !/keep\.txt$/;
		} }, $dir);
		last unless @left;
		sleep 0.1;
	}
	is("@left", '', 'slow bodies: no upload (or temporary file) left behind');
	is(MrhttpdTest::slurp("$dir/keep.txt"), "keep\n", '... the other file intact');
}

$t->done_testing();
