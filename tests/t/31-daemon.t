#!/usr/bin/perl
# DETACH=1 and stopping (root only, in a BusyBox jail as nobody): the
# launching process returns 0 only once the port answers, the server runs
# in its own session and writes PID_FILE; a failed detached start returns
# non-zero; SIGTERM during a slow download lets it finish intact, refuses
# new connections at once and exits 0 within the 5 s grace time.

use strict;
use warnings;

use Digest::MD5 qw(md5 md5_hex);
use IO::Select;
use IO::Socket::IP;
use Socket qw(SOL_SOCKET SO_RCVBUF);
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);
use MrhttpdJail qw(proc_ids proc_stat run_timed port_free);

my $dir = MrhttpdJail::setup('jail-31');
my $j = MrhttpdJail::make_jail("$dir/jail");
my ($jail, $marker) = @$j{qw(dir marker)};
my ($nuid) = MrhttpdJail::nobody();
my $pidfile = "$dir/mrhttpd.pid";

my $t = MrhttpdTest->new(conf => MrhttpdJail::conf($jail,
	PID_FILE => $pidfile, DETACH => 1));
$t->has(qw(detach pid-file chroot setuid));
my $bin = $t->binary;


# launch(@args): starts the binary without -f, stdout and stderr into one
# pipe.  Returns { rc, secs, pid (of the launcher), eof (seconds from the
# launcher's exit until the pipe closed, undef if it stayed open 2 s),
# out }.  The connect right after the launcher's exit is in {connected}.
sub launch {
	my ($port, @args) = @_;
	pipe(my $r, my $w) or die "pipe: $!";
	my $t0 = time;
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		close $r;
		open STDIN, '<', '/dev/null';
		open STDOUT, '>&', $w;
		open STDERR, '>&', $w;
		{ no warnings "exec"; exec { $bin } $bin, '-a', '127.0.0.1', '-p', $port, @args; }
		POSIX::_exit(127);
	}
	close $w;
	my %res = (pid => $pid, rc => -1);
	my $deadline = $t0 + 10;
	while (time < $deadline) {
		if (waitpid($pid, WNOHANG) == $pid) {
			$res{rc} = WIFEXITED($?) ? WEXITSTATUS($?) : 128 + WTERMSIG($?);
			last;
		}
		sleep 0.005;
	}
	if ($res{rc} == -1) {
		kill 'KILL', $pid;
		waitpid($pid, 0);
	}
	$res{secs} = time - $t0;
	$res{connected} = MrhttpdJail::connect_ok($port);

	# The launcher is gone: nothing should hold its output open now.
	my $t1 = time;
	my $sel = IO::Select->new($r);
	my $out = '';
	while ($sel->can_read(2 - (time - $t1) > 0 ? 2 - (time - $t1) : 0)) {
		my $n = sysread($r, my $buf, 4096);
		if (!$n) {
			$res{eof} = time - $t1;
			last;
		}
		$out .= $buf;
	}
	$res{out} = $out;
	return \%res;
}

sub read_pid {
	my $s = slurp($pidfile) // return undef;
	return $s =~ /^(\d+)\n\z/ ? $1 : undef;
}

# --- a successful detached start ----------------------------------------------------
my $port = MrhttpdTest::_free_port('127.0.0.1');
unlink $pidfile;
my $l = launch($port);
is($l->{rc}, 0, 'DETACH=1: the launching process exits 0') or diag($l->{out});
ok($l->{connected}, 'DETACH=1: the port answers as soon as the launcher returns');
cmp_ok($l->{secs}, '<', 5, 'DETACH=1: the launcher returns promptly');
my $pid = read_pid();
ok($pid, 'PID_FILE holds a pid') or diag(slurp($pidfile) // 'no pid file');
$pid //= 0;
isnt($pid, $l->{pid}, 'the server is not the launching process');
ok(-e "/proc/$pid", 'the process in PID_FILE is running');
is(slurp("/proc/$pid/comm"), "mrhttpd\n", 'PID_FILE names mrhttpd');
my $st = proc_stat($pid) // {};
is($st->{session}, $pid, 'own session (setsid): session id == pid');
is($st->{pgrp}, $pid, 'own process group');
is(readlink("/proc/$pid/root"), $jail, 'detached server is in the jail');
is(proc_ids($pid)->{uid}[1], $nuid, 'detached server runs as nobody');
my ($r) = parse_responses(http_get('/', port => $port));
is($r && $r->{body}, "jail index $marker\n", 'detached server serves the jail');
ok(defined $l->{eof},
	'the launcher\'s stdout/stderr are released once it has exited')
	or diag('the detached server still holds the pipe it was started with');
is($l->{out}, '', 'nothing printed by a successful start');

# A second start on the same port fails, still before detaching.
my $l2 = launch($port);
is($l2->{rc}, 1, 'DETACH=1, port in use: the launcher exits 1');
# glibc says "Address already in use", musl "Address in use"
like($l2->{out}, qr/^mrhttpd: bind to 127\.0\.0\.1 port $port: Address (?:already )?in use\n\z/,
	'DETACH=1, port in use: one line on stderr');
is(read_pid(), $pid, 'a failed start leaves the running server\'s pid file alone');

# SIGINT (what killall -2 sends): the port is free at once, the server goes.
kill 'INT', $pid;
my $t0 = time;
my $freed;
while (time - $t0 < 2) {
	if (!MrhttpdJail::connect_ok($port)) {
		$freed = time - $t0;
		last;
	}
	sleep 0.01;
}
ok(defined $freed && $freed < 0.5, 'SIGINT: connections refused at once')
	or diag('refused after ' . ($freed // 'never'));
ok(MrhttpdJail::wait_gone($pid, 6), 'SIGINT: the detached server exits');
like(slurp("$jail/log/access.log") // '', qr/\[info\] stopped$/m,
	'SIGINT: the log says it stopped');

# A start that fails after the fork (in the jail) still reports it.
my $l3 = launch($port, '-r', '/no-such-dir');
is($l3->{rc}, 1, 'DETACH=1, PUBLIC_DIR missing in the jail: the launcher exits 1');
like($l3->{out}, qr{^mrhttpd: PUBLIC_DIR /no-such-dir: No such file or directory \(a path inside SERVER_ROOT \Q$jail\E\)\n\z},
	'DETACH=1, PUBLIC_DIR missing: one line on stderr');
ok(!MrhttpdJail::connect_ok($port), 'nothing listens after the failed start');
my $dead = read_pid();
ok(!$dead || MrhttpdJail::wait_gone($dead, 2), 'the failed server is gone');

# --- without a jail: the daemon lets go of the directory it was started in --------------
{
	my $plain = MrhttpdTest->new(conf => {
		PUBLIC_DIR => "$jail/htdocs",
		PID_FILE => "$dir/plain.pid",
		DETACH => 1,
		LOG_LEVEL => 0,
	});
	my $p = MrhttpdTest::_free_port('127.0.0.1');
	my ($rc) = run_timed({ timeout => 10, stdout => "$dir/plain.out",
		stderr => "$dir/plain.err" },
		$plain->binary, '-a', '127.0.0.1', '-p', $p);
	is($rc, 0, 'DETACH=1 without a jail: started');
	my $ppid = (slurp("$dir/plain.pid") // '') =~ /^(\d+)$/m ? $1 : 0;
	ok($ppid && -e "/proc/$ppid", 'DETACH=1 without a jail: running');
	is(readlink("/proc/$ppid/cwd"), '/',
		'DETACH=1 without a jail: the daemon\'s working directory is /')
		or diag('it keeps the directory it was started in busy (no umount)');
	kill 'INT', $ppid if $ppid;
	ok(MrhttpdJail::wait_gone($ppid, 6), 'DETACH=1 without a jail: stopped');
}

# --- SIGTERM during rate-limited downloads --------------------------------------------
# slow_get(PORT, PATH, OUTFILE): in a child, downloads PATH at about
# 2 MB/s with a 16 KB receive buffer.  The server's send buffer grows to
# tcp_wmem's maximum (4 MB by default) and a reply that fits in it is
# handed to the kernel at once, so the file for this one is larger: the
# server is then still sending when the signal comes.  The raw response
# goes to OUTFILE.  Returns the child's pid.
sub slow_get {
	my ($port, $path, $file) = @_;
	my $pid = fork() // die "fork: $!";
	return $pid if $pid;
	my $s = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port,
		Proto => 'tcp', Sockopts => [[SOL_SOCKET, SO_RCVBUF, 16384]])
		or POSIX::_exit(2);
	http_send($s, "GET $path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	open my $fh, '>:raw', $file or POSIX::_exit(3);
	my $sel = IO::Select->new($s);
	my $deadline = time + 20;
	while (time < $deadline && $sel->can_read($deadline - time)) {
		my $n = sysread($s, my $buf, 16384);
		last unless $n;
		print $fh $buf;
		sleep 16384 / (2048 * 1024);
	}
	close $fh;
	POSIX::_exit(0);
}

SKIP: {
	# big.bin for curl (1.5 MB), huge.bin for the slow reader (6 MB)
	my $size = 1536 * 1024;
	my $hsize = 6 * 1024 * 1024;
	my $hdata = substr(join('', map { md5($_) } 0 .. $hsize / 16), 0, $hsize);
	my $data = substr($hdata, 0, $size);
	for (['big.bin', $data], ['huge.bin', $hdata]) {
		open my $fh, '>:raw', "$jail/htdocs/$_->[0]" or die "$_->[0]: $!";
		print $fh $_->[1];
		close $fh;
		chmod 0644, "$jail/htdocs/$_->[0]";
	}

	$t->run({ public => undef });	# the same binary, -f
	my ($slow_out, $curl_out) = ("$dir/slow.out", "$dir/curl.out");
	unlink $slow_out, $curl_out;
	my $slow = slow_get($t->port, '/huge.bin', $slow_out);
	# A client that stalls: it would hold the server forever, but the
	# grace time is 5 s.
	my $stall = IO::Socket::IP->new(PeerHost => '127.0.0.1',
		PeerPort => $t->port, Proto => 'tcp',
		Sockopts => [[SOL_SOCKET, SO_RCVBUF, 16384]]) or die "connect: $@";
	http_send($stall, "GET /huge.bin HTTP/1.1\r\nHost: x\r\n\r\n");
	# curl, a real client, at the same rate: about 3 s for the file.
	my $curl = MrhttpdTest::find_prog('curl') && (fork() // die "fork: $!");
	if (defined $curl && $curl == 0) {
		open STDIN, '<', '/dev/null';
		open STDERR, '>', "$dir/curl.err";
		no warnings 'exec';
		exec 'curl', '-s', '-S', '--limit-rate', '512k', '-o', $curl_out,
			'http://127.0.0.1:' . $t->port . '/big.bin';
		POSIX::_exit(127);
	}
	my $ts = time;
	sleep 0.02 until (-s $slow_out // 0) > 512 * 1024 || time - $ts > 5;
	my $logged_before = $t->log =~ m{"GET /huge\.bin HTTP/1\.1" 200 };
	kill 'TERM', $t->pid;
	my $t1 = time;
	my $refused;
	while (time - $t1 < 2) {
		if (!MrhttpdJail::connect_ok($t->port)) {
			$refused = time - $t1;
			last;
		}
		sleep 0.01;
	}
	ok(!$logged_before, 'the download was still being sent at SIGTERM')
		or diag('the reply was complete before the signal');
	ok(defined $refused && $refused < 0.5,
		'SIGTERM: new connections are refused at once')
		or diag('refused after ' . ($refused // 'never'));
	my $code = $t->stop(0);	# signal 0: only wait, TERM was sent
	my $took = time - $t1;
	is($code, 0, 'SIGTERM during downloads: exit 0');
	cmp_ok($took, '<', 6, 'SIGTERM: exit within the 5 s grace time')
		or diag("took $took s");

	# The stalled download was cut off at the end of the grace time.
	my $stalled = '';
	my $sel = IO::Select->new($stall);
	while ($sel->can_read(2)) {
		my $n = sysread($stall, my $buf, 1 << 20);
		last unless $n;
		$stalled .= $buf;
	}
	cmp_ok(length $stalled, '<', $hsize,
		'a stalled download does not hold the exit beyond the grace time');

	waitpid($slow, 0);
	my ($r) = parse_responses(slurp($slow_out) // '');
	is($r && $r->{status}, 200, 'slow download: 200');
	ok($r && $r->{body} eq $hdata, 'slow download: complete and intact')
		or diag('got ' . length($r ? $r->{body} : '') . " of $hsize bytes");
	like($t->log, qr{"GET /huge\.bin HTTP/1\.1" 200 $hsize }m,
		'slow download: logged with all its bytes');

	skip 'curl is not installed', 2 unless $curl;
	waitpid($curl, 0);
	is($? >> 8, 0, 'curl --limit-rate: finished without error')
		or diag(slurp("$dir/curl.err"));
	my $got = slurp($curl_out) // '';
	ok(length $got == $size && md5_hex($got) eq md5_hex($data),
		'curl --limit-rate: download complete and intact (md5)')
		or diag('got ' . length($got) . " of $size bytes");
}
$t->teardown;

done_testing();
