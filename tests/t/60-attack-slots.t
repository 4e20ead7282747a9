#!/usr/bin/perl
# Attack: hogging the connection slots (MAX_CONNECTIONS=32).  Throughout,
# a normal client from another loopback address GETs a small file on a
# fresh connection every ~150 ms and must be answered within 1 s (x3
# under a RUN_WRAPPER).
#   per-ip	MAX_CONNECTIONS_PER_IP=8 (a quarter of the slots): eight
#		keep-alive connections from one address are served, the
#		ninth gets a 503 and is closed, and the refusal is logged
#		at warn level; one of the eight closes, and a new one fits
#   (a)		32 connections that send nothing, from 127.0.0.2 (8 are
#		held, 24 refused with 503), and then from four addresses
#		(8 each: every slot), reconnecting when dropped: the oldest
#		silent one is closed to make room for the normal client
#   (b)		32 partial heads ("GET / HTTP/1.1\r\nHost: x\r\n", then
#		silence) from 127.0.0.2: 8 held, 24 refused.  From four
#		addresses they take every slot; parked like silent ones,
#		they hold no thread (a handful in all), and the one parked
#		longest is closed to make room for the normal client
#   (c)		MAX_CONNECTIONS_PER_IP=0: 32 idle keep-alive connections
#		from one address; a newcomer is served at once, and the
#		connections closed to make room are the oldest ones
#   (d)		32 slow PUT bodies from four addresses, reconnecting: the
#		longest wait for a body is ended to make room for the
#		normal client, and nothing of the uploads stays
#   (d2)	a client refused for its address (503) cuts no upload;
#		one admitted from another address has the oldest cut
#   (d3)	the same slow bodies to a CGI program: its wait for the
#		body is cut for the normal client as a PUT's is
#   (e)		32 slow reads from four addresses: GETs of a big file
#		whose replies are never read; the longest wait to write is
#		ended to make room for the normal client
# Old servers without the MAX_CONNECTIONS_PER_IP key are run without it
# (and fail the asserts that need it).

use strict;
use warnings;

use IO::Select;
use IO::Socket::IP;
use Socket qw(SOL_SOCKET SO_RCVBUF);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;
use MrhttpdAttack;

my $PER_IP_KEY = conf_knows('MAX_CONNECTIONS_PER_IP');
my $HOLD = 3;		# seconds each attack is held while probing
my $bound = latency_bound();

my $t = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 32,
	($PER_IP_KEY ? (MAX_CONNECTIONS_PER_IP => 8) : ()),
	KEEPALIVE_TIMEOUT => 30, REQUEST_TIMEOUT => 10 });
$t->write_file('probe.txt', "probe\n");
$t->run();
sleep 0.2;
my $port = $t->port;

sub get_on {
	my ($s, %o) = @_;
	http_send($s, "GET /probe.txt HTTP/1.1\r\nHost: x\r\n\r\n") or return undef;
	return read_response($s, timeout => $o{timeout} // 5);
}

# Is the server done with $s (EOF or reset), waiting at most $secs?
sub is_closed {
	my ($s, $secs) = @_;
	return 1 if ${*$s}{mrhttpd_eof};
	return 0 unless IO::Select->new($s)->can_read($secs);
	my $n = sysread($s, my $buf, 4096);
	${*$s}{mrhttpd_buf} .= $buf if $n;
	return !$n;
}

# --- per-ip: the ninth connection from one address ---------------------------
{
	my $p = probe_start(port => $port, addr => '127.0.0.1');
	my @c;
	for (1 .. 8) {
		my $s = connect_from('127.0.0.3', '127.0.0.1', $port);
		my $r = $s && get_on($s);
		push @c, $s if $r && $r->{status} == 200;
	}
	is(scalar @c, 8, 'per-ip: 8 keep-alive connections from 127.0.0.3 served');
	my $ninth = connect_from('127.0.0.3', '127.0.0.1', $port);
	my $r = get_on($ninth, timeout => 2 * $bound);
	is($r && $r->{status}, 503, 'per-ip: the 9th from 127.0.0.3 gets a 503');
	like($r ? $r->{raw_head} : '', qr/\r\nRetry-After: \d+\r\n/i, '... with Retry-After');
	ok(is_closed($ninth, 2), '... and is closed');
	my $log = '';
	for (1 .. 20) {
		last if ($log = $t->log) =~ /MAX_CONNECTIONS_PER_IP/;
		sleep 0.1;
	}
	like($log, qr/^\S+ \[warn\] 127\.0\.0\.3: MAX_CONNECTIONS_PER_IP \(8\) reached, refused$/m,
		'per-ip: the refusal is logged at warn level');
	$r = get_on($c[0]);
	is($r && $r->{status}, 200, 'per-ip: the 8 are still served');
	close(pop @c);
	sleep 0.2;
	my $again = connect_from('127.0.0.3', '127.0.0.1', $port);
	$r = get_on($again);
	is($r && $r->{status}, 200, 'per-ip: one of the 8 closed: a new one fits');
	probe_check(probe_stop($p), 'slots-per-ip');
	close $_ for @c, $again, $ninth;
	sleep 0.2;
}

# --- (a) and (b): silent connections and partial heads -------------------------
# attack(NAME, ADDRS, BYTES, RECONNECT): holds 32 connections while
# probing from 127.0.0.1; returns the holder's counts.
sub attack {
	my ($name, $addrs, $send, $reconnect) = @_;
	my $h = hold_start(port => $port, addrs => $addrs, n => 32,
		send => $send, reconnect => $reconnect, rate => 500,
		max => $HOLD + 10);
	ok(hold_ready($h, 10), "$name: 32 connections opened");
	sleep 0.2;	# in place before the first probe
	my $p = probe_start(port => $port, addr => '127.0.0.1');
	sleep $HOLD;
	my $threads = (MrhttpdTest::slurp('/proc/' . $t->pid . '/status') // '')
		=~ /^Threads:\s+(\d+)/m ? $1 : -1;
	my $res = probe_stop($p);
	my $st = hold_stop($h);
	$st->{threads} = $threads;
	note("$name: attacker: " . hold_summary($st));
	sleep 0.3;	# the server sees them go
	return ($res, $st);
}

my $PARTIAL = "GET / HTTP/1.1\r\nHost: x\r\n";
my @FOUR = map { "127.0.0.$_" } 2 .. 5;

{
	my ($res, $st) = attack('slots-silent-one-addr', ['127.0.0.2'], '', 0);
	probe_check($res, 'slots-silent-one-addr');
	is($st->{status}{503} // 0, 24, 'silent, one address: 24 refused with 503');
	is($st->{open} // 0, 8, '... 8 held open');
}
{
	my ($res, $st) = attack('slots-silent-4-addrs', \@FOUR, '', 1);
	probe_check($res, 'slots-silent-4-addrs');
	cmp_ok($st->{closed} // 0, '>=', 1,
		'silent, four addresses: silent ones were closed to make room');
	is(scalar(keys %{ $st->{status} }), 0, '... without a response');
}
{
	my ($res, $st) = attack('slots-partial-one-addr', ['127.0.0.2'], $PARTIAL, 0);
	probe_check($res, 'slots-partial-one-addr');
	is($st->{status}{503} // 0, 24, 'partial heads, one address: 24 refused with 503');
	is($st->{open} // 0, 8, '... 8 held open');
	# the server's threads: main, the turn's, a spare; qemu-user one more
	cmp_ok($st->{threads}, '<=', 5, '... on no thread of their own')
		or diag("$st->{threads} threads");
}
{
	my ($res, $st) = attack('slots-partial-4-addrs', \@FOUR, $PARTIAL, 1);
	probe_check($res, 'slots-partial-4-addrs');
	cmp_ok($st->{closed} // 0, '>=', 1,
		'partial heads, four addresses: some closed to make room');
	is(scalar(keys %{ $st->{status} }), 0, '... without a response');
	cmp_ok($st->{threads}, '<=', 5, '... and all 32 on no thread of their own')
		or diag("$st->{threads} threads");
}
ok($t->alive, 'the server is still running after (a) and (b)');
{
	my ($r) = parse_responses(http_get('/probe.txt'));
	is($r && $r->{status}, 200, 'and serves a GET');
}

# --- (c): the oldest idle connection makes room --------------------------------
{
	my $e = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 32,
		KEEPALIVE_TIMEOUT => 30, REQUEST_TIMEOUT => 10,
		$PER_IP_KEY ? (MAX_CONNECTIONS_PER_IP => 0) : () });
	$e->write_file('probe.txt', "probe\n");
	$e->run();
	sleep 0.2;
	my $ep = $e->port;
	my $p = probe_start(port => $ep, addr => '127.0.0.1');
	my @c;
	for (1 .. 32) {
		my $s = connect_from('127.0.0.2', '127.0.0.1', $ep);
		my $r = $s && get_on($s);
		last unless $r && $r->{status} == 200;
		push @c, $s;
		sleep 0.005;	# parked in this order, a few ms apart
	}
	is(scalar @c, 32, 'evict: 32 idle keep-alive connections from 127.0.0.2');

	# closed: which of them the server closed, oldest first in @c
	my $states = sub {
		my $first = shift;
		return map { is_closed($c[$_], $_ == $first ? 2 : 0) ? 1 : 0 } 0 .. $#c;
	};
	my $prefix = sub {	# closed ones form a prefix of @c
		my @cl = @_;
		my $n = grep { $_ } @cl;
		return !grep { $cl[$_] } $n .. $#cl;
	};
	my @new;	# the newcomers stay, idle: each takes a slot for good
	for my $k (1, 2) {
		my $t0 = time;
		my $s = connect_from('127.0.0.3', '127.0.0.1', $ep);
		my $r = $s && get_on($s, timeout => 3 * $bound);
		my $el = time - $t0;
		is($r && $r->{status}, 200, "evict: newcomer $k served");
		cmp_ok($el, '<', $bound, "... within $bound s");
		push @new, $s if $s;
		my @cl = $states->($k - 1);
		my $n = grep { $_ } @cl;
		ok($cl[$k - 1], "evict: connection " . ($k - 1)
			. " (the oldest left) was closed to make room");
		ok($prefix->(@cl), '... the closed ones are the oldest')
			or diag('closed: ' . join('', @cl));
		cmp_ok($n, '<=', $k + 5, '... and only as many as needed')
			or diag("$n closed");
		is(${*{ $c[$k - 1] }}{mrhttpd_buf} // '', '',
			'... quietly (no response on it)');
	}
	probe_check(probe_stop($p), 'slots-evict');
	close $_ for @c, @new;
	ok($e->alive, 'evict: the server is still running');
}

# slow_bodies(SERVER, METHOD AND TARGET, WHAT, PROBE NAME): 32 heads with
# the start of a 100-byte body from four addresses, reconnecting when
# dropped, while the normal client probes; some must be closed for it.
sub slow_bodies {
	my ($d, $line, $what, $name) = @_;
	my $h = hold_start(port => $d->port, addrs => \@FOUR, n => 32,
		send => "$line HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"
		. "\r\nthe start", reconnect => 1, rate => 500, max => $HOLD + 10);
	ok(hold_ready($h, 10), "$what: 32 connections opened");
	sleep 0.5;	# every body being waited for
	my $p = probe_start(port => $d->port, addr => '127.0.0.1');
	sleep $HOLD;
	my $res = probe_stop($p);
	my $st = hold_stop($h);
	note("$what: attacker: " . hold_summary($st));
	probe_check($res, $name);
	cmp_ok($st->{closed} // 0, '>=', 1, "$what: some closed to make room");
}

# --- (d): slow bodies (R-U-Dead-Yet) from four addresses ---------------------------
# 32 PUTs that send their head and the start of a body, then stall, from
# four addresses (8 each: every slot), reconnecting when dropped.  A
# body being read is on a thread, not parked: the wait for it that began
# longest ago is ended to make room for the normal client, and the cut
# uploads leave nothing behind.
SKIP: {
	my $d = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 32,
		($PER_IP_KEY ? (MAX_CONNECTIONS_PER_IP => 8) : ()),
		KEEPALIVE_TIMEOUT => 30, REQUEST_TIMEOUT => 20, PUT_PATH => '/up' });
	skip('no PUT in this build', 8)
		unless ($d->version_info->{features}{put} // '') eq 'yes';
	$d->write_file('probe.txt', "probe\n");
	$d->write_file('up/keep.txt', "keep\n");
	$d->run();
	sleep 0.2;
	# exactly as many as there are slots, and no one else: none is cut
	# (the listener is asked again after each accept, queue or not)
	my $f = hold_start(port => $d->port, addrs => \@FOUR, n => 32,
		send => "PUT /up/slow.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"
		. "\r\nthe start", rate => 20, max => $HOLD + 10);
	ok(hold_ready($f, 10), 'slow bodies: 32 in the 32 slots');
	sleep 1;
	my $fs = hold_stop($f);
	is($fs->{closed} // 0, 0, '... none cut while no one else came')
		or diag(hold_summary($fs));
	sleep 0.5;	# the server sees them go
	slow_bodies($d, 'PUT /up/slow.txt', 'slow bodies', 'slots-slow-bodies-4-addrs');
	ok($d->alive, 'slow bodies: the server is still running');
	$d->stop();
	my @left = grep { !/keep\.txt$/ } glob($d->htdocs . '/up/* ' . $d->htdocs . '/up/.[!.]*');
	is("@left", '', 'slow bodies: no upload or temporary file left behind');
}

# --- (d2): a client refused for its address cuts no one's upload ---------------------
# Every slot waits for a body: a victim's PUT (the oldest wait), then 31
# more from four addresses.  A ninth connection from one of those
# addresses is refused (503) before anything is cut, so the victim's
# upload goes on; a newcomer from another address is admitted, and the
# wait that began longest ago, the victim's, is cut for it.  Before, the
# refused one cost the victim its upload.
SKIP: {
	skip('no MAX_CONNECTIONS_PER_IP', 5) unless $PER_IP_KEY;
	my $d = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 32,
		MAX_CONNECTIONS_PER_IP => 8, KEEPALIVE_TIMEOUT => 30,
		REQUEST_TIMEOUT => 20, PUT_PATH => '/up' });
	skip('no PUT in this build', 5)
		unless ($d->version_info->{features}{put} // '') eq 'yes';
	$d->write_file('probe.txt', "probe\n");
	$d->run();
	sleep 0.2;
	my $put = "PUT /up/slow.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nthe start";
	my $from = sub {
		my $s = IO::Socket::IP->new(LocalHost => $_[0], PeerHost => '127.0.0.1',
			PeerPort => $d->port) or return undef;
		http_send($s, $put);
		return $s;
	};
	my $victim = $from->('127.0.0.6');
	sleep 0.3;	# its wait begins first
	my @held = grep { defined } map { $from->($FOUR[$_ % 4]) } 0 .. 30;
	is(scalar @held, 31, 'refused newcomer: 32 slow bodies in the 32 slots');
	sleep 0.5;
	my $ninth = IO::Socket::IP->new(LocalHost => $FOUR[0],
		PeerHost => '127.0.0.1', PeerPort => $d->port);
	my $r = $ninth && get_on($ninth, timeout => 3);
	is($r && $r->{status}, 503, '... a ninth from one address: 503');
	ok(!defined wait_closed($victim, 1), '... and the oldest upload goes on');
	my $new = IO::Socket::IP->new(LocalHost => '127.0.0.7',
		PeerHost => '127.0.0.1', PeerPort => $d->port);
	$r = $new && get_on($new, timeout => 3);
	is($r && $r->{status}, 200, '... a newcomer from another address is served');
	ok(defined wait_closed($victim, 3), '... the oldest upload cut for it');
	close $_ for @held, $victim;
	$d->stop();
}

# --- (d3): slow bodies to a program ----------------------------------------------
# The same 32 slow bodies, to a CGI program that reads its input.  The
# program's pump polls the socket for the body beside the program's
# output; that wait is marked as a wait for the client, so it is cut for
# the normal client as a PUT's is.  Between 6a3097a and this test it was
# not: 32 such bodies held every slot until CGI_TIMEOUT, and the normal
# client got nothing.
SKIP: {
	my $dir = MrhttpdTest::fixed_dir('cgi-60-slots');
	MrhttpdTest::spew("$dir/wc.sh", "#!/bin/sh\nn=\$(wc -c)\n"
		. "printf 'Content-Type: text/plain\\n\\n%s\\n' \$n\n", 0755);
	my $d = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 32,
		($PER_IP_KEY ? (MAX_CONNECTIONS_PER_IP => 8) : ()),
		KEEPALIVE_TIMEOUT => 30, REQUEST_TIMEOUT => 20, CGI_PATH => '/cgi-bin',
		CGI_DIR => $dir });
	skip('no CGI in this build', 6)
		unless ($d->version_info->{features}{cgi} // '') eq 'yes';
	$d->write_file('probe.txt', "probe\n");
	$d->run();
	sleep 0.2;
	slow_bodies($d, 'POST /cgi-bin/wc.sh', 'slow bodies to a program',
		'slots-slow-cgi-bodies-4-addrs');
	ok($d->alive, 'slow bodies to a program: the server is still running');
	$d->stop();
}

# --- (e): slow reads from four addresses ---------------------------------------------
# 32 clients with small receive buffers GET a 16 MB file and read
# nothing.  A reply being written waits on its thread for room in the
# socket: the wait that began longest ago is ended to make room for the
# normal client.  Before, the newcomer waited for REQUEST_TIMEOUT.
{
	my $e = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 32,
		($PER_IP_KEY ? (MAX_CONNECTIONS_PER_IP => 8) : ()),
		KEEPALIVE_TIMEOUT => 30, REQUEST_TIMEOUT => 20 });
	$e->write_file('probe.txt', "probe\n");
	$e->write_file('big.bin', 'z' x (16 << 20));
	$e->run();
	sleep 0.2;
	my @slow;
	for my $i (0 .. 31) {
		my $s = IO::Socket::IP->new(LocalHost => $FOUR[$i % 4],
			PeerHost => '127.0.0.1', PeerPort => $e->port,
			Sockopts => [[SOL_SOCKET, SO_RCVBUF, 4096]]) or last;
		http_send($s, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
		push @slow, $s;
	}
	is(scalar @slow, 32, 'slow reads: 32 connections opened');
	sleep 0.5;	# every reply stuck in its socket
	my $p = probe_start(port => $e->port, addr => '127.0.0.1');
	sleep $HOLD;
	probe_check(probe_stop($p), 'slots-slow-reads-4-addrs');
	ok($e->alive, 'slow reads: the server is still running');
	close $_ for @slow;
	$e->stop();
}

$t->done_testing();
