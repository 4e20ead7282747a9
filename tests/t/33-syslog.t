#!/usr/bin/perl
# LOG_FILE=syslog (root only): the jailed server, running as nobody, sends
# its lines to /dev/log, which it connected to before entering the jail.
#
# The host may have no syslog daemon, and we must not touch its /dev/log,
# so this file re-runs itself in a private mount namespace (unshare -m)
# with a tmpfs on /dev that holds our own /dev/log receiver.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IO::Socket::UNIX;
use File::Path qw(make_path);
use IO::Select;
use Socket qw(SOCK_DGRAM SOCK_STREAM);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;
use MrhttpdJail qw(run_timed);

unless ($ENV{MRHTTPD_TEST_IN_NS}) {
	plan(skip_all => 'needs root (mount namespace, chroot)') if $> != 0;
	plan(skip_all => 'RUN_WRAPPER is set: jail tests run only natively')
		if $ENV{RUN_WRAPPER};
	plan(skip_all => 'MRHTTPD_TEST_BINARY is set: this test needs its own build')
		if $ENV{MRHTTPD_TEST_BINARY};
	plan(skip_all => 'unshare(1) is not installed (util-linux)')
		unless MrhttpdTest::find_prog('unshare');
	my ($ok) = run_timed({ timeout => 10 }, 'unshare', '-m', 'true');
	plan(skip_all => 'unshare -m does not work here (no CAP_SYS_ADMIN?)')
		if $ok != 0;

	# In the namespace: keep the real /dev reachable, put a tmpfs on
	# /dev, bind the few devices back that the tests use, run this file.
	my $old = tempdir('mrhttpd-dev-XXXXXXXX', TMPDIR => 1);
	my $prelude = <<'EOF';
set -e
old=$1; shift
mount --bind /dev "$old"
mount -t tmpfs -o mode=0755,size=1m mrhttpd-test-dev /dev
for d in null zero random urandom; do
	: > "/dev/$d"
	mount --bind "$old/$d" "/dev/$d"
done
exec "$@"
EOF
	local $ENV{MRHTTPD_TEST_IN_NS} = 1;
	system('unshare', '-m', '--propagation', 'private', 'sh', '-c',
		$prelude, 'sh', $old, $^X, "-I$MrhttpdTest::ROOT/tests/lib", $0);
	my $code = $? == -1 ? 1 : $? & 127 ? 128 + ($? & 127) : $? >> 8;
	rmdir $old;
	POSIX::_exit($code);
}

# --- from here on, in the namespace ---------------------------------------------------
my $dir = MrhttpdJail::setup('syslog-33');
my $j = MrhttpdJail::make_jail("$dir/jail");
my ($jail, $marker) = @$j{qw(dir marker)};

unlink '/dev/log';
my $recv = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => '/dev/log')
	or plan(skip_all => "cannot bind a receiver at /dev/log: $!");
chmod 0666, '/dev/log';

my $t = MrhttpdTest->new(conf => MrhttpdJail::conf($jail, LOG_FILE => 'syslog'));
$t->has(qw(syslog chroot setuid));
$t->run({ public => undef });

# messages(SECONDS, qr//): datagrams received until one matches, or time out.
my @got;
sub wait_msg {
	my ($re, $secs) = @_;
	my $deadline = time + ($secs // 5);
	for (;;) {
		return 1 if grep { $_ =~ $re } @got;
		my $left = $deadline - time;
		return 0 if $left <= 0;
		my $rin = '';
		vec($rin, fileno($recv), 1) = 1;
		next unless select(my $rout = $rin, undef, undef, $left);
		my $buf;
		push @got, $buf if defined $recv->recv($buf, 8192);
	}
}

my ($r) = parse_responses(http_get('/index.html?via-syslog'));
is($r && $r->{body}, "jail index $marker\n", 'the jailed server serves');
my $pid = $t->pid;
ok(wait_msg(qr{"GET /index\.html\?via-syslog HTTP/1\.0" 200 }),
	'the access line arrives at /dev/log') or diag(join "\n", @got);
my ($line) = grep { /via-syslog HTTP\/1\.0" 200/ } @got;
like($line // '', qr/^<30>/, 'facility daemon, priority info');
# no time stamp: syslogd stamps its own, in local time (RFC 3164 4.3.2)
like($line // '', qr/^<30>mrhttpd\[$pid\]: 127\.0\.0\.1 - - \[/,
	'tagged mrhttpd[pid], then the CLF line');
ok(wait_msg(qr/\[info\] mrhttpd \S+ listening/, 1),
	'the start-up message went to syslog too');

# SIGHUP has no file to reopen: syslog keeps working.
kill 'HUP', $pid;
http_get('/index.html?after-hup');
ok(wait_msg(qr{after-hup HTTP/1\.0" 200 }), 'after SIGHUP: still logging to syslog');

# A syslogd that stops reading: Linux queues 10 datagrams, then syslog(3)
# waited, and every request with it.  Now lines are lost, and counted.
{
	my $closed = 0;
	for my $i (1 .. 20) {
		my $c;
		my ($x) = parse_responses(http_get("/index.html?stall-$i",
			timeout => 5, closed => \$c));
		$closed++ if $x && $x->{status} == 200 && $c;
	}
	is($closed, 20, 'syslogd not reading: 20 requests served and closed, none waiting for it');
	wait_msg(qr/stall-20 /, 1);	# what was queued, read now
	@got = ();
	http_get('/index.html?after-stall');
	ok(wait_msg(qr/\[warn\] \d+ log lines lost: the log did not take them in time/),
		'once it reads again, the lines lost are counted in a warning')
		or diag(join "\n", @got);
	ok(wait_msg(qr/after-stall HTTP/), '... and lines flow again');
}

# A syslogd that listens on a stream socket (syslog-ng's unix-stream):
# glibc's syslog(3) fell back to one, and so does the server, when the
# datagram socket is refused; in the jail, /dev/log is the jail's
{
	make_path("$jail/dev");
	unlink "$jail/dev/log";
	my $ls = IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => "$jail/dev/log",
		Listen => 5) or die "listen $jail/dev/log: $!";
	chmod 0666, "$jail/dev/log";
	$recv->close;	# the datagram syslogd goes away
	unlink '/dev/log';
	http_get('/index.html?via-stream');
	my $sel = IO::Select->new($ls);
	my $got = '';
	if ($sel->can_read(5)) {
		my $c = $ls->accept;
		my $cs = IO::Select->new($c);
		while ($got !~ /via-stream/ && $cs->can_read(5)) {
			last unless sysread($c, my $b, 8192);
			$got .= $b;
		}
	}
	like($got, qr/<30>mrhttpd\[$pid\]: [^\0]*via-stream[^\0]*\0/,
		'a stream /dev/log: the line comes over it, ended by a NUL')
		or diag($got);
	# and a datagram syslogd again, found by the name
	close $ls;
	unlink "$jail/dev/log";
	$recv = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => "$jail/dev/log")
		or die "bind $jail/dev/log: $!";
	chmod 0666, "$jail/dev/log";
	@got = ();
	http_get('/index.html?via-dgram-again');
	ok(wait_msg(qr/via-dgram-again/), '... and a datagram one again after it');
}

is($t->stop, 0, 'exit 0');
ok(wait_msg(qr/\[info\] stopped/, 2), 'the stop is logged to syslog');
is((-s $t->testdir . '/stdout.log') || 0, 0, 'nothing logged on stdout');
ok(!grep({ /\[(?:error|crit|alert)\]/ } @got), 'no error lines in syslog')
	or diag(join "\n", @got);
$t->teardown;
unlink '/dev/log';

done_testing();
