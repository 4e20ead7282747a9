#!/usr/bin/perl
# Attack: wrong passwords from one address hold up everyone's login.
# AUTH_FILE checks run one at a time (crypt(3) keeps its result in static
# storage).  An attacker at 127.0.0.1 keeps 24 connections each pipelining
# wrong passwords, so 24 checks wait in line at every moment.  A user at
# 127.0.0.2 logs in meanwhile (a wrong password too, so that each of its
# requests needs a check of its own and none is answered from memory).
# First come, first served, each of its logins waits for the 24 ahead; the
# line goes round the addresses instead, so it waits for one.  Measured as
# a ratio: its login under attack against the same login alone.

use strict;
use warnings;

use File::Temp qw(tempdir);
use IO::Select;
use MIME::Base64 qw(encode_base64);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT spew);
use MrhttpdAttack;

my $FLOOD = 24;			# the attacker's connections
my $DEPTH = 40;			# requests each pipelines

my $hash = crypt('right', '$6$rounds=20000$saltsaltsalt$');
plan skip_all => 'crypt(3) has no SHA-512 here'
	unless defined $hash && $hash =~ /^\$6\$/;
my $dir = tempdir('mrhttpd-login-XXXXXXXX', TMPDIR => 1, CLEANUP => 1);
spew("$dir/users", "admin:$hash\n");
my $t = eval { MrhttpdTest->new(conf => { AUTH_FILE => "$dir/users",
	AUTH_METHODS => 1, MAX_CONNECTIONS_PER_IP => 64 }) };
plan skip_all => 'AUTH_FILE needs crypt(3), which this toolchain lacks'
	unless $t;
$t->write_file('a.txt', "aaa\n");
$t->run();
my $port = $t->port;

sub req {
	return "GET /a.txt HTTP/1.1\r\nHost: x\r\nAuthorization: Basic "
		. encode_base64($_[0], '') . "\r\n\r\n";
}

# one login from 127.0.0.2 on a fresh connection: (status, seconds)
sub login {
	my ($pass) = @_;
	my $t0 = time;
	my $s = connect_from('127.0.0.2', '127.0.0.1', $port, 10) or return (0, 0);
	print $s req("admin:$pass");
	my $got = '';
	$s->blocking(1);
	while ($got !~ /\r\n\r\n/) {
		my $sel = IO::Select->new($s);
		last unless $sel->can_read(30);
		last unless sysread($s, $got, 4096, length $got);
	}
	my ($st) = $got =~ m{^HTTP/1\.1 (\d{3})};
	return ($st // 0, time - $t0);
}

sub median { my @s = sort { $a <=> $b } @_; return $s[@s / 2] }

my (@alone, @attacked, @st);
for my $i (1 .. 7) {
	my ($st, $dt) = login("alone$i");
	push @st, $st;
	push @alone, $dt;
}
is("@st", '401 401 401 401 401 401 401', 'wrong passwords alone: 401 each');
my $one = median(@alone);
note(sprintf 'a check alone: %.1f ms', 1000 * $one);

# the flood: a child that keeps FLOOD connections full of wrong passwords
my $flood = MrhttpdAttack::spawn('flood', 90, sub {
	my @c = map { connect_from('127.0.0.1', '127.0.0.1', $port, 10) } 1 .. $FLOOD;
	my $n = 0;
	my $end = time + 60;
	while (time < $end) {
		for my $c (grep { defined } @c) {
			print $c req('admin:guess' . $n++) for 1 .. $DEPTH;
		}
		# read whatever came back, then pipeline more
		my $sel = IO::Select->new(grep { defined } @c);
		for my $c ($sel->can_read(1)) {
			my $buf;
			sysread($c, $buf, 65536);
		}
	}
	exit 0;
});
sleep 1 + 15 * $one;		# the line is full

@st = ();
for my $i (1 .. 5) {
	my ($st, $dt) = login("under$i");
	push @st, $st;
	push @attacked, $dt;
}
MrhttpdAttack::stop_child($flood);
is("@st", '401 401 401 401 401', 'under the flood: 401 each');
my $under = median(@attacked);
my $ratio = $one > 0 ? $under / $one : 99;
# first come, first served: about FLOOD + 1 checks; in turn: 2 to 4 (a
# loaded machine moves the single check more than that)
ok($ratio < 10, sprintf('a login under the flood waits for about one check, '
	. 'not %d: %.1f ms, %.1f checks', $FLOOD, 1000 * $under, $ratio))
	or diag(sprintf 'alone %s ms; under the flood %s ms',
		join(' ', map { sprintf '%.1f', 1000 * $_ } @alone),
		join(' ', map { sprintf '%.1f', 1000 * $_ } @attacked));

my ($ok) = login('right');
is($ok, 200, 'the right password: 200');
is($t->stop(), 0, 'the server exits 0');
done_testing();
