#!/usr/bin/perl
# make bench, as a smoke test: BENCH_QUICK=1 extra/bench.sh runs every run
# once against mrhttpd (and the peers that are installed) and exits 0, with
# a results.csv row per run and no failed request for mrhttpd, and a chart
# when gnuplot is there.  Interrupted, it stops the servers it started.
# Speed is never asserted: this machine may be busy.

use strict;
use warnings;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use POSIX qw(WNOHANG);
use Test::More;
use Time::HiRes qw(sleep);

my $root = abs_path(dirname(abs_path(__FILE__)) . '/../..');
my @runs = qw(ka100 close100 wrk4k ka1000 1mib cgi);	# BENCH_QUICK's list

# extra/bench.sh builds its own binary: the same in every pass
plan skip_all => 'the benchmark runs in the plain pass only'
	if $ENV{MRHTTPD_SANITIZE} || $ENV{MRHTTPD_TEST_CONF};
plan skip_all => 'the benchmark builds and runs a native binary'
	if $ENV{RUN_WRAPPER} || $ENV{CROSS_COMPILE} || $ENV{MRHTTPD_TEST_BINARY};

sub have {
	return system('sh', '-c', "command -v $_[0] >/dev/null 2>&1") == 0;
}

if (!have('ab') || !have('wrk')) {
	# as root on Debian this installs them; otherwise it only lists them
	my $out = `sh '$root/tests/install-deps.sh' apache2-utils wrk 2>&1`;
	note($out);
}
for my $tool (qw(ab wrk perl taskset)) {
	plan skip_all => "'$tool' is not installed" unless have($tool);
}

my $dir = tempdir('mrhttpd-bench-XXXXXXXX', TMPDIR => 1,
	CLEANUP => !$ENV{MRHTTPD_TEST_LEAVE});
diag("bench dir $dir") if $ENV{MRHTTPD_TEST_LEAVE};

# Starts extra/bench.sh with extra environment; returns its pid and output.
sub bench_start {
	my (%env) = @_;
	my $pid = open(my $fh, '-|') // die "fork: $!";
	if ($pid == 0) {
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(126);
		open(STDIN, '<', '/dev/null');
		# a shell may not trap a signal ignored when it started (POSIX):
		# a run started in the background, as by "cmd &", ignores SIGINT
		$SIG{INT} = 'DEFAULT';
		chdir $root or POSIX::_exit(126);
		@ENV{keys %env} = values %env;
		$ENV{BENCH_QUICK} = 1;
		$ENV{BENCH_DIR} = $dir;
		exec('sh', 'extra/bench.sh') or POSIX::_exit(127);
	}
	return ($pid, $fh);
}

sub gone {
	my ($pid) = @_;
	for (1 .. 50) {
		open(my $st, '<', "/proc/$pid/stat") or return 1;
		my $line = <$st> // '';
		return 1 if $line =~ /\) Z /;
		sleep(0.1);
	}
	return 0;
}

# --- the smoke run ---
my ($pid, $fh) = bench_start();
my $out = do { local $/; <$fh> } // '';
close($fh);
my $rc = $? >> 8;
is($rc, 0, 'BENCH_QUICK=1 extra/bench.sh exits 0') or diag($out);

my %col;
my %row;	# run => { column => value } for mrhttpd
if (open(my $csv, '<', "$dir/results.csv")) {
	my @head = split /,/, scalar(<$csv>) // '';
	chomp @head;
	@col{@head} = (0 .. $#head);
	while (<$csv>) {
		chomp;
		my @f = split /,/, $_, -1;
		next unless $f[0] eq 'mrhttpd';
		$row{$f[$col{run}]} = { map { $_ => $f[$col{$_}] } @head };
	}
}
ok(exists $col{$_}, "results.csv has a $_ column")
	for qw(server run requests failed rps cpu_us_per_req peak_rss_kb
	rps_ratio cpu_ratio note);

for my $run (@runs) {
	my $r = $row{$run};
	if (!$r) {
		fail("$run: a row for mrhttpd");
		next;
	}
	if ($r->{note} =~ /^n\/a/) {
		# mrhttpd has no CGI yet: the CGI run is "n/a", nothing else is
		is($run, 'cgi', "$run: n/a ($r->{note})");
		next;
	}
	ok($r->{requests} > 0, "$run: mrhttpd answered requests");
	is($r->{failed}, 0, "$run: no failed request for mrhttpd");
	like($r->{peak_rss_kb}, qr/^\d+$/, "$run: peak RSS recorded");
}

if (have('gnuplot')) {
	my $png = '';
	if (open(my $p, '<:raw', "$dir/results.png")) {
		read($p, $png, 8);
	}
	is($png, "\x89PNG\r\n\x1a\n", 'results.png is a PNG');
} else {
	note('no gnuplot: no chart expected');
}

# Every server the run started is gone.
my @pids = $out =~ /: pid (\d+), port /g;
ok(@pids >= 1, 'the output names the server PIDs');
ok(gone($_), "server pid $_ stopped") for @pids;

# --- interrupted: the trap stops the server and exits 130 ---
($pid, $fh) = bench_start(BENCH_SERVERS => 'mrhttpd');
my ($server, $seen) = (undef, '');
while (<$fh>) {
	$seen .= $_;
	if (/mrhttpd\S*: pid (\d+), port /) {
		$server = $1;
		kill('INT', $pid);
		last;
	}
}
$seen .= do { local $/; <$fh> } // '';
close($fh);
ok(defined $server, 'the interrupted run started mrhttpd') or diag($seen);
is($? & 127 ? 128 + ($? & 127) : $? >> 8, 130, 'SIGINT: exit status 130');
ok(defined $server && gone($server), 'SIGINT: mrhttpd stopped');

done_testing();
