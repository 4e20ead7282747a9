#!/usr/bin/perl
# The jail and the user (root only): pages come from inside a BusyBox jail,
# the process is chrooted there and runs as nobody with no way back, "..",
# in any spelling, reaches neither the host nor the jail's own files, a port
# below 1024 works, the log rotates on SIGHUP as nobody, and every start-up
# failure is one line on stderr and exit 1.

use strict;
use warnings;

use File::Path qw(make_path);
use IO::Socket::IP;
use POSIX qw(WNOHANG);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);
use MrhttpdJail qw(proc_ids run_timed port_free);

my $dir = MrhttpdJail::setup('jail-30');
my $j = MrhttpdJail::make_jail("$dir/jail");
my ($jail, $marker) = @$j{qw(dir marker)};
my ($nuid, $ngid) = MrhttpdJail::nobody();

my %base = %{ MrhttpdJail::conf($jail, SYSTEM_USER => undef,
	EXT_FILE_CMD => '/bin/mimetype') };

# EXT_FILE_CMD inside the jail: a script for the jail's BusyBox shell, so
# the server's children run there, as nobody.
open my $fh, '>', "$jail/bin/mimetype" or die "mimetype: $!";
print $fh "#!/bin/sh\n# called as: mimetype -b --mime-type FILE\n"
	. "case \$3 in /htdocs/*.weird) echo text/x-weird ;; *) exit 1 ;; esac\n";
close $fh;
chmod 0755, "$jail/bin/mimetype";
open $fh, '>', "$jail/htdocs/a.weird" or die "a.weird: $!";
print $fh "weird\n";
close $fh;
chmod 0644, "$jail/htdocs/a.weird";

# zombies(PID): children of PID that have exited and not been reaped.
sub zombies {
	my ($pid) = @_;
	my $n = 0;
	for my $st (glob '/proc/[0-9]*/stat') {
		open my $sf, '<', $st or next;
		my $line = <$sf> // next;
		$line =~ s/^.*\)\s+//s;
		my @f = split ' ', $line;
		$n++ if $f[0] eq 'Z' && $f[1] == $pid;
	}
	return $n;
}

# wait_for(CODE, SECONDS): polls until CODE returns true.
sub wait_for {
	my ($code, $secs) = @_;
	my $deadline = time + ($secs // 5);
	while (time < $deadline) {
		return 1 if $code->();
		sleep 0.02;
	}
	return $code->();
}


sub body_of {
	my ($r) = parse_responses($_[0]);
	return $r;
}

# --- jailed, as nobody -----------------------------------------------------------
my $t = MrhttpdTest->new(conf => { %base, SYSTEM_USER => 'nobody' });
$t->has(qw(chroot setuid log-file));
$t->run({ public => undef });	# PUBLIC_DIR as compiled in, inside the jail
my $pid = $t->pid;

my $r = body_of(http_get('/'));
is($r->{status}, 200, 'jail: GET / is 200');
is($r->{body}, "jail index $marker\n", 'jail: index.html comes from the jail');
$r = body_of(http_get('/missing.html'));
is($r->{status}, 404, 'jail: missing file is 404');
is($r->{body}, "jail 404 page $marker\n", 'jail: error page from PRIVATE_DIR in the jail');

# The type of an unknown suffix comes from the jail's EXT_FILE_CMD.
my @types = map { (body_of(http_get('/a.weird')) // {})->{headers}{'content-type'} // '' } 1 .. 10;
is(scalar(grep { $_ eq 'text/x-weird' } @types), 10,
	'EXT_FILE_CMD runs in the jail, as nobody') or diag("@types");
is(zombies($pid), 0, 'EXT_FILE_CMD children are reaped: no zombies');

is(readlink("/proc/$pid/root"), $jail, '/proc/PID/root is the jail');
is(readlink("/proc/$pid/cwd"), $jail, '/proc/PID/cwd is the jail\'s /');

my $ids = proc_ids($pid);
is(scalar(grep { $_ == $nuid && $_ != 0 } @{ $ids->{uid} }), 4,
	'real, effective, saved and fs uid are nobody\'s')
	or diag("Uid: @{ $ids->{uid} }");
is(scalar(grep { $_ == $ngid && $_ != 0 } @{ $ids->{gid} }), 4,
	'real, effective, saved and fs gid are nobody\'s primary group')
	or diag("Gid: @{ $ids->{gid} }");
is("@{ $ids->{groups} }", "$ngid", 'supplementary groups: only that group')
	or diag("Groups: @{ $ids->{groups} }");

# No spelling of ".." leaves htdocs: not to the host's /etc/passwd, not to
# the jail's own /etc/passwd or /secret.txt.
my @escape = (
	'/../etc/passwd', '/../../../../../../etc/passwd',
	'/%2e%2e/etc/passwd', '/%2E%2E%2Fetc%2Fpasswd', '/..%2fetc/passwd',
	'/htdocs/../../etc/passwd', '//../etc/passwd', '/./../etc/passwd',
	'/..%5cetc/passwd', '/%c0%ae%c0%ae/etc/passwd', '/%252e%252e/etc/passwd',
	'/../secret.txt', '/%2e%2e/secret.txt', '/../htdocs/../secret.txt',
	'/..', '/../', '/%2e%2e',
);
my @leaks;
for my $path (@escape) {
	my $raw = http("GET $path HTTP/1.0\r\n\r\n");
	my ($st) = $raw =~ m{^HTTP/1\.[01] (\d{3})};
	push @leaks, "$path: " . ($st // 'no reply')
		if !defined $st || $st !~ /^4/ || $raw =~ /^root:/m
		|| $raw =~ /jailpasswd|jail secret/;
}
# And in the absolute form of the request target.
my $raw = http("GET http://localhost/../../etc/passwd HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
push @leaks, 'absolute-form: leaked' if $raw =~ /^root:|jailpasswd/m;
ok(!@leaks, 'traversal reaches neither the host\'s /etc/passwd nor the jail outside htdocs')
	or diag(join "\n", @leaks);

my $log = "$jail/log/access.log";
ok(wait_for(sub { ($t->log =~ tr/\n//) >= 3 && $t->log =~ m{"GET / HTTP/1\.0" 200 } }),
	'the access log inside the jail has the requests');

# The log the server made as root at start-up is nobody's, so that a SIGHUP
# with no rotation before it (rc.httpd reload, a logrotate that copies and
# truncates) can open it again as nobody.
is((stat $log)[4], $nuid, 'the log made at start-up is owned by nobody');
kill 'HUP', $pid;
http_get('/index.html?no-rotation');
ok(wait_for(sub { $t->log =~ /no-rotation/ }),
	'SIGHUP without a rotation: the next request is logged');
unlike($t->log, qr/\[error\].*reopen/, 'SIGHUP without a rotation: no error');

# The file appears when the server opens it; the fchown and the dup3 onto
# the log's descriptor come after, and a line logged in between still goes
# to the old file, as it may.  So the reopen is done when requests made
# after it are logged to the new file: it is asked until one is.
sub reopened {
	my ($tag) = @_;
	my $n = 0;
	return wait_for(sub {
		http_get("/index.html?$tag-" . $n++);
		return wait_for(sub { (slurp($log) // '') =~ /\Q$tag\E-/ }, 0.2);
	});
}

# --- SIGHUP: mv log log.1, the server makes a new log as nobody ---------------------
http_get('/index.html?before-rotation');
ok(wait_for(sub { $t->log =~ /before-rotation/ }), 'line logged before rotation');
rename($log, "$log.1") or die "rename: $!";
kill 'HUP', $pid;
ok(wait_for(sub { -e $log }), 'SIGHUP: a new log file is created');
ok(reopened('probe-1'), 'SIGHUP: the reopen is done');
is((stat $log)[4], $nuid, 'SIGHUP: the new log is owned by nobody');
http_get('/index.html?after-rotation');
ok(wait_for(sub { (slurp($log) // '') =~ /after-rotation/ }),
	'SIGHUP: the next request is logged to the new file');
my $old = slurp("$log.1") // '';
like($old, qr/before-rotation/, 'SIGHUP: log.1 keeps the old lines');
unlike($old, qr/after-rotation/, 'SIGHUP: nothing new goes to log.1');
unlike(slurp($log) // '', qr/before-rotation/, 'SIGHUP: the new file starts afresh');

# Rotate twice: the reopen keeps working.
rename($log, "$log.2") or die "rename: $!";
kill 'HUP', $pid;
ok(wait_for(sub { -e $log }), 'second SIGHUP: a new log file again');
ok(reopened('probe-2'), 'second SIGHUP: the reopen is done');
http_get('/index.html?second-rotation');
ok(wait_for(sub { (slurp($log) // '') =~ /second-rotation/ }),
	'second SIGHUP: the next request is logged to it');

# A log directory nobody cannot write: the reopen fails, the server says
# so on the log it still has, and goes on serving.
my $logdir = "$jail/log";
chown 0, 0, $logdir;
rename($log, "$log.3") or die "rename: $!";
kill 'HUP', $pid;
ok(wait_for(sub { (slurp("$log.3") // '') =~ /\[error\].*reopen/ }),
	'SIGHUP with a log directory nobody cannot write: an error line on the old log');
ok(!-e $log, 'no new log file in a root-owned directory');
$r = body_of(http_get('/'));
is($r && $r->{status}, 200, 'still serving after a failed reopen');
$t->allow_log(qr/SIGHUP: cannot reopen/);
chown $nuid, $ngid, $logdir;
rename("$log.3", $log);
kill 'HUP', $pid;
http_get('/index.html?fourth');
ok(wait_for(sub { (slurp($log) // '') =~ /fourth/ }),
	'once the directory is writable again, SIGHUP reopens the log');

is($t->stop, 0, 'jailed server: exit 0 on SIGTERM');
$t->teardown;
unlink glob("$log*");	# the next servers share the jail and its log

# --- a port below 1024, then dropping to nobody ------------------------------------
SKIP: {
	my ($low) = grep { port_free($_) } 600 .. 999;
	skip 'no free port in 600-999', 4 unless $low;
	my $tl = MrhttpdTest->new(conf => { %base, SYSTEM_USER => 'nobody' });
	$tl->run({ public => undef, port => $low });
	my $rl = body_of(http_get('/', port => $low));
	is($rl->{status}, 200, "port $low (< 1024): served");
	is($rl->{body}, "jail index $marker\n", "port $low: from the jail");
	my $li = proc_ids($tl->pid);
	is(scalar(grep { $_ == $nuid } @{ $li->{uid} }), 4, "port $low: running as nobody");
	is($tl->stop, 0, "port $low: exit 0");
	$tl->teardown;
}

# --- root without SYSTEM_USER: a warning, but it serves ------------------------
{
	my $tr = MrhttpdTest->new(conf => { %base });
	$tr->run({ public => undef });
	my $rr = body_of(http_get('/'));
	is($rr->{status}, 200, 'no SYSTEM_USER: serves');
	like($tr->stderr, qr/^mrhttpd: warning: .*root/m,
		'no SYSTEM_USER, started as root: a warning on stderr');
	is(proc_ids($tr->pid)->{uid}[1], 0, 'no SYSTEM_USER: still root (as warned)');
	is(readlink('/proc/' . $tr->pid . '/root'), $jail, 'no SYSTEM_USER: still jailed');
	$tr->teardown;
}

# --- start-up failures: exit 1, one line on stderr ------------------------------
# fails($t, $re, $name, @args): runs the binary in the foreground, expects
# exit 1 and exactly one stderr line matching $re.
sub fails {
	my ($bin, $re, $name, @args) = @_;
	my $err = "$dir/fail.err";
	unlink $err;
	my ($rc) = run_timed({ timeout => 10, stderr => $err, stdout => "$dir/fail.out" },
		$bin, '-f', '-a', '127.0.0.1', @args);
	my $text = slurp($err) // '';
	is($rc, 1, "$name: exit 1");
	my @lines = split /\n/, $text;
	ok(@lines == 1 && $lines[0] =~ $re, "$name: one clear line on stderr")
		or diag("stderr:\n$text");
}

my $bin = $t->binary;
{
	my $hold = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0,
		Proto => 'tcp', Listen => 5) or die "listen: $@";
	my $busy = $hold->sockport;
	# glibc says "Address already in use", musl "Address in use"
	fails($bin, qr/^mrhttpd: bind to 127\.0\.0\.1 port $busy: Address (?:already )?in use$/,
		'port in use', '-p', $busy);
}
my $port = MrhttpdTest::_free_port('127.0.0.1');
fails($bin, qr{^mrhttpd: PUBLIC_DIR /no-such-dir: No such file or directory \(a path inside SERVER_ROOT \Q$jail\E\)$},
	'PUBLIC_DIR missing', '-p', $port, '-r', '/no-such-dir');
# Inside the jail, the host path of its htdocs does not exist either.
fails($bin, qr{^mrhttpd: PUBLIC_DIR \Q$jail\E/htdocs: No such file or directory \(a path inside SERVER_ROOT \Q$jail\E\)$},
	'PUBLIC_DIR given as a host path', '-p', $port, '-r', "$jail/htdocs");
{
	my $tb = MrhttpdTest->new(conf => { %base, SYSTEM_USER => 'nobody',
		SERVER_ROOT => "$dir/no-such-jail", LOG_FILE => undef });
	fails($tb->binary, qr{^mrhttpd: chroot \Q$dir\E/no-such-jail: No such file or directory$},
		'chroot into a missing directory', '-p', $port);
}
{
	my $tb = MrhttpdTest->new(conf => { %base, SYSTEM_USER => 'nobody',
		LOG_FILE => '/no-such-dir/access.log' });
	fails($tb->binary, qr{^mrhttpd: cannot open log file \Q$jail\E/no-such-dir/access\.log: No such file or directory$},
		'log file in a missing directory', '-p', $port);
}
{
	my $tb = MrhttpdTest->new(conf => { %base,
		SYSTEM_USER => 'mrhttpd-no-such-user' });
	fails($tb->binary, qr/^mrhttpd: unknown user mrhttpd-no-such-user$/,
		'unknown SYSTEM_USER', '-p', $port);
}
{
	my ($rc) = run_timed({ timeout => 10 }, $bin, '-x');
	is($rc, 2, 'unknown option: exit 2 (usage)');
}

# Started as SYSTEM_USER itself, not as root: there is nothing to drop
# (setgroups needs root), so it serves instead of failing the change.
SKIP: {
	skip 'no setpriv (util-linux)', 5 unless MrhttpdTest::find_prog('setpriv');
	my $tb = MrhttpdTest->new(conf => { %base, SYSTEM_USER => 'nobody',
		SERVER_ROOT => '', LOG_FILE => undef, PRIVATE_DIR => undef,
		EXT_FILE_CMD => undef, PUBLIC_DIR => "$jail/htdocs" });
	my $p2 = MrhttpdTest::_free_port('127.0.0.1');
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		open STDIN, '<', '/dev/null';
		{ exec 'setpriv', "--reuid=$nuid", "--regid=$ngid", '--clear-groups',
			$tb->binary, '-f', '-a', '127.0.0.1', '-p', $p2 };
		POSIX::_exit(127);
	}
	my ($r, $gone);
	wait_for(sub { MrhttpdJail::connect_ok($p2)
		|| ($gone = waitpid($pid, WNOHANG) == $pid) });
	$r = body_of(http_get('/', port => $p2, timeout => 2)) unless $gone;
	is($r && $r->{status}, 200, 'started as nobody, SYSTEM_USER=nobody: serves');
	kill 'INT', $pid unless $gone;
	$gone ||= wait_for(sub { waitpid($pid, WNOHANG) == $pid }, 10) ? 2 : 0;
	is($gone == 2 ? $? >> 8 : "not stopped ($gone)", 0, '... and stops with exit 0');
	if (!$gone) { kill 'KILL', $pid; waitpid($pid, 0) }

	# nobody's uid but root's group, or root's groups, or the capability
	# to become root again: that is no user change made, and it refuses
	for my $how (['--regid=0', '--clear-groups'],
	    ["--regid=$ngid", '--groups=0'],
	    ["--regid=$ngid", '--clear-groups', '--inh-caps=+setuid',
	     '--ambient-caps=+setuid']) {
		my $errf = "$dir/setpriv.err";
		my ($rc) = run_timed({ timeout => 5, stderr => $errf }, 'setpriv',
			"--reuid=$nuid", @$how, $tb->binary, '-f', '-a', '127.0.0.1',
			'-p', MrhttpdTest::_free_port('127.0.0.1'));
		my $out = slurp($errf) // '';
		ok($rc == 1 && $out =~ /^mrhttpd: (?:cannot become user nobody|dropping root to nobody did not stick)/m,
			"started as nobody with @$how: refused")
			or diag("rc $rc: $out");
	}
}

ok(port_free($port), 'no failed start left anything listening');

$t->done_testing();
