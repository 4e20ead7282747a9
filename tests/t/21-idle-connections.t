#!/usr/bin/perl
# Idle keep-alive connections hold no thread: they wait in the epoll set and
# a thread serves them only while a request is under way.  Checked from the
# outside: the server's thread count (/proc/PID/task) with hundreds of idle
# connections, each of them still served afterwards, a stalled client or a
# slow head that holds up nobody else, the keep-alive timeout of parked
# connections, MAX_CONNECTIONS counting parked connections too (and
# closing the one parked longest to make room for a new client), and the
# file cache with most descriptors taken by parked clients.

use strict;
use warnings;

use Test::More;
use Time::HiRes qw(time sleep);
use MrhttpdTest;
use MrhttpdAttack ();
use MrhttpdCGI qw(wait_for);

my $KA = 3;
# all from 127.0.0.1: no per-address limit here (see 60-attack-slots.t)
my $t = MrhttpdTest->new(conf => { KEEPALIVE_TIMEOUT => $KA, REQUEST_TIMEOUT => 10,
	MAX_CONNECTIONS_PER_IP => 0 });
$t->write_file('a.txt', "aaa\n");
$t->write_file('big.bin', 'x' x (16 << 20));
$t->run();

sub threads { my @t = glob('/proc/' . $t->pid . '/task/*'); return scalar @t }
sub get { my ($s, $path) = @_;
	http_send($s, "GET $path HTTP/1.1\r\nHost: x\r\n\r\n") or return undef;
	return read_response($s, timeout => 10) }

# --- hundreds of idle connections, a handful of threads ----------------------
my $N = $ENV{RUN_WRAPPER} ? 100 : 300;
my @idle;
for my $i (1 .. $N) {
	my $s = http_connect();
	my $r = get($s, '/a.txt');
	last unless $r && $r->{status} == 200;
	push @idle, $s;
}
is(scalar @idle, $N, "$N keep-alive connections, one request each");
my $threads = threads();
# qemu-user adds a thread of its own; a thread per connection would be 300
cmp_ok($threads, '<=', 8, "$N idle connections: $threads threads in the server");
my $ok = 0;
for my $s (reverse @idle) {
	my $r = get($s, '/a.txt');
	$ok++ if $r && $r->{status} == 200 && $r->{body} eq "aaa\n";
}
is($ok, $N, 'each idle connection is served again, in any order');

# --- a stalled download and a slow head stall nobody else --------------------
{
	my $stall = http_connect();
	http_send($stall, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
	my $slow = http_connect();
	http_send($slow, "GET /a.txt HTTP/1.1\r\nHo");
	sleep 0.3;
	my $t0 = time;
	my $r = get($idle[0], '/a.txt');
	is($r && $r->{status}, 200, 'served while a download stalls and a head dawdles');
	cmp_ok(time - $t0, '<', $ENV{RUN_WRAPPER} ? 5 : 2, '... promptly');
	my $s = http_connect();
	$r = get($s, '/a.txt');
	is($r && $r->{status}, 200, 'a new client too');
	http_send($slow, "st: x\r\n\r\n");
	$r = read_response($slow, timeout => 10);
	is($r && $r->{body}, "aaa\n", 'the slow head, finished, is answered');
	# the stalled client reads at last: every byte arrives
	my $rr = read_response($stall, timeout => 60);
	is($rr && length $rr->{body}, 16 << 20, 'the stalled download completes intact');
}

# --- input that came with the event is not left behind ----------------------
# Edge-triggered epoll reports input once: a request and the client's FIN
# arriving together, or more pipelined requests than one read takes, must
# still be seen without a further event.
{
	# the race needs the turn holder busy when both arrive: many tries
	my ($late, $tries) = (0, $ENV{RUN_WRAPPER} ? 60 : 300);
	for my $i (1 .. $tries) {
		my $s = http_connect();
		http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
		shutdown($s, 1);		# like printf ... | nc -N
		my $r = read_response($s, timeout => 10);
		my $el = defined $r ? wait_closed($s, 3) : undef;
		$late++ unless $r && $r->{status} == 200 && defined $el;
	}
	is($late, 0, "a request and its FIN in one go: answered and closed at once, $tries times");

	# HTTP_HEADER_LENGTH is 8192: requests that fill exactly one read,
	# then one more, all in one write
	my $one = "GET /a.txt HTTP/1.1\r\nHost: x\r\nX-Pad: ";
	my $req = sub { my $len = shift;
		my $h = $one . ('p' x ($len - length($one) - 4)) . "\r\n\r\n"; $h };
	my $batch = join('', map { $req->(1024) } 1 .. 8) . $req->(200);
	is(length($batch), 8392, 'eight requests of 1024 bytes and one more');
	my $short = 0;
	for my $i (1 .. 20) {
		my $s = http_connect();
		http_send($s, $batch);
		my $n = 0;
		while ($n < 9 && (my $r = read_response($s, timeout => 5))) {
			$n++ if $r->{status} == 200;
		}
		$short++ if $n != 9;
	}
	is($short, 0, 'pipelined past one full read: all nine answered, 20 times');
}

# --- parked connections still time out ---------------------------------------
{
	my $s = http_connect();
	ok(get($s, '/a.txt'), 'a connection for the keep-alive timeout');
	my $t0 = time;
	my $el = wait_closed($s, $KA + 5);
	ok(defined $el, 'a parked connection is closed after KEEPALIVE_TIMEOUT');
	cmp_ok($el // 99, '>=', $KA - 0.5, '... not before it') if defined $el;
	@idle = ();	# and these were idle as long
}

# --- MAX_CONNECTIONS counts the parked, and closes the oldest for room ----
{
	my $m = MrhttpdTest->new(conf => { MAX_CONNECTIONS => 4, KEEPALIVE_TIMEOUT => 30,
		MAX_CONNECTIONS_PER_IP => 0 });
	$m->write_file('a.txt', "aaa\n");
	$m->run();
	my @held = map { my $s = http_connect(); get($s, '/a.txt'); sleep 0.05; $s } 1 .. 4;
	my $fifth = http_connect();
	http_send($fifth, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r = read_response($fifth, timeout => 5);
	is($r && $r->{status}, 200,
		'MAX_CONNECTIONS=4, 4 idle: the fifth client is served at once');
	ok(defined wait_closed($held[0], 5), '... the one idle longest was closed for it');
	$r = get($held[1], '/a.txt');
	is($r && $r->{status}, 200, 'the others are still served');
}

# --- the file cache with most descriptors taken by parked clients -------
# A file's descriptor is kept in the cache unless descriptors are scarce:
# it is not in the upper half of the limit, or not within 256 of it. With
# 1,024 allowed and 700 parked clients, the next file opened gets about
# descriptor 705 and is kept (once, the upper half alone turned the cache
# off, so with 19,000 clients of 20,000 every request opened its file);
# with 900 parked it is not. And a thread that blocks on one client keeps
# only the file it sends, not every file it has cached.
{
	my ($nofile, $kept, $scarce) = (1024, 700, 900);
	SKIP: {
		skip("cannot open $nofile descriptors", 5)
			if MrhttpdAttack::raise_nofile($nofile) < $nofile;
		my $f = MrhttpdTest->new(conf => { KEEPALIVE_TIMEOUT => 60,
			REQUEST_TIMEOUT => 60, MAX_CONNECTIONS => $nofile,
			MAX_CONNECTIONS_PER_IP => 0 });
		$f->write_file($_, "$_\n") for qw(a.txt b.txt c.txt d.txt);
		$f->write_file('big.bin', 'x' x (16 << 20));
		$f->run({ nofile => $nofile });
		my $fds = '/proc/' . $f->pid . '/fd';
		my $open = sub { # how many descriptors the server has on NAMES
			my $re = join '|', map { quotemeta } @_;
			return scalar grep { (readlink($_) // '') =~ m{/(?:$re)\z} }
				glob("$fds/*");
		};

		# a thread blocked on one download keeps that file alone
		my $s = http_connect();
		ok((grep { my $r = get($s, "/$_"); $r && $r->{status} == 200 }
			qw(a.txt b.txt c.txt)) == 3
			&& $open->(qw(a.txt b.txt c.txt)) == 3,
			'three files served on one connection stay cached');
		http_send($s, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
		ok(wait_for(sub { $open->(qw(a.txt b.txt c.txt)) == 0
			&& $open->('big.bin') == 1 }, 3),
			'... blocked on a client that does not read, the thread '
			. 'keeps only the file it sends');
		close $s;

		my @held;
		my $park = sub { # N more parked clients, each served once
			for (1 .. $_[0]) {
				my $c = http_connect();
				my $r = $c && get($c, '/a.txt');
				return 0 unless $r && $r->{status} == 200;
				push @held, $c;
			}
			return 1;
		};
		ok($park->($kept), "$kept parked clients, of $nofile descriptors");
		my $r = get($held[-1], '/c.txt');
		# a file not kept is closed just after its reply: look twice
		ok($r && $open->('c.txt') == 1 && do { sleep 0.2; $open->('c.txt') == 1 },
			'... a file served then stays open in the cache');
		ok($park->($scarce - $kept) && get($held[-1], '/d.txt')
			&& wait_for(sub { $open->('d.txt') == 0 }, 3),
			"$scarce parked: a file served is closed after its reply");
		close $_ for @held;
	}
}

$t->done_testing();
