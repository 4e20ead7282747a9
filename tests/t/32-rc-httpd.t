#!/usr/bin/perl
# rc.httpd as installed by make install (root only): start, status, reload,
# restart and stop round-trip a detached, jailed server through its pid
# file, with LSB exit codes; and, inside a private pid namespace where
# nobody else's mrhttpd can be hit, the upstream way: killall -2 mrhttpd.

use strict;
use warnings;

use IO::Socket::INET;
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp spew);
use MrhttpdJail qw(proc_ids run_timed);

my $dir = MrhttpdJail::setup('rc-32');
my $j = MrhttpdJail::make_jail("$dir/jail");
my ($jail, $marker) = @$j{qw(dir marker)};
my ($nuid) = MrhttpdJail::nobody();
my $pidfile = "$dir/run/mrhttpd.pid";
mkdir "$dir/run";

# rc.httpd runs the binary with no options, so the port is compiled in.
# The first free one from a fixed start is the same run after run, and
# the build is reused.
my $port = MrhttpdJail::first_free_port(18300, 18399)
	// plan(skip_all => 'no free port in 18300-18399');
my $t = MrhttpdTest->new(conf => MrhttpdJail::conf($jail,
	SERVER_PORT => $port, SERVER_ADDR => '127.0.0.1',
	PID_FILE => $pidfile, DETACH => 1, BIN_DIR => "$dir/sbin"));
$t->has(qw(detach pid-file));


# --- make install -------------------------------------------------------------------
my $build = $t->binary =~ s{/mrhttpd$}{}r;
{
	local @ENV{qw(MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL)};
	delete @ENV{qw(MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL)};
	my ($rc, $out) = run_cmd('make', '-C', $MrhttpdTest::ROOT, '-s',
		"BUILD=$build", "CONF=$build/mrhttpd.conf",
		# the flags of the build (make check-tsan's among them)
		MrhttpdTest::_make_args(), ($ENV{MRHTTPD_SANITIZE} ? 'SANITIZE=1' : ()),
		"INITDIR=$dir/init.d", "MANDIR=$dir/man", 'install');
	is($rc, 0, 'make install') or diag($out);
}
my $rc_httpd = "$dir/init.d/rc.httpd";
ok(-x "$dir/sbin/mrhttpd", 'make install: the binary is in BIN_DIR');
ok(-x $rc_httpd, 'make install: rc.httpd is in INITDIR, executable');
like(slurp($rc_httpd) // '', qr{^MRHTTPD=\$\{MRHTTPD:-\Q$dir\E/sbin/mrhttpd\}$}m,
	'make install: rc.httpd knows BIN_DIR');
ok(-f "$jail/private/404.html", 'make install: error pages in the jail\'s PRIVATE_DIR');
SKIP: {
	skip 'no doc/mrhttpd.8 yet', 1 unless -f "$MrhttpdTest::ROOT/doc/mrhttpd.8";
	ok(-f "$dir/man/man8/mrhttpd.8", 'make install: the man page in MANDIR');
}

# rc(ARGS, [ENV, [SHELL, [SCRIPT]]]): runs the installed rc.httpd (or
# SCRIPT; with SHELL, if given); returns (exit code, output).
sub rc {
	my ($args, $env, $shell, $script) = @_;
	my $out = "$dir/rc.out";
	my ($code) = run_timed({ timeout => 20, stdout => $out, stderr => $out,
		env => { PIDFILE => $pidfile, %{ $env // {} } } },
		($shell ? @$shell : ()), $script // $rc_httpd, @$args);
	return ($code, slurp($out) // '');
}

sub read_pid { (slurp($pidfile) // '') =~ /^(\d+)$/m ? $1 : undef }

sub serves {
	my ($r) = parse_responses(http_get('/', port => $port, timeout => 3));
	return $r && $r->{status} == 200 && $r->{body} eq "jail index $marker\n";
}

# --- the pid file way ------------------------------------------------------------------
unlink $pidfile;
my ($code, $out) = rc(['status']);
is($code, 3, 'status before start: 3 (not running)') or diag($out);
($code, $out) = rc(['stop']);
is($code, 0, 'stop when stopped: 0') or diag($out);

($code, $out) = rc(['start']);
is($code, 0, 'start: 0') or diag($out);
ok(serves(), 'start: the port answers when start returns');
my $pid = read_pid() // 0;
ok($pid, 'start: the pid file names the server');
is(readlink("/proc/$pid/root"), $jail, 'start: the server is in its jail');
is((proc_ids($pid) // {})->{uid}[0], $nuid, 'start: the server runs as nobody');

($code, $out) = rc(['start']);
is($code, 0, 'start when running: 0');
like($out, qr/already running/, 'start when running: says so');
is(read_pid(), $pid, 'start when running: the same server');

($code, $out) = rc(['status']);
is($code, 0, 'status when running: 0') or diag($out);

# reload = SIGHUP: the log is reopened, as logrotate's postrotate needs.
my $log = "$jail/log/access.log";
rename($log, "$log.1") or die "rename: $!";
($code, $out) = rc(['reload']);
is($code, 0, 'reload: 0') or diag($out);
my $deadline = time + 5;
sleep 0.02 until -e $log || time > $deadline;
# the file appears at the server's open(2), before the dup3 that makes it
# the log: a request in between is logged to log.1, so ask until one lands
$deadline = time + 5;
for (my $n = 0; (slurp($log) // '') !~ /after-reload/ && time < $deadline; $n++) {
	http_get("/index.html?after-reload-$n", port => $port);
	my $until = time + 0.2;
	sleep 0.02 until (slurp($log) // '') =~ /after-reload/ || time > $until;
}
like(slurp($log) // '', qr/after-reload/, 'reload: the log is reopened');

my $t0 = time;
($code, $out) = rc(['restart']);
is($code, 0, 'restart: 0') or diag($out);
my $new = read_pid() // 0;
ok($new && $new != $pid, 'restart: a new server') or diag("old $pid, new $new");
ok(!-e "/proc/$pid" || (MrhttpdJail::proc_stat($pid) // {})->{state} eq 'Z',
	'restart: the old server is gone');
ok(serves(), 'restart: the port answers when restart returns');
($code) = rc(['status']);
is($code, 0, 'status after restart: 0');

$t0 = time;
($code, $out) = rc(['stop']);
my $took = time - $t0;
is($code, 0, 'stop: 0') or diag($out);
ok(MrhttpdJail::wait_gone($new, 0.1), 'stop: the server is gone when stop returns');
ok(!MrhttpdJail::connect_ok($port), 'stop: nothing listens any more');
cmp_ok($took, '<', 6, 'stop: within the 5 s grace');
ok(!-e $pidfile, 'stop: the pid file is removed');
($code) = rc(['status']);
is($code, 3, 'status after stop: 3');
($code) = rc(['reload']);
is($code, 7, 'reload when stopped: 7 (not running)');

# The same under BusyBox's shell, as on a router.
{
	my @bb = ('/bin/busybox', 'sh');
	($code, $out) = rc(['start'], {}, \@bb);
	is($code, 0, 'busybox sh: start: 0') or diag($out);
	ok(serves(), 'busybox sh: serving');
	($code) = rc(['status'], {}, \@bb);
	is($code, 0, 'busybox sh: status: 0');
	($code, $out) = rc(['stop'], {}, \@bb);
	is($code, 0, 'busybox sh: stop: 0') or diag($out);
	($code) = rc(['status'], {}, \@bb);
	is($code, 3, 'busybox sh: status after stop: 3');
}

# A stale pid file (a dead pid) is "not running", and start still works.
{
	my $child = fork() // die;
	POSIX::_exit(0) if !$child;
	waitpid($child, 0);
	open my $fh, '>', $pidfile or die;
	print $fh "$child\n";
	close $fh;
	($code) = rc(['status']);
	is($code, 3, 'status with a stale pid file: 3');
	($code, $out) = rc(['start']);
	is($code, 0, 'start over a stale pid file: 0') or diag($out);
	ok(serves(), 'start over a stale pid file: serving');
	($code, $out) = rc(['stop']);
	is($code, 0, 'and stop: 0') or diag($out);
}

# A stale pid file that names a thread of another mrhttpd: /proc has the
# thread too, named mrhttpd, and a stop sent SIGINT to it, which ended
# that other server (helper-70)
{
	my $other = MrhttpdTest->new(conf => {});
	$other->run;
	http_get('/', port => $other->port);	# a thread of its pool
	my ($tid) = grep { $_ != $other->pid } map { m{/(\d+)$} ? $1 : () }
		glob('/proc/' . $other->pid . '/task/*');
	SKIP: {
		skip 'the other server has no second thread', 3 unless $tid;
		spew($pidfile, "$tid\n");
		($code, $out) = rc(['status']);
		is($code, 3, 'status, the pid file naming a thread of another server: 3')
			or diag($out);
		($code, $out) = rc(['stop']);
		is($code, 0, '... stop: 0') or diag($out);
		ok($other->alive, '... and that other server is still up');
	}
	unlink $pidfile;
	$other->stop;
}

# The binary under another name (a copy or link, MRHTTPD=/usr/sbin/httpd)
# runs as that name: it was "not running", so stop left it and restart
# failed on its port (helper-70).  A name past the kernel's 15 bytes is
# cut in /proc/PID/comm, not for pidof and killall (helper-72); those
# run without PIDFILE
mkdir "$dir/other";
for my $name ('httpd', 'mrhttpd-longname-build') {
	system('cp', "$dir/sbin/mrhttpd", "$dir/other/$name") == 0 or die "cp: $?";
	for my $pf ($pidfile, '') {
		my %env = (MRHTTPD => "$dir/other/$name", PIDFILE => $pf);
		my $how = "the binary named $name, " . ($pf ? 'PIDFILE' : 'no PIDFILE');
		($code, $out) = rc(['start'], \%env);
		is($code, 0, "$how: start: 0") or diag($out);
		($code, $out) = rc(['status'], \%env);
		is($code, 0, '... status: 0 (running)') or diag($out);
		($code, $out) = rc(['restart'], \%env);
		is($code, 0, '... restart: 0') or diag($out);
		($code, $out) = rc(['stop'], \%env);
		is($code, 0, '... stop: 0') or diag($out);
		ok(!eval { serves() }, '... and it is gone');
		run_cmd('pkill', '-KILL', '-f', "^$dir/other/$name\$");	# whatever came of it
	}
}

# Copied by hand from the source tree, as it stands: no make install
# filled in BIN_DIR, so it finds the binary on the PATH (BIN_DIR's
# default, /usr/local/sbin, has none here)
{
	my $hand = "$dir/hand/rc.httpd";
	mkdir "$dir/hand";
	system('cp', "$MrhttpdTest::ROOT/rc.httpd", $hand) == 0 or die "cp: $?";
	chmod 0755, $hand;
	my %path = (PATH => "$dir/sbin:$ENV{PATH}");
	SKIP: {
		skip '/usr/local/sbin/mrhttpd exists: it would be found first', 4
			if -e '/usr/local/sbin/mrhttpd';
		($code, $out) = rc(['start'], \%path, undef, $hand);
		is($code, 0, 'rc.httpd copied by hand: start: 0') or diag($out);
		ok(serves(), 'rc.httpd copied by hand: serving');
		($code) = rc(['status'], \%path, undef, $hand);
		is($code, 0, 'rc.httpd copied by hand: status: 0');
		($code, $out) = rc(['stop'], \%path, undef, $hand);
		is($code, 0, 'rc.httpd copied by hand: stop: 0') or diag($out);
	}
	($code, $out) = rc(['start'], { PATH => '/usr/bin:/bin' }, undef, $hand);
	is($code, 5, 'copied by hand, no binary anywhere: 5 (not installed)')
		or diag($out);
}

# A DETACH=0 build is put in the background by rc.httpd; one that cannot
# start (its port taken) fails the start, not only on its own stderr
{
	my $busy = IO::Socket::INET->new(Listen => 5, LocalAddr => '127.0.0.1',
		LocalPort => 0, ReuseAddr => 0) or die "listen: $!";
	my $fg = MrhttpdTest->new(conf => MrhttpdJail::conf($jail,
		SERVER_PORT => $busy->sockport, SERVER_ADDR => '127.0.0.1',
		DETACH => 0, SERVER_ROOT => '', SYSTEM_USER => '', LOG_FILE => '',
		PUBLIC_DIR => "$jail/htdocs", PRIVATE_DIR => ''));
	my $t0 = time;
	($code, $out) = rc(['start'], { MRHTTPD => $fg->binary,
		PIDFILE => "$dir/run/none.pid" });
	is($code, 1, 'DETACH=0 build whose port is taken: start: 1') or diag($out);
	like($out, qr/did not start \(exit 1\)/, '... and says so');
	like($out, qr/^mrhttpd: .*(?:bind|in use)/mi, '... with the server\'s own reason')
		or diag($out);
	ok(time - $t0 < 10, sprintf('... within %.1f s', time - $t0));

	# and one that starts is left running
	my $fport = MrhttpdJail::first_free_port(18400, 18499);
	SKIP: {
		skip 'no free port in 18400-18499', 5 unless $fport;
		my %env = (PIDFILE => "$dir/run/fg.pid");
		my $ok = MrhttpdTest->new(conf => { %{ $fg->conf },
			SERVER_PORT => $fport, PID_FILE => $env{PIDFILE},
			LOG_FILE => "$dir/run/fg.log" });
		# in a command substitution, as a web UI's program or a script
		# runs it: the server held the caller's stdout and stderr, and
		# the substitution ended only with the server (helper-70, -73)
		my $so = "$dir/fg-start.out";
		($code) = run_timed({ timeout => 8, stdout => $so, stderr => $so,
			env => { MRHTTPD => $ok->binary, %env } },
			'sh', '-c', 'o=$("$0" start 2>&1) && echo "started: $o"', $rc_httpd);
		$out = slurp($so) // '';
		is($code, 0, 'DETACH=0 build: start in $(...): 0, it returns') or diag($out);
		like($out, qr/^started: starting mrhttpd$/m, '... with its output') or diag($out);
		my ($r) = parse_responses(http_get('/', port => $fport, timeout => 3));
		is($r && $r->{status}, 200, 'DETACH=0 build: serving');
		($code) = rc(['status'], { MRHTTPD => $ok->binary, %env });
		is($code, 0, 'DETACH=0 build: status: 0');
		my $fgpid = (slurp($env{PIDFILE}) // '') =~ /^(\d+)/ ? $1 : undef;
		($code, $out) = rc(['stop'], { MRHTTPD => $ok->binary, %env });
		is($code, 0, 'DETACH=0 build: stop: 0') or diag($out);
		kill 'KILL', $fgpid if $fgpid && kill(0, $fgpid)
			&& (slurp("/proc/$fgpid/comm") // '') =~ /^mrhttpd/;
	}
}

($code) = rc(['frobnicate']);
is($code, 2, 'unknown action: 2');
($code) = rc(['start'], { MRHTTPD => "$dir/no-such-binary" });
is($code, 5, 'start without the binary: 5 (not installed)');

# --- killall -2 mrhttpd, in a pid namespace of its own ----------------------------------
SKIP: {
	my ($ok) = run_timed({ timeout => 10 }, 'unshare', '-pf', '--mount-proc',
		'true');
	skip 'unshare -pf --mount-proc does not work here', 8 if $ok != 0;
	skip 'killall is not installed (apt-get install psmisc)', 8
		unless MrhttpdTest::find_prog('killall');

	# A server outside the namespace, with the same name: it must survive.
	$t->run({ public => undef });
	my $outside = $t->pid;

	my $script = <<'EOF';
rc=$1 port=$2
$rc start; echo "start=$?"
$rc status; echo "status=$?"
echo "http=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")"
$rc stop; echo "stop=$?"
$rc status; echo "status2=$?"
echo "left=$(pidof mrhttpd)"
EOF
	my $res = "$dir/ns.out";
	my ($rc) = run_timed({ timeout => 30, stdout => $res, stderr => $res,
		env => { PIDFILE => '' } },
		'unshare', '-pf', '--mount-proc', 'sh', '-c', $script, 'sh',
		$rc_httpd, $port);
	my $o = slurp($res) // '';
	is($rc, 0, 'namespace: the script ran') or diag($o);
	like($o, qr/^start=0$/m, 'killall mode: start: 0') or diag($o);
	like($o, qr/^status=0$/m, 'killall mode: status when running: 0');
	like($o, qr/^http=200$/m, 'killall mode: serving');
	like($o, qr/^stop=0$/m, 'killall mode: stop (killall -2 mrhttpd): 0');
	like($o, qr/^status2=3$/m, 'killall mode: status after stop: 3');
	like($o, qr/^left=$/m, 'killall mode: no mrhttpd left in the namespace');
	ok($t->alive && $t->pid == $outside,
		'killall in the namespace left the mrhttpd outside it alone');
	$t->teardown;
}

done_testing();
