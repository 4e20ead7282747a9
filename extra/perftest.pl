#!/usr/bin/perl
# perftest.pl - the release load test of mrhttpd 2.x, rewritten: drives
# ab(1) against one HTTP server and prints one CSV line per run, so that
# any server can be compared the way the 2.x documentation did.
#
# usage: extra/perftest.pl [options] PORT [HOST [STATIC_PATH [CGI_PATH]]]
#
#   PORT          port of the server under test
#   HOST          its address (default 127.0.0.1)
#   STATIC_PATH   a small static file (default /index.html)
#   CGI_PATH      a CGI program (default /cgi-bin/perftest.sh); when it
#                 does not answer 2xx, or answers with the program itself
#                 (a build without CGI_PATH), the CGI series is skipped
#                 with a note on stderr
#
# options:
#   --quick       a tiny series, for smoke tests (a few seconds)
#   --time=S      cap each ab run at S seconds (ab -t, default 30)
#   --pin=CPU     run ab pinned to CPU with taskset (pin the server
#                 elsewhere yourself)
#   --ab=PATH     the ab binary (default ab)
#   --no-header   leave out the CSV header line
#
# Series (each one ab run, one CSV line):
#   CGI, no keep-alive, at concurrency 1, 10, 100, 1000;
#   the static file with keep-alive, then without, at concurrency
#   1, 10, 100, 1000, 10000, 20000.
# A concurrency level that needs more file descriptors than RLIMIT_NOFILE
# allows (the script raises it to the hard limit first) is skipped with a
# note on stderr.  Notes and ab's own errors go to stderr; stdout is CSV.
#
# Columns: the 2.x columns first (kernel version, server name from the
# Server header, keep-alive, requests per second, transfer rate in KB/s,
# longest request in ms), then the test, the concurrency, the number of
# requests completed and the failed ones (ab's failed plus non-2xx).
#
# For comparable figures run the server with logging off and give it a
# CPU of its own, e.g. taskset -c 0 for the server and --pin=1 here.
# ab is one client address: build mrhttpd with MAX_CONNECTIONS_PER_IP=0
# (and MAX_CONNECTIONS=30000) for the runs above a quarter of
# MAX_CONNECTIONS, or they fail with 503s, as they should.

use strict;
use warnings;

use Getopt::Long qw(GetOptions);
use IO::Socket::INET;
use POSIX qw(uname);

# The descriptor limit can only be raised by a shell here (setrlimit is not
# in core Perl): re-run ourselves once under "ulimit -n <hard limit>".
if (!$ENV{PERFTEST_NOFILE_RAISED}) {
	$ENV{PERFTEST_NOFILE_RAISED} = 1;
	exec('/bin/sh', '-c',
	    'ulimit -n "$(ulimit -H -n)" 2>/dev/null; exec "$@"',
	    'sh', $^X, $0, @ARGV) or warn "perftest: cannot re-exec: $!\n";
}

my %opt = (time => 30, ab => 'ab');
GetOptions(\%opt, 'quick', 'time=i', 'pin=i', 'ab=s', 'no-header', 'help')
    or usage(2);
usage(0) if $opt{help};
usage(2) if @ARGV < 1 || @ARGV > 4;
my ($port, $host, $static, $cgi) = @ARGV;
$host //= '127.0.0.1';
$static //= '/index.html';
$cgi //= '/cgi-bin/perftest.sh';
usage(2) unless $port =~ /^\d+$/ && $port > 0 && $port < 65536;
for ($static, $cgi) {
	die "perftest: path '$_' must start with /\n" unless m{^/};
}

# ab counts a connection, stdio and a few files of its own.
my $nofile = `sh -c 'ulimit -n'`;
chomp $nofile;
$nofile = 1024 if $nofile !~ /^\d+$/;	# "unlimited" is not seen on Linux
my $FD_SPARE = 32;
my $AB_MAX = 20000;	# ab refuses a higher concurrency

my $kernel = (uname())[2];
my $hosturl = $host =~ /:/ ? "[$host]" : $host;

# The series: [test, keep-alive, concurrency, requests].
my @runs;
if ($opt{quick}) {
	push @runs, ['cgi', 0, $_, 20] for (1, 4);
	for my $ka (1, 0) {
		push @runs, ['static', $ka, $_, 200] for (1, 10);
	}
} else {
	push @runs, ['cgi', 0, $_, requests_cgi($_)] for (1, 10, 100, 1000);
	for my $ka (1, 0) {
		push @runs, ['static', $ka, $_, requests_static($_)]
		    for (1, 10, 100, 1000, 10000, 20000);
	}
}

# Enough requests that a run lasts a few seconds at 100k/s, and at least
# 100 per client; --time cuts the slow ones short.
sub requests_static {
	my ($c) = @_;
	my $n = $c * 1000;
	$n = 20000 if $n < 20000;
	$n = 1000000 if $n > 1000000;
	return $n;
}

# CGI forks per request: a few hundred per second is usual.
sub requests_cgi {
	my ($c) = @_;
	my $n = $c * 10;
	return $n < 2000 ? 2000 : $n;
}

my ($status, $server) = probe($static);
die "perftest: http://$hosturl:$port$static answers "
    . ($status // 'nothing') . ", expected 200\n"
    unless defined $status && $status =~ /^2/;
my ($cgi_status) = probe($cgi);
my $skip_cgi;
if (!defined $cgi_status || $cgi_status !~ /^2/) {
	$skip_cgi = 1;
	note("CGI series skipped: $cgi answers " . ($cgi_status // 'nothing')
	    . ($cgi_status && $cgi_status eq '404' ? ' (no CGI here?)' : ''));
}

print join(',', 'Kernel Version', 'Server', 'Keep-Alive',
    'Requests per second', 'Rate [KB/s]', 'Max. time [ms]', 'Test',
    'Concurrency', 'Requests', 'Failed requests'), "\n"
    unless $opt{'no-header'};
$| = 1;

my $first = 1;
for my $r (@runs) {
	my ($test, $ka, $c, $n) = @$r;
	next if $test eq 'cgi' && $skip_cgi;
	if ($c > $AB_MAX || $c + $FD_SPARE > $nofile) {
		note("skipped $test c=$c: needs about " . ($c + $FD_SPARE)
		    . " file descriptors, the limit is $nofile");
		next;
	}
	# let the sockets of the previous run leave TIME_WAIT and the
	# server settle
	sleep($opt{quick} ? 0 : 2) unless $first;
	$first = 0;
	my $res = run_ab($test eq 'cgi' ? $cgi : $static, $ka, $c, $n);
	print join(',', map { csv($_) } $kernel,
	    $res->{server} // $server // '', $ka ? 'yes' : 'no',
	    $res->{rps} // '', $res->{rate} // '', $res->{max} // '',
	    $test, $c, $res->{complete} // 0, $res->{failed} // $n), "\n";
}
exit 0;

# Runs one ab; returns a hash of what it reported.
sub run_ab {
	my ($path, $ka, $c, $n) = @_;
	# -r: a reset connection is a failed request, not the end of ab;
	# -t before -n, so that -n still applies and -t only caps the time
	my @cmd = ($opt{ab}, '-r', '-t', $opt{time}, '-n', $n, '-c', $c,
	    ($ka ? '-k' : ()), "http://$hosturl:$port$path");
	unshift @cmd, 'taskset', '-c', $opt{pin} if defined $opt{pin};
	my $pid = open(my $fh, '-|');
	die "perftest: fork: $!\n" unless defined $pid;
	if ($pid == 0) {
		open(STDERR, '>&', \*STDOUT) or die;
		exec(@cmd) or die "perftest: cannot run $cmd[0]: $!\n";
	}
	my %res;
	my $out = '';
	my $non2xx = 0;
	while (<$fh>) {
		$out .= $_;
		$res{server} = $1 if /^Server Software:\s+(\S+)/;
		$res{complete} = $1 if /^Complete requests:\s+(\d+)/;
		$res{failed} = $1 if /^Failed requests:\s+(\d+)/;
		$non2xx = $1 if /^Non-2xx responses:\s+(\d+)/;
		$res{rps} = $1 if /^Requests per second:\s+([\d.]+)/;
		$res{rate} = $1 if /^Transfer rate:\s+([\d.]+)/;
		$res{max} = $1 if /^\s*100%\s+(\d+)/;
	}
	close($fh);
	if (!defined $res{rps}) {
		# ab gave up (connection refused, timeout): show why
		print STDERR "perftest: @cmd: no result:\n", $out;
		$res{complete} //= 0;
		$res{failed} = $n - $res{complete};
		return \%res;
	}
	$res{failed} += $non2xx;
	return \%res;
}

# Sends one GET; returns the status code and the Server header, or nothing.
# A body starting with "#!" counts as a failure: a CGI program served as a
# file.
sub probe {
	my ($path) = @_;
	my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port,
	    Proto => 'tcp', Timeout => 5) or return;
	print $s "GET $path HTTP/1.0\r\nHost: $hosturl:$port\r\n\r\n";
	my ($head, $body) = ('');
	local $SIG{ALRM} = sub { die "timeout\n" };
	eval {
		alarm(10);
		while (<$s>) {
			last if /^\r?\n\z/;
			$head .= $_;
		}
		$body = <$s>;
		alarm(0);
	};
	alarm(0);
	close($s);
	my ($status) = $head =~ m{^HTTP/\d\.\d (\d{3})};
	my ($server) = $head =~ /^Server:[ \t]*(\S+)/mi;
	# a server without CGI may send the program itself
	$status = 'the program as a file' if defined $body && $body =~ /^#!/;
	return ($status, $server);
}

sub csv {
	my ($v) = @_;
	return $v unless $v =~ /[",\n]/;
	$v =~ s/"/""/g;
	return qq{"$v"};
}

sub note {
	print STDERR "perftest: @_\n";
}

sub usage {
	my ($code) = @_;
	open(my $self, '<', $0) or exit $code;
	while (<$self>) {
		next if $. == 1;
		last unless /^#/;
		s/^# ?//;
		print { $code ? *STDERR : *STDOUT } $_;
	}
	exit $code;
}
