#!/usr/bin/perl
# The thread pool shrinks when idle: a burst of 20 slow CGI requests takes
# a thread each, and SPARE_IDLE_S (10 s) after it only the turn holder and
# one spare are left, so a burst does not keep its threads' stacks
# resident for good.  Under load, the spares are reused.

use strict;
use warnings;

use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);
use MrhttpdCGI qw(cgi_dir script);

my $dir = cgi_dir('cgi-23');
script("$dir/cgi-bin/slow.sh",
	"#!/bin/sh\nsleep 1\nprintf 'Content-Type: text/plain\\n\\nslow\\n'\n");
my $t = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin',
	CGI_DIR => "$dir/cgi-bin" });
$t->has('cgi');
$t->write_file('index.html', "index\n");
$t->run();

sub threads {
	return (slurp('/proc/' . $t->pid . '/status') // '') =~ /^Threads:\s+(\d+)/m ? $1 : -1;
}

# burst(N): N requests for the slow program at once; how many got 200
sub burst {
	my ($n) = @_;
	my @s = map { http_connect() } 1 .. $n;
	http_send($_, "GET /cgi-bin/slow.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		for @s;
	my $ok = 0;
	for my $s (@s) {
		my ($r) = parse_responses(http('', sock => $s, timeout => 20));
		$ok++ if $r && $r->{status} == 200 && $r->{body} =~ /slow/;
	}
	return $ok;
}

my ($r) = parse_responses(http_get('/index.html'));
is($r && $r->{status}, 200, 'a file is served');
my $base = threads();	# the main thread and the turn holder (with any wrapper's own)
cmp_ok($base, '>=', 2, "at rest: $base threads");

is(burst(20), 20, '20 slow programs at once: all served');
my $peak = threads();
cmp_ok($peak, '>=', $base + 15, "... on their own threads ($peak after them)");

# the spares are reused while there is work
is(burst(20), 20, 'a second burst right after it: all served');
cmp_ok(threads(), '<=', $peak + 2, '... on the same threads (' . threads() . ')');

my $deadline = time + 20;
sleep 0.5 while threads() > $base + 1 && time < $deadline;
is(threads(), $base + 1, 'idle for SPARE_IDLE_S: the holder and one spare are left ('
	. threads() . ')');

is(burst(5), 5, 'then a burst again: all served');
($r) = parse_responses(http_get('/index.html'));
is($r && $r->{status}, 200, '... and files too');
$t->done_testing();
