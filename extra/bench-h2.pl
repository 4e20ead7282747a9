#!/usr/bin/perl
# bench-h2.pl - HTTP/2: mrhttpd (HTTP2=1, nghttp2) beside nghttpd (the
# same library's own server), h2o and nginx, from Debian's packages.
# "make bench" runs it after extra/bench-tls.pl; doc/PERFORMANCE.md shows
# the results.
#
# Each server runs alone pinned to CPU 0 (BENCH_SERVER_CPU), h2load to
# CPU 1 (BENCH_CLIENT_CPU).  The runs, on the 25-byte file:
#   h2c   h2load -c 100 -m 100 -n 500000, cleartext with prior knowledge
#   tls   the same over TLS 1.2 (ALPN h2), -n 200000
# with the server's CPU time per request (utime+stime from /proc/PID/stat
# before and after).  nginx answers only over TLS here (its h2c needs a
# port of its own).  BENCH_REPEAT times (default 3), the median by rate.
# Results: build/bench/h2.md and h2.csv, and stdout.
# BENCH_QUICK=1: one repetition, a tenth of the requests (a smoke test).
# BENCH_H2_SERVERS="mrhttpd nghttpd h2o nginx": which, in that order.

use strict;
use warnings;

use File::Path qw(make_path remove_tree);
use FindBin;
use lib $FindBin::Bin;
use Bench;

chdir("$FindBin::Bin/..") or die "chdir: $!\n";
my $quick = $ENV{BENCH_QUICK} ? 1 : 0;
my $repeat = $quick ? 1 : $ENV{BENCH_REPEAT} // 3;
my $scpu = $ENV{BENCH_SERVER_CPU} // 0;
my $ccpu = $ENV{BENCH_CLIENT_CPU} // 1;
my $D = bench_dir('h2');
my $doc = "$D/htdocs";
$ENV{PATH} .= ':/usr/sbin:/sbin';

sub say { print "bench-h2: @_\n" }

# as root on Debian, what is missing is installed (MRHTTPD_NO_INSTALL=1: not)
system('sh', 'tests/install-deps.sh', qw(openssl util-linux libmbedtls-dev
	libnghttp2-dev nghttp2-client nghttp2-server h2o nginx-light));
for my $tool (qw(openssl h2load taskset)) {
	next if have($tool);
	say("$tool is missing: no HTTP/2 figures");
	exit 0;
}

# --- certificate, docroot, build ------------------------------------------------
make_path("$D/pki", $doc);
my ($crt, $key) = ("$D/pki/ec.crt", "$D/pki/ec.key");
-s $key or sh('openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt',
	'ec_paramgen_curve:P-256', '-nodes', '-keyout', $key, '-out', $crt,
	'-days', '365', '-subj', '/CN=localhost', '-addext',
	'subjectAltName=DNS:localhost,IP:127.0.0.1') or die "openssl\n";
open my $fh, '>', "$doc/25.txt" or die; print $fh 'x' x 24, "\n"; close $fh;

my $bin = "$D/mrhttpd/mrhttpd";
make_path("$D/mrhttpd");
open my $c, '>', "$D/mrhttpd/bench.conf" or die;
print $c `cat mrhttpd.conf`, "\nPUBLIC_DIR=$doc\nLOG_LEVEL=0\nDETACH=0\n",
	"MAX_CONNECTIONS=4096\nMAX_CONNECTIONS_PER_IP=0\nTLS=1\n",
	"TLS_CERT=$crt\nTLS_KEY=$key\nHTTP2=1\n";
close $c;
sh("make -s BUILD=$D/mrhttpd CONF=$D/mrhttpd/bench.conf > $D/mrhttpd/build.log 2>&1")
	or die "build failed: " . `cat $D/mrhttpd/build.log`;

# --- servers ---------------------------------------------------------------------
# conf(NAME, PLAIN, TLS, DIR): the peer's configuration file, fair to it:
# one process or thread, no access log, sendfile where it has it
sub conf {
	my ($name, $plain, $tls, $dir) = @_;
	my $f = "$dir/$name.conf";
	open my $o, '>', $f or die;
	if ($name eq 'h2o') {
		print $o <<EOF;
listen:
  host: 127.0.0.1
  port: $plain
listen:
  host: 127.0.0.1
  port: $tls
  ssl:
    certificate-file: $crt
    key-file: $key
    minimum-version: TLSv1.2
num-threads: 1
max-connections: 8192
user: root
error-log: $dir/error.log
hosts:
  "default":
    paths:
      /:
        file.dir: $doc
EOF
	} else {
		print $o nginx_conf($dir, $doc, $crt, $key, "$tls ssl http2",
			'http2_max_requests 1000000000;',
			'http2_max_concurrent_streams 128;');
	}
	close $o;
	return $f;
}

# start(NAME): (pid, plain port or undef, TLS port), or ()
sub start {
	my ($name) = @_;
	my ($plain, $tls) = (free_port(), free_port());
	my $dir = "$D/srv/$name";
	remove_tree($dir);
	make_path($dir);
	my @cmd;
	if ($name eq 'mrhttpd') {
		@cmd = ($bin, '-f', '-a', '127.0.0.1', '-p', $plain, '-s', $tls);
	} elsif ($name eq 'nghttpd') {
		return () unless have('nghttpd');
		# two of them: nghttpd serves h2c or TLS, not both
		@cmd = ('nghttpd', '-n', '1', '-a', '127.0.0.1', '-d', $doc,
			$tls, $key, $crt);
		my $p2 = launch($scpu, $plain, "$dir/plain.log", 'nghttpd',
			'--no-tls', '-n', '1', '-a', '127.0.0.1', '-d', $doc,
			$plain) or return ();
		my $p1 = launch($scpu, $tls, "$dir/out.log", @cmd)
			or do { stop($p2); return () };
		return ([$p2, $p1], $plain, $tls);
	} elsif ($name eq 'h2o') {
		return () unless have('h2o');
		@cmd = ('h2o', '-c', conf($name, $plain, $tls, $dir));
	} else {
		return () unless have('nginx');
		@cmd = ('nginx', '-c', conf($name, undef, $tls, $dir));
		$plain = undef;
	}
	my $pid = launch($scpu, $tls, "$dir/out.log", @cmd);
	return ([$pid], $plain, $tls) if $pid;
	say("$name did not start: " . `cat $dir/out.log`);
	return ();
}

# run(URL, N): (requests done, req/s, failed)
sub run_client {
	my ($url, $n) = @_;
	my $text = `taskset -c $ccpu h2load -c 100 -m 100 -n $n $url 2>&1`;
	my ($rate) = $text =~ /finished in [\d.]+m?s, ([\d.]+) req\/s/;
	my ($done, $ok, $failed) = $text =~
	    /requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed/;
	say("$url: $failed failed") if $failed;
	return ($ok // 0, $rate // 0, $failed // 0);
}

my @servers = split ' ', ($ENV{BENCH_H2_SERVERS} // 'mrhttpd nghttpd h2o nginx');
my %n = (h2c => 500000, tls => 200000);
$n{$_} /= 10 for $quick ? keys %n : ();
my %res;	# {run}{server} = [ [rate, us per request], ... ]
for my $rep (1 .. $repeat) {
	for my $name (@servers) {
		my ($pids, $plain, $tls) = start($name) or next;
		for my $run ('h2c', 'tls') {
			my $port = $run eq 'h2c' ? $plain : $tls;
			next unless $port;
			# nghttpd: the process for this run
			my $pid = $name eq 'nghttpd' ? $pids->[$run eq 'tls'] : $pids->[0];
			my $c0 = cpu($pid);
			my ($ok, $rate) = run_client(($run eq 'tls' ? 'https' : 'http')
				. "://127.0.0.1:$port/25.txt", $n{$run});
			my $us = $ok ? (cpu($pid) - $c0) * 1e6 / $ok : 0;
			push @{ $res{$run}{$name} }, [$rate, $us];
		}
		stop($_) for @$pids;
	}
}

# --- report --------------------------------------------------------------------------
my @peers = grep { $_ ne 'mrhttpd' } @servers;
my @lines = ('| run | ' . join(' | ', @servers) . ' | '
	. join(' | ', map { "mrhttpd / $_" } @peers) . ' |',
	'|---|' . ('---|' x (@servers + @peers)));
open my $csv, '>', "$D/../h2.csv" or die;
print $csv "run,server,req_per_s,cpu_us_per_req\n";
for my $run ('h2c', 'tls') {
	my (%m, @cells);
	for my $s (@servers) {
		my $v = $res{$run}{$s} or do { push @cells, '-'; next };
		$m{$s} = median(@$v);
		printf $csv "%s,%s,%.1f,%.2f\n", $run, $s, @{ $m{$s} };
		push @cells, sprintf('%.0f (%.2f µs)', @{ $m{$s} });
	}
	push @cells, map { $m{mrhttpd} && $m{$_} && $m{$_}[0] ? sprintf('%.2f',
		$m{mrhttpd}[0] / $m{$_}[0]) : '-' } @peers;
	push @lines, "| $run | " . join(' | ', @cells) . ' |';
}
close $csv;
my $table = join("\n", @lines) . "\n";
open my $md, '>', "$D/../h2.md" or die;
print $md "HTTP/2, h2load -c 100 -m 100, the 25-byte file, medians of "
	. "$repeat: req/s, server CPU per request in brackets\n\n$table";
close $md;
print "\n$table";
