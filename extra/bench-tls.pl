#!/usr/bin/perl
# bench-tls.pl - HTTPS: mrhttpd (TLS=1, mbed TLS) beside lighttpd with
# mod_mbedtls (the same library) and nginx (OpenSSL).  "make bench" runs
# it after extra/bench.sh; doc/PERFORMANCE.md shows the results.
#
# Each server runs alone pinned to CPU 0 (BENCH_SERVER_CPU), the clients
# to CPU 1 (BENCH_CLIENT_CPU); every server speaks TLS 1.2 (mbed TLS 2.28
# has nothing newer, so nginx is held to it too).  The runs:
#   full-ecdsa  full handshakes/s, ECDSA P-256 certificate:
#               openssl s_time -new -tls1_2, two clients at once
#   full-rsa    the same with an RSA-2048 certificate
#   resumed     resumed handshakes/s (tickets): openssl s_time -reuse
#   ka-25B      keep-alive requests/s for a 25-byte file: wrk -c100
#   1MiB        MB/s for a 1 MiB file: wrk -c10
# with the server's CPU time per handshake or request (utime+stime from
# /proc/PID/stat before and after).  BENCH_REPEAT times (default 3), the
# median by rate.  Results: build/bench/tls.md and tls.csv, and stdout.
# BENCH_QUICK=1: one repetition of 2 s runs (a smoke test).
# BENCH_TLS_SERVERS="mrhttpd lighttpd nginx": which, in that order.

use strict;
use warnings;

use File::Path qw(make_path remove_tree);
use POSIX ();
use Time::HiRes qw(time sleep);
use FindBin;
use lib $FindBin::Bin;
use Bench;

chdir((__FILE__ =~ m{^(.*)/} ? $1 : '.') . '/..') or die "chdir: $!\n";
my $quick = $ENV{BENCH_QUICK} ? 1 : 0;
my $repeat = $quick ? 1 : $ENV{BENCH_REPEAT} // 3;
my $secs = $quick ? 2 : 8;
my $scpu = $ENV{BENCH_SERVER_CPU} // 0;
my $ccpu = $ENV{BENCH_CLIENT_CPU} // 1;
my $D = bench_dir('tls');
my $doc = "$D/htdocs";
$ENV{PATH} .= ':/usr/sbin:/sbin';

sub say { print "bench-tls: @_\n" }

# as root on Debian, what is missing is installed (MRHTTPD_NO_INSTALL=1: not)
system('sh', 'tests/install-deps.sh', qw(openssl wrk util-linux libmbedtls-dev
	lighttpd lighttpd-mod-mbedtls nginx-light));
for my $tool (qw(openssl wrk taskset)) {
	next if have($tool);
	say("$tool is missing: no HTTPS figures");
	exit 0;
}

# --- certificates, docroot, builds -----------------------------------------------
make_path("$D/pki", $doc);
sub pki {
	my ($kind, @newkey) = @_;
	return if -s "$D/pki/$kind.key";
	sh('openssl', 'req', '-x509', @newkey, '-nodes', '-keyout',
		"$D/pki/$kind.key", '-out', "$D/pki/$kind.crt", '-days', '365',
		'-subj', '/CN=localhost', '-addext',
		'subjectAltName=DNS:localhost,IP:127.0.0.1') or die "openssl\n";
}
pki('ec', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256');
pki('rsa', '-newkey', 'rsa:2048');
open my $fh, '>', "$doc/25.txt" or die; print $fh 'x' x 24, "\n"; close $fh;
open $fh, '>', "$doc/1m.bin" or die; print $fh 'y' x 1048576; close $fh;

sub build {
	my ($kind) = @_;
	my $b = "$D/mrhttpd-$kind";
	make_path($b);
	open my $c, '>', "$b/bench.conf" or die;
	print $c `cat mrhttpd.conf`, "\nPUBLIC_DIR=$doc\nLOG_LEVEL=0\nDETACH=0\n",
		"MAX_CONNECTIONS=4096\nMAX_CONNECTIONS_PER_IP=0\nTLS=1\n",
		"TLS_CERT=$D/pki/$kind.crt\nTLS_KEY=$D/pki/$kind.key\n";
	close $c;
	sh("make -s BUILD=$b CONF=$b/bench.conf > $b/build.log 2>&1")
		or die "build failed: " . `cat $b/build.log`;
	return "$b/mrhttpd";
}
my %bin = (ec => build('ec'), rsa => build('rsa'));

# --- servers ---------------------------------------------------------------------
sub conf_file {
	my ($name, $kind, $port, $dir) = @_;
	my ($crt, $key) = ("$D/pki/$kind.crt", "$D/pki/$kind.key");
	my $f = "$dir/$name.conf";
	open my $c, '>', $f or die;
	if ($name eq 'lighttpd') {
		print $c <<EOF;
server.document-root = "$doc"
server.bind = "127.0.0.1"
server.port = $port
server.modules = ( "mod_mbedtls" )
server.errorlog = "$dir/error.log"
server.max-keep-alive-requests = 65535
server.max-keep-alive-idle = 15
server.listen-backlog = 4096
ssl.engine = "enable"
ssl.pemfile = "$crt"
ssl.privkey = "$key"
EOF
	} else {
		print $c nginx_conf($dir, $doc, $crt, $key, "$port ssl");
	}
	close $c;
	return $f;
}

# start(NAME, KIND): (pid, port), or () when it cannot run here
sub start {
	my ($name, $kind) = @_;
	my $port = free_port();
	my $dir = "$D/srv/$name-$kind";
	remove_tree($dir);
	make_path($dir);
	my @cmd;
	if ($name eq 'mrhttpd') {
		@cmd = ($bin{$kind}, '-f', '-a', '127.0.0.1', '-p', free_port(),
			'-s', $port);
	} elsif ($name eq 'lighttpd') {
		return () unless have('lighttpd') &&
			-e '/usr/lib/lighttpd/mod_mbedtls.so';
		@cmd = ('lighttpd', '-D', '-f', conf_file($name, $kind, $port, $dir));
	} else {
		return () unless have('nginx');
		@cmd = ('nginx', '-c', conf_file($name, $kind, $port, $dir));
	}
	my $pid = launch($scpu, $port, "$dir/out.log", @cmd);
	return ($pid, $port) if $pid;
	say("$name ($kind) did not start: " . `cat $dir/out.log`);
	return ();
}

# --- the runs ----------------------------------------------------------------------
# run(WHAT, PORT): (count, unit per second) for one run
sub run_client {
	my ($what, $port) = @_;
	my $url = "https://127.0.0.1:$port";
	if ($what =~ /^(full|resumed)/) {
		my $mode = $what eq 'resumed' ? '-reuse' : '-new';
		my @kids;
		for my $i (1 .. 2) {
			my $pid = open(my $out, '-|') // die "fork: $!\n";
			if ($pid == 0) {
				open STDERR, '>', '/dev/null';
				exec('taskset', '-c', $ccpu, 'openssl', 's_time',
					'-connect', "127.0.0.1:$port", $mode,
					'-tls1_2', '-time', $secs) or POSIX::_exit(127);
			}
			push @kids, $out;
		}
		my $n = 0;
		for my $out (@kids) {
			local $/;
			my $text = <$out> // '';
			# the last "N connections in T real seconds" of the run
			my @m = $text =~ /(\d+) connections in [\d.]+s;/g;
			$n += $m[-1] // 0;
			close $out;
		}
		return ($n, $n / $secs);
	}
	my ($c, $path) = $what eq '1MiB' ? (10, '/1m.bin') : (100, '/25.txt');
	my $text = `taskset -c $ccpu wrk -t1 -c$c -d${secs}s $url$path 2>&1`;
	my ($n) = $text =~ /(\d+) requests in/;
	my ($non2xx) = $text =~ /Non-2xx or 3xx responses: (\d+)/;
	my ($err) = $text =~ /Socket errors: (.*)/;
	say("$what: " . ($non2xx // 0) . " non-2xx, errors: $err")
		if $non2xx || ($err && $err =~ /[1-9]/);
	$n //= 0;
	return ($n, $what eq '1MiB' ? $n * 1.048576 / $secs : $n / $secs);
}

my @servers = split ' ', ($ENV{BENCH_TLS_SERVERS} // 'mrhttpd lighttpd nginx');
my @runs = (['full-ecdsa', 'ec'], ['full-rsa', 'rsa'], ['resumed', 'ec'],
	['ka-25B', 'ec'], ['1MiB', 'ec']);
my %res;	# {run}{server} = [ [rate, us per unit], ... ]
for my $rep (1 .. $repeat) {
	for my $name (@servers) {
		for my $kind ('ec', 'rsa') {
			my ($pid, $port) = start($name, $kind) or next;
			for my $r (grep { $_->[1] eq $kind } @runs) {
				my $c0 = cpu($pid);
				my ($n, $rate) = run_client($r->[0], $port);
				my $us = $n ? (cpu($pid) - $c0) * 1e6 / $n : 0;
				push @{ $res{$r->[0]}{$name} }, [$rate, $us];
			}
			stop($pid);
		}
	}
}

# --- report --------------------------------------------------------------------------
my @lines = ('| run | unit | ' . join(' | ', @servers) . ' | mrhttpd / lighttpd | mrhttpd / nginx |',
	'|---|---|' . ('---|' x (@servers + 2)));
open my $csv, '>', "$D/../tls.csv" or die;
print $csv "run,server,rate,cpu_us_per_unit\n";
for my $r (map { $_->[0] } @runs) {
	my %m;
	my @cells;
	for my $s (@servers) {
		my $v = $res{$r}{$s} or do { push @cells, '-'; next };
		$m{$s} = median(@$v);
		printf $csv "%s,%s,%.1f,%.1f\n", $r, $s, @{ $m{$s} };
		push @cells, sprintf('%.0f (%.0f µs)', @{ $m{$s} });
	}
	my $ratio = sub {
		my ($p) = @_;
		return '-' unless $m{mrhttpd} && $m{$p} && $m{$p}[0];
		return sprintf('%.2f', $m{mrhttpd}[0] / $m{$p}[0]);
	};
	push @lines, "| $r | " . ($r eq '1MiB' ? 'MB/s' : $r =~ /^(full|resumed)/
		? 'handshakes/s' : 'req/s') . ' | ' . join(' | ', @cells)
		. ' | ' . $ratio->('lighttpd') . ' | ' . $ratio->('nginx') . ' |';
}
close $csv;
my $table = join("\n", @lines) . "\n";
open my $md, '>', "$D/../tls.md" or die;
print $md "HTTPS, TLS 1.2, medians of $repeat, $secs s runs; server CPU per "
	. "handshake, request or MB in brackets\n\n$table";
close $md;
print "\n$table";
