#!/usr/bin/perl
# memusage.pl - memory of a running mrhttpd: idle, and per open keep-alive
# connection.
#
# usage: extra/memusage.pl [-n CONNECTIONS] [-s BYTES] [-t] [-2] [-q] BINARY
#
# Starts BINARY in the foreground on a free port of 127.0.0.1 with a
# temporary document root, and reads VmRSS and VmHWM from /proc/PID/status:
#   1. idle, half a second after it started listening;
#   2. after CONNECTIONS (default 1000) clients have each connected, made one
#      request for a file of BYTES (default 100), read the whole reply, and
#      stayed connected (keep-alive).
# The difference divided by CONNECTIONS is the memory one idle keep-alive
# connection costs: the thread's stack pages and whatever else it touched.
# The kernel's socket buffers are not part of any RSS.
#
# The server must allow CONNECTIONS at once (MAX_CONNECTIONS) and keep a
# connection open longer than this takes (KEEPALIVE_TIMEOUT, 15 s by
# default; a thousand requests take well under a second).
#
# -t: BINARY is a TLS=1 build (its certificate compiled in), and the
# connections are HTTPS ones, each an openssl s_client kept running
# (default 100 of them).
# -2: BINARY is an HTTP2=1 build, and each connection speaks HTTP/2: the
# preface, then the GET as stream 1 (over TLS too, with -t: ALPN h2).
# -q prints key=value lines for scripts (extra/size.sh) instead of a table.
# The numbers are the kernel's, in KiB, as /proc/PID/status gives them.

use strict;
use warnings;

use File::Temp qw(tempdir);
use Getopt::Std;
use IPC::Open2 qw(open2);
use IO::Socket::IP;
use POSIX qw(WNOHANG);
use Time::HiRes qw(time sleep);
use FindBin;
use lib "$FindBin::Bin/../tests/lib";
use MrhttpdH2 qw(h2_preface h2_settings h2_headers);

my @args = @ARGV;	# for the re-exec below
my %opt;
getopts('n:qs:t2', \%opt) && @ARGV == 1
	or die "usage: $0 [-n CONNECTIONS] [-s BYTES] [-t] [-2] [-q] BINARY\n";
my $bin = $ARGV[0];
my $n = $opt{n} // ($opt{t} ? 100 : 1000);
my $bytes = $opt{s} // 100;
-x $bin or die "$0: $bin is not an executable\n";

# Clients and server need a descriptor per connection, the server maybe
# more (it keeps files open): raise the soft limit to the hard one, through
# the shell (Perl has no setrlimit of its own), once.
if (!$ENV{MEMUSAGE_REEXEC}) {
	$ENV{MEMUSAGE_REEXEC} = 1;
	{ exec('sh', '-c', 'ulimit -Sn "$(ulimit -Hn)"; exec "$@"', 'sh',
		$^X, $0, @args); }
	die "exec sh: $!\n";
}
chomp(my $nofile = `sh -c 'ulimit -n'`);
warn "$0: descriptor limit $nofile is low for $n connections\n"
	if $nofile ne 'unlimited' && $nofile < 2 * $n + 64;

my $dir = tempdir('mrhttpd-mem-XXXXXXXX', TMPDIR => 1, CLEANUP => 1);
mkdir "$dir/htdocs" or die "mkdir: $!\n";
open my $fh, '>', "$dir/htdocs/a.txt" or die "write: $!\n";
print $fh "x" x $bytes;
close $fh;

# A free port: bind port 0, note it, let it go.
sub free_port {
	my $probe = IO::Socket::IP->new(LocalHost => '127.0.0.1',
		LocalPort => 0, Listen => 1) or die "socket: $@\n";
	return $probe->sockport;
}
my $port = free_port();
my @tls = $opt{t} ? ('-s', free_port()) : ();

my $pid = fork() // die "fork: $!\n";
if ($pid == 0) {
	open STDIN, '<', '/dev/null';
	open STDOUT, '>', "$dir/stdout.log";
	open STDERR, '>', "$dir/stderr.log";
	{ exec $bin, '-f', '-p', $port, '-a', '127.0.0.1', '-r', "$dir/htdocs",
		@tls; }
	POSIX::_exit(127);
}
END { if ($pid) { kill 'KILL', $pid; waitpid($pid, 0) } }

# Wait until it listens, without connecting: a probe connection would be
# served, and wake workers that an idle server does not have.
my $deadline = time + 10;
until (listening($port)) {
	if (waitpid($pid, WNOHANG) == $pid || time > $deadline) {
		$pid = 0;
		die "$0: $bin did not start:\n" . `cat $dir/stderr.log`;
	}
	sleep 0.02;
}
sleep 0.5;
my %idle = status($pid);

my @conns;
my $req = "GET /a.txt HTTP/1.1\r\nHost: localhost\r\n\r\n";
# HTTP/2: the reply is complete with stream 1's DATA frame that ends it
# (a 9-byte header: length, type 0, flags with END_STREAM, stream 1)
my $done = qr/\r\n\r\nx{$bytes}/;
if ($opt{2}) {
	$req = h2_preface() . h2_settings() . h2_headers(1, '/a.txt');
	$done = qr/\x00\x00.\x00[\x01\x09]\x00\x00\x00\x01x{$bytes}/s;
}
for my $i (1 .. $n) {
	if ($opt{t}) {	# HTTPS: an s_client per connection, left running
		my $cpid = open2(my $out, my $in, 'sh', '-c', 'exec openssl '
			. "s_client -quiet -connect 127.0.0.1:$tls[1] "
			. ($opt{2} ? '-alpn h2 ' : '') . '2>/dev/null');
		binmode $_ for $in, $out;
		print $in $req;
		$in->flush;
		my $buf = '';
		while ($buf !~ $done) {
			my $r = sysread($out, $buf, 4096, length $buf);
			die "$0: TLS connection $i closed or failed\n" unless $r;
		}
		push @conns, [$cpid, $in, $out];
		next;
	}
	# from 127.0.0.1 to 127.0.0.16 in turn, 64 each per thousand, so that
	# MAX_CONNECTIONS_PER_IP (a quarter of the slots) lets them all in
	my $from = '127.0.0.' . (1 + $i % 16);
	my $s = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port,
		LocalHost => $from, Timeout => 5) or die "$0: connection $i: $@\n";
	syswrite($s, $req) == length $req or die "$0: send $i: $!\n";
	my $buf = '';
	while ($buf !~ $done) {
		my $r = sysread($s, $buf, 4096, length $buf);
		die "$0: connection $i closed or failed\n" unless $r;
	}
	$opt{2} || $buf =~ /^HTTP\/1\.1 200 /
		or die "$0: connection $i: unexpected reply: "
		. substr($buf, 0, 40) . "\n";
	push @conns, $s;
}
sleep 0.5;
my %busy = status($pid);
my $alive = $opt{t} ? kill(0, map { $_->[0] } @conns) :
	grep { defined $_->connected } @conns;
if ($opt{t}) {
	kill 'TERM', map { $_->[0] } @conns;
	waitpid($_->[0], 0) for @conns;
}
close $_ for grep { ref $_ ne 'ARRAY' } @conns;

kill 'TERM', $pid;
waitpid($pid, 0);
$pid = 0;

my $per = ($busy{VmRSS} - $idle{VmRSS}) / $n;
if ($opt{q}) {
	print "idle_rss_kb=$idle{VmRSS}\nidle_hwm_kb=$idle{VmHWM}\n",
		"conns=$n\nfile_bytes=$bytes\nbusy_rss_kb=$busy{VmRSS}\nbusy_hwm_kb=$busy{VmHWM}\n",
		"threads=$busy{Threads}\n",
		sprintf("per_conn_kb=%.2f\n", $per);
} else {
	printf "%-28s %8s %8s %8s\n", '', 'VmRSS', 'VmHWM', 'threads';
	printf "%-28s %5d kB %5d kB %8d\n", 'idle after start-up',
		@idle{qw(VmRSS VmHWM Threads)};
	printf "%-28s %5d kB %5d kB %8d\n", "$n keep-alive, $bytes-byte GET",
		@busy{qw(VmRSS VmHWM Threads)};
	printf "%-28s %8.2f kB\n", 'per connection (VmRSS)', $per;
}
warn "$0: only $alive of $n connections were still open at the end\n"
	if $alive < $n;

# True when a TCP socket listens on port (state 0A in /proc/net/tcp{,6}).
sub listening {
	my ($p) = @_;
	my $hex = sprintf ':%04X', $p;
	for my $f ('/proc/net/tcp', '/proc/net/tcp6') {
		open my $fh, '<', $f or next;
		while (<$fh>) {
			my @c = split;
			return 1 if @c > 3 && $c[1] =~ /\Q$hex\E$/ && $c[3] eq '0A';
		}
	}
	return 0;
}

# VmRSS, VmHWM (kB) and Threads of a process.
sub status {
	my ($p) = @_;
	open my $st, '<', "/proc/$p/status" or die "/proc/$p/status: $!\n";
	my %v;
	while (<$st>) {
		$v{$1} = $2 if /^(VmRSS|VmHWM|Threads):\s+(\d+)/;
	}
	return %v;
}
