package Bench;
# Bench.pm - what the Perl benchmarks share (extra/bench-tls.pl,
# extra/bench-h2.pl): servers started alone, pinned to one CPU, and
# stopped; their CPU time; free ports; medians.

use strict;
use warnings;
use Exporter 'import';
use File::Spec;
use IO::Socket::INET;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time sleep);

our @EXPORT = qw(have sh bench_dir free_port launch stop cpu median nginx_conf);

my @started;
my $hz = POSIX::sysconf(POSIX::_SC_CLK_TCK()) || 100;

sub have { my ($p) = @_; return grep { -x "$_/$p" } split /:/, $ENV{PATH} }
sub sh { my $rc = system(@_); return $rc == 0 }

# bench_dir(NAME): NAME under BENCH_DIR (default build/bench), which may
# be absolute or relative to the current directory, as for bench.sh
sub bench_dir {
	return File::Spec->rel2abs($ENV{BENCH_DIR} // 'build/bench') . "/$_[0]";
}

sub free_port {
	my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1',
		LocalPort => 0) or die "socket: $@\n";
	return $s->sockport;
}

# launch(CPU, PORT, LOG, @cmd): the command pinned to CPU, its output in
# LOG; its pid once PORT accepts, or undef (then LOG says why).
sub launch {
	my ($cpu, $port, $log, @cmd) = @_;
	my $pid = fork() // die "fork: $!\n";
	if ($pid == 0) {
		open STDIN, '<', '/dev/null';
		open STDOUT, '>', $log;
		open STDERR, '>&', \*STDOUT;
		exec('taskset', '-c', $cpu, @cmd) or POSIX::_exit(127);
	}
	push @started, $pid;
	for (1 .. 100) {
		return $pid if IO::Socket::INET->new(PeerAddr => '127.0.0.1',
			PeerPort => $port);
		last if waitpid($pid, WNOHANG) == $pid;
		sleep 0.1;
	}
	stop($pid);
	return;
}

sub stop {
	my ($pid) = @_;
	kill 'TERM', $pid;
	for (1 .. 80) { last if waitpid($pid, WNOHANG) == $pid; sleep 0.1 }
	kill 'KILL', $pid;
	waitpid($pid, 0);
	@started = grep { $_ != $pid } @started;
}
END { stop($_) for @started }

# cpu(PID): seconds of CPU of a server and its children (nginx's worker)
sub cpu {
	my ($pid) = @_;
	my $t = 0;
	for my $st (glob('/proc/[0-9]*/stat')) {
		open my $f, '<', $st or next;
		my $l = <$f> // next;
		$l =~ s/^.*\) //;
		my @f = split ' ', $l;
		$t += $f[11] + $f[12] if $st eq "/proc/$pid/stat" || $f[1] == $pid;
	}
	return $t / $hz;
}

# median(LIST of [rate, ...]): the one in the middle by rate
sub median {
	my @s = sort { $a->[0] <=> $b->[0] } @_;
	return $s[$#s / 2];
}

# nginx_conf(DIR, DOC, CRT, KEY, LISTEN, @http): nginx's configuration
# text, fair to it: one worker, no access log, sendfile, keep-alive
# without end; one TLS 1.2 server on LISTEN ("PORT ssl ..."), with the
# @http lines added to its http block.
sub nginx_conf {
	my ($dir, $doc, $crt, $key, $listen, @http) = @_;
	my $user = $> == 0 ? 'user root;' : '';
	my $more = join('', map { "\t$_\n" } @http);
	return <<EOF;
$user
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log error;
events { worker_connections 4096; }
http {
	access_log off;
	sendfile on;
	keepalive_requests 1000000000;
	keepalive_timeout 15s;
$more	client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir;
	uwsgi_temp_path $dir; scgi_temp_path $dir;
	server {
		listen 127.0.0.1:$listen backlog=4096;
		ssl_certificate $crt;
		ssl_certificate_key $key;
		ssl_protocols TLSv1.2;
		ssl_session_tickets on;
		root $doc;
	}
}
EOF
}

1;
