package MrhttpdJail;

# MrhttpdJail - helpers for the tests that need root: a minimal chroot jail
# built from Debian's busybox-static, process inspection through /proc, and
# starting a command with a time limit.
#
#	use MrhttpdTest;
#	use MrhttpdJail;
#	my $dir = MrhttpdJail::setup('30-jail');	# skips unless root etc.
#	my $jail = MrhttpdJail::make_jail("$dir/jail");
#	my $t = MrhttpdTest->new(conf => { SERVER_ROOT => $jail, ... });
#
# SERVER_ROOT, LOG_FILE and PID_FILE are compiled in, so a jail must live at
# a path that stays the same from run to run, or every run would build a
# new binary.  setup() hands out tests/build/<name>/ and holds a lock on it
# until the test file exits, so two runs of one file (say a native and a
# sanitizer run started by different people) take turns.

use strict;
use warnings;

use Exporter qw(import);
use Fcntl qw(:flock O_RDWR O_CREAT);
use File::Path qw(make_path remove_tree);
use IO::Socket::IP;
use POSIX qw(:sys_wait_h);
use Test::More import => [];
use Time::HiRes qw(time sleep);

use MrhttpdTest qw(spew);

our @EXPORT_OK = qw(proc_ids proc_stat run_timed port_free);

my $BUSYBOX = '/bin/busybox';

# setup(NAME): skips the whole file unless we are root and have a static
# busybox; returns the locked directory tests/build/NAME (created empty).
# conf(JAIL, KEY => value ...): the configuration the jail tests share
# (documents in /htdocs, pages in /private, a log in /log, as nobody),
# with overrides; undef removes a key.
sub conf {
	my ($jail, %over) = @_;
	return {
		SERVER_ROOT => $jail,
		SYSTEM_USER => 'nobody',
		PUBLIC_DIR => '/htdocs',
		PRIVATE_DIR => '/private',
		DEFAULT_INDEX => 'index.html',
		LOG_LEVEL => 4,
		LOG_FILE => '/log/access.log',
		DETACH => 0,
		%over,
	};
}

sub setup {
	my ($name) = @_;
	Test::More::plan(skip_all => 'needs root (chroot, setuid, ports < 1024)')
		if $> != 0;
	Test::More::plan(skip_all => "$BUSYBOX is missing "
		. '(apt-get install busybox-static)') unless -x $BUSYBOX;
	Test::More::plan(skip_all => 'RUN_WRAPPER is set: jail tests run '
		. 'only natively') if $ENV{RUN_WRAPPER};
	Test::More::plan(skip_all => 'MRHTTPD_TEST_BINARY is set: these tests '
		. 'need builds with their own SERVER_ROOT') if $ENV{MRHTTPD_TEST_BINARY};

	# LeakSanitizer stops the world by reading /proc/PID/task, which a
	# jail has not got: it would die at exit with "Can't open /proc/..".
	# ASan and UBSan keep working; leaks are checked by the other tests.
	if ($ENV{MRHTTPD_SANITIZE}) {
		$ENV{ASAN_OPTIONS} = join(':', grep { length }
			$ENV{ASAN_OPTIONS} // '', 'detect_leaks=0');
	}

	return MrhttpdTest::fixed_dir($name);
}


# nobody(): (uid, gid) of the user nobody.
sub nobody {
	my @pw = getpwnam('nobody') or die "no user nobody\n";
	return ($pw[2], $pw[3]);
}

# make_jail(DIR): a fresh jail in DIR, as a user would build one:
#	bin/busybox, bin/sh		static shell (CGI will need it)
#	htdocs/index.html		"jail index <marker>"
#	private/404.html		"jail 404 page <marker>"
#	log/				owned by nobody, for log rotation
#	etc/passwd, secret.txt		decoys outside htdocs, with the marker
# Returns a hash: { dir, marker }.  Skips the file when busybox cannot run
# inside the jail (a dynamically linked one needs libraries it has not).
sub make_jail {
	my ($dir) = @_;
	my $marker = 'JAIL' . join('', map { int rand 10 } 1 .. 12);
	my ($uid, $gid) = nobody();

	remove_tree($dir);
	make_path(map { "$dir/$_" } qw(bin htdocs private log etc));
	chmod 0755, $dir, map { "$dir/$_" } qw(bin htdocs private log etc);
	system('cp', $BUSYBOX, "$dir/bin/busybox") == 0
		or die "cp $BUSYBOX: $?";
	chmod 0755, "$dir/bin/busybox";
	symlink('busybox', "$dir/bin/sh") or die "symlink: $!";
	spew("$dir/htdocs/index.html", "jail index $marker\n");
	spew("$dir/private/404.html", "jail 404 page $marker\n");
	spew("$dir/etc/passwd", "jailpasswd:$marker:0:0::/:/bin/sh\n");
	spew("$dir/secret.txt", "jail secret $marker\n");
	chown $uid, $gid, "$dir/log" or die "chown $dir/log: $!";

	my $out = `chroot '$dir' /bin/sh -c 'echo ok' 2>&1`;
	Test::More::plan(skip_all => "$BUSYBOX does not run inside a jail "
		. "(not static? apt-get install busybox-static): $out")
		unless ($out // '') eq "ok\n";
	return { dir => $dir, marker => $marker };
}

# proc_ids(PID): { uid => [real, effective, saved, fs], gid => [...],
# groups => [...] } from /proc/PID/status, or undef.
sub proc_ids {
	my ($pid) = @_;
	open my $fh, '<', "/proc/$pid/status" or return undef;
	my %r;
	while (<$fh>) {
		$r{uid} = [split ' ', $1] if /^Uid:\s+(.*)$/;
		$r{gid} = [split ' ', $1] if /^Gid:\s+(.*)$/;
		$r{groups} = [split ' ', $1 // ''] if /^Groups:\s*(.*)$/;
	}
	return \%r;
}

# proc_stat(PID): { state, ppid, pgrp, session } from /proc/PID/stat.
sub proc_stat {
	my ($pid) = @_;
	open my $fh, '<', "/proc/$pid/stat" or return undef;
	my $s = <$fh> // return undef;
	$s =~ s/^.*\)\s+//s;		# comm may contain spaces and ")"
	my @f = split ' ', $s;
	return { state => $f[0], ppid => $f[1], pgrp => $f[2],
		session => $f[3] };
}

# run_timed({ timeout => S, stdout => FILE, stderr => FILE, env => {} },
# @cmd): runs @cmd with stdin from /dev/null and output to the files (or
# /dev/null); kills it after the timeout.  Returns (exit code or -1 if it
# had to be killed, seconds taken).
sub run_timed {
	my $o = ref $_[0] eq 'HASH' ? shift : {};
	my @cmd = @_;
	my $t0 = time;
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		open STDIN, '<', '/dev/null';
		open STDOUT, '>', $o->{stdout} // '/dev/null' or POSIX::_exit(126);
		open STDERR, '>', $o->{stderr} // '/dev/null' or POSIX::_exit(126);
		$ENV{$_} = $o->{env}{$_} for keys %{ $o->{env} || {} };
		{ no warnings 'exec'; exec { $cmd[0] } @cmd; }
		print STDERR "exec $cmd[0]: $!\n";
		POSIX::_exit(127);
	}
	my $deadline = $t0 + ($o->{timeout} // 10);
	while (time < $deadline) {
		if (waitpid($pid, WNOHANG) == $pid) {
			my $rc = WIFEXITED($?) ? WEXITSTATUS($?) : 128 + WTERMSIG($?);
			return ($rc, time - $t0);
		}
		sleep 0.01;
	}
	kill 'KILL', $pid;
	waitpid($pid, 0);
	return (-1, time - $t0);
}

# port_free(PORT[, ADDR]): true when nothing listens on PORT and we could
# bind it.
sub port_free {
	my ($port, $addr) = @_;
	my $s = IO::Socket::IP->new(LocalHost => $addr // '127.0.0.1',
		LocalPort => $port, Proto => 'tcp', Listen => 1, ReuseAddr => 1);
	return 0 unless $s;
	close $s;
	return 1;
}

# first_free_port(FROM, TO): the first port in the range free for binding,
# or undef.  Starting from a fixed port gives the same answer run after
# run, so a binary with that port compiled in is built only once.
sub first_free_port {
	my ($from, $to) = @_;
	for my $p ($from .. $to) {
		return $p if port_free($p, '127.0.0.1') && port_free($p, '0.0.0.0');
	}
	return undef;
}

# wait_gone(PID, SECONDS): true once /proc/PID is gone (or a zombie).
sub wait_gone {
	my ($pid, $secs) = @_;
	my $deadline = time + $secs;
	while (time < $deadline) {
		my $st = proc_stat($pid);
		return 1 if !$st || $st->{state} eq 'Z';
		sleep 0.02;
	}
	return 0;
}

# connect_ok(PORT): true when a TCP connect to 127.0.0.1:PORT succeeds.
sub connect_ok {
	my ($port) = @_;
	my $s = IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $port,
		Proto => 'tcp', Timeout => 2);
	return 0 unless $s;
	close $s;
	return 1;
}

1;
