#!/usr/bin/perl
# 83-h2-address-share.t - HTTP/2 streams that run on threads of their own
# (CGI, uploads, listings, bodies) are shared out by client address: one
# address runs at most MAX_CONNECTIONS_PER_IP of them at once, as many as
# it could hold busy HTTP/1 connections.  Before, each of its connections
# could run H2_THREADS (8), so a few connections from one address took
# every thread the server allows (MAX_CONNECTIONS) and kept them, and
# everyone else's programs got 503.  A connection past its address's
# share waits for its own threads; one with none is refused.

use strict;
use warnings;

use IO::Select;
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT);
use MrhttpdCGI qw(cgi_dir script wait_for children);
use MrhttpdAttack qw(connect_from);
use MrhttpdH2;
use Socket qw(PF_INET SOCK_STREAM SOL_SOCKET SO_RCVBUF inet_aton
	pack_sockaddr_in);

my $dir = cgi_dir('h2-83');
script("$dir/cgi-bin/sleep.sh", <<'EOF');
#!/bin/sh
sleep 15
printf 'Content-Type: text/plain\n\nwoke\n'
EOF
script("$dir/cgi-bin/second.sh", <<'EOF');
#!/bin/sh
sleep 1
printf 'Content-Type: text/plain\n\nsecond\n'
EOF
# reads.sh: answers once it has read the whole body
script("$dir/cgi-bin/reads.sh", <<'EOF');
#!/bin/sh
cat >/dev/null
printf 'Content-Type: text/plain\n\nread\n'
EOF
script("$dir/cgi-bin/fast.sh", <<'EOF');
#!/bin/sh
printf 'Content-Type: text/plain\n\nfast\n'
EOF
# flood.sh: output without end, for a client that does not take it
script("$dir/cgi-bin/flood.sh", <<'EOF');
#!/bin/sh
printf 'Content-Type: text/plain\n\n'
l=$(printf '%01000d' 0)
while :; do echo $l || exit; done
EOF

my $t = MrhttpdTest->new(conf => { HTTP2 => 1, CGI_PATH => '/cgi-bin',
	CGI_DIR => "$dir/cgi-bin", MAX_CONNECTIONS => 16,
	MAX_CONNECTIONS_PER_IP => 4 });
$t->run;
my $port = $t->port;

# open_from(SRC): an HTTP/2 connection from address SRC
sub open_from {
	my $s = connect_from($_[0], '127.0.0.1', $port, 5) or die "connect: $!";
	http_send($s, h2_preface() . h2_settings());
	return $s;
}
sub get { return join '', map { h2_headers(2 * $_ + 1, $_[0]) } 0 .. $_[1] - 1 }
sub programs { return scalar grep { $_->[2] =~ /sleep\.sh/ } children($t->pid) }
# answers(SOCK, N, SECS): the bodies of streams 1, 3, ... once all N ended
sub answers {
	my ($s, $n, $secs) = @_;
	my $left = $n;
	my ($f) = h2_read($s, $secs, sub { $_[0]{type} == H2_DATA &&
		$_[0]{flags} & 1 && --$left == 0 });
	return map { my $id = 2 * $_ + 1; join '', map { $_->{payload} }
		grep { $_->{type} == H2_DATA && $_->{id} == $id } @$f } 0 .. $n - 1;
}

# --- one address, four connections, eight slow programs each ---------------------
my @hog = map { open_from('127.0.0.1') } 1 .. 4;
http_send($_, get('/cgi-bin/sleep.sh', 8)) for @hog;
ok(wait_for(sub { programs() >= 4 }, 5), 'the address gets its share');
sleep 1;
my $n = programs();
is($n, 4, "32 slow streams from one address: $n programs run (its share, 4; "
	. 'the server allows 16)');

# --- meanwhile another address is served ----------------------------------------
{
	my $t0 = time;
	my $c = open_from('127.0.0.2');
	http_send($c, get('/cgi-bin/fast.sh', 1));
	my ($body) = answers($c, 1, 5);
	is($body, "fast\n", sprintf('another address: its program runs (%.2f s)',
		time - $t0));
	close $c;
}

# --- a connection past its address's share waits for its own threads ------------
{
	my $c = open_from('127.0.0.3');
	http_send($c, get('/cgi-bin/fast.sh', 7));
	my @b = answers($c, 7, 10);
	is(scalar(grep { $_ eq "fast\n" } @b), 7,
		'7 programs on one connection, share 4: all 7 answered, in turn');
	close $c;
}

close $_ for @hog;
ok(wait_for(sub { programs() == 0 }, 10), 'the slow programs stop with their connections');

# --- a share freed on another connection of the address ---------------------------
# Connection A runs a slow program and then asks for a fast one; B, of the
# same address, holds the rest of the share for a second.  When B's end,
# A's waiting stream starts then, not when A's own slow program ends.
{
	my $a = open_from('127.0.0.4');
	http_send($a, get('/cgi-bin/sleep.sh', 1));
	ok(wait_for(sub { programs() == 1 }, 5), 'A: a slow program runs');
	my $b = open_from('127.0.0.4');
	http_send($b, get('/cgi-bin/second.sh', 3));
	sleep 0.3;
	my $t0 = time;
	http_send($a, h2_headers(3, '/cgi-bin/fast.sh'));
	my ($f) = h2_read($a, 10, sub { $_[0]{type} == H2_DATA && $_[0]{id} == 3
		&& $_[0]{flags} & 1 });
	my $got = join '', map { $_->{payload} } grep { $_->{type} == H2_DATA
		&& $_->{id} == 3 } @$f;
	my $took = time - $t0;
	ok($got eq "fast\n" && $took < 5, sprintf('A\'s next program starts once '
		. 'B\'s end: answered in %.1f s (A\'s own runs 15 s)', $took));
	my @b = answers($b, 3, 5);
	is(scalar(grep { $_ eq "second\n" } @b), 3, 'B\'s three were answered');
	close $_ for $a, $b;
	ok(wait_for(sub { programs() == 0 }, 10), 'A\'s slow program stops with A');
}

# --- bodies that never come, from four addresses, hold every stream thread -------
# Each address opens its share (4) of POST streams to a program and sends
# no body: 16 threads, the server's MAX_CONNECTIONS, each waiting for its
# client.  A fifth address's program used to get 503 until REQUEST_TIMEOUT
# ended those waits; now the wait that began longest ago is cut for it,
# as an HTTP/1 connection's would be (server_wait).
{
	my $post = join '', map { h2_frame(H2_HEADERS, 4, 2 * $_ + 1,
		h2_block(':method' => 'POST', ':scheme' => 'http',
		':path' => '/cgi-bin/reads.sh', ':authority' => 'localhost',
		'content-length' => '100')) } 0 .. 3;
	my @drip = map { open_from("127.0.0.$_") } 5 .. 8;
	http_send($_, $post) for @drip;
	sleep 1;
	my $t0 = time;
	my $c = open_from('127.0.0.9');
	http_send($c, get('/cgi-bin/fast.sh', 1));
	my ($f) = h2_read($c, 10, sub { $_[0]{type} == H2_DATA && $_[0]{flags} & 1 });
	my ($hd) = grep { $_->{type} == H2_HEADERS } @$f;
	my $body = join '', map { $_->{payload} } grep { $_->{type} == H2_DATA } @$f;
	is($body, "fast\n", sprintf('16 streams wait for bodies that never come '
		. '(the server allows 16 threads): another address\'s program runs '
		. '(%.2f s)', time - $t0));
	my $cut = 0;
	for my $d (@drip) {
		my ($g) = h2_read($d, 0.5);
		$cut += grep { $_->{type} == H2_RST || $_->{type} == H2_HEADERS } @$g;
	}
	ok($cut >= 1 && $cut <= 2, "for it, $cut of the 16 waits was cut");
	close $_ for $c, @drip;
}

# --- slow bodies on every connection the server allows ------------------------------
# 16 connections (MAX_CONNECTIONS) from four addresses, each with one
# upload to a program that stalls after its first byte.  No slot is
# parked: each driver waits for its stream's thread, which waits for the
# client.  A newcomer then waited in the listen queue until the bodies
# timed out, where the same attack over HTTP/1 is cut for it
# (60-attack-slots); now a connection whose every thread waits for its
# client is such a wait too, and the longest is cut.
{
	sleep 0.5;	# the connections above are gone
	my $post = h2_frame(H2_HEADERS, 4, 1, h2_block(':method' => 'POST',
		':scheme' => 'http', ':path' => '/cgi-bin/reads.sh',
		':authority' => 'localhost', 'content-length' => '100'))
		. h2_frame(H2_DATA, 0, 1, 'x');
	my @slow = map { open_from('127.0.0.' . (21 + $_ % 4)) } 0 .. 15;
	http_send($_, $post) for @slow;
	sleep 1;
	my $t0 = time;
	my $p = connect_from('127.0.0.25', '127.0.0.1', $port, 5)
		or die "connect: $!";
	http_send($p, "GET /cgi-bin/fast.sh HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n");
	my ($got, $sel) = ('', IO::Select->new($p));
	while (time - $t0 < 6 && $sel->can_read(6 - (time - $t0))) {
		last unless sysread($p, $got, 4096, length $got);
	}
	like($got, qr/^HTTP\/1\.1 200 .*\r\n\r\n5\r\nfast\n\r\n0\r\n\r\n\z/s, sprintf('16 HTTP/2 '
		. 'connections wait for bodies (MAX_CONNECTIONS): a newcomer is '
		. 'served (%.2f s)', time - $t0));
	my $gone = 0;
	for my $s (@slow) {
		my (undef, $closed) = h2_read($s, 0.2);
		$gone += $closed ? 1 : 0;
	}
	ok($gone >= 1 && $gone <= 2, "for it, $gone of the 16 connections was cut");
	close $_ for $p, @slow;
}
ok($t->alive, 'the server is still up');
$t->stop();

# --- a cut never pulls a file out from under a frame being sent -------------------
# A's stream sends a big file (it came with a body, so it runs on a thread),
# and A stops reading: the driver is part-way through a frame, sending from
# the stream's descriptor without the lock.  Cutting A's wait then let its
# handler close that descriptor, and the frame went on from whatever file
# took its number next: A got another file's bytes.  A stream with a frame
# in flight is passed over; another wait is cut.
{
	my $t2 = MrhttpdTest->new(conf => { HTTP2 => 1, CGI_PATH => '/cgi-bin',
		CGI_DIR => "$dir/cgi-bin", MAX_CONNECTIONS => 16,
		MAX_CONNECTIONS_PER_IP => 4 });
	$t2->write_file('big.bin', 'B' x (16 << 20));
	$t2->write_file('secret.bin', 'S' x (1 << 20));
	$t2->write_file('small.txt', "small\n");
	$t2->run;
	$port = $t2->port;
	socket(my $a, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
	setsockopt($a, SOL_SOCKET, SO_RCVBUF, 4096);
	bind($a, pack_sockaddr_in(0, inet_aton('127.0.0.10'))) or die "bind: $!";
	connect($a, pack_sockaddr_in($port, inet_aton('127.0.0.1'))) or die "connect: $!";
	http_send($a, h2_preface() . h2_settings(4 => 2**31 - 1)
		. h2_frame(H2_WINDOW, 0, 0, pack('N', 2**31 - 1 - 65535))
		. h2_headers(1, '/big.bin', 0) . h2_frame(H2_DATA, 1, 1, ''));
	sleep 1.5;
	my @drip;
	for my $n (4, 4, 4, 3) {
		my $d = open_from('127.0.0.' . (11 + @drip));
		http_send($d, join '', map { h2_frame(H2_HEADERS, 4, 2 * $_ + 1,
			h2_block(':method' => 'POST', ':scheme' => 'http',
			':path' => '/cgi-bin/fast.sh', ':authority' => 'localhost',
			'content-length' => '100')) } 0 .. $n - 1);
		push @drip, $d;
	}
	sleep 1;
	my $h = connect_from('127.0.0.15', '127.0.0.1', $port, 5) or die "connect: $!";
	my $c = open_from('127.0.0.16');
	http_send($c, get('/cgi-bin/fast.sh', 1));
	my ($body) = answers($c, 1, 10);
	is($body, "fast\n", 'A\'s file being sent and 15 bodies that never '
		. 'come hold every thread: a newcomer\'s program runs');
	# a file opened now would take the number of one closed just now
	http_send($h, "GET /secret.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9\r\n\r\n");
	sleep 0.3;
	my ($f) = h2_read($a, 30, sub { $_[0]{id} == 1 && ($_[0]{type} == H2_RST
		|| $_[0]{type} == H2_DATA && $_[0]{flags} & 1) });
	my $got = join '', map { $_->{payload} } grep { $_->{type} == H2_DATA
		&& $_->{id} == 1 } @$f;
	(my $other = $got) =~ tr/B//d;
	ok(length($got) > 0 && length($other) == 0, sprintf('A got %d bytes of '
		. 'its file and %d of anything else', length($got) - length($other),
		length $other));
	close $_ for $a, $h, $c, @drip;
	ok($t2->alive, 'the server is still up');
	$t2->stop();
}

# --- a connection waiting for its address's share keeps its place in line --------
# MAX_CONNECTIONS=2, MAX_CONNECTIONS_PER_IP=1.  127.0.0.50's HTTP/2
# connection runs one upload whose body stalls, and asks for a second
# program, which waits for the address's one thread.  Its driver looked
# again every H2_RETRY_MS (100 ms) and marked its wait for the client
# anew each time, so it was always the wait that began last: a newcomer
# cut 127.0.0.51's HTTP/1 upload, which stalled later, instead.  Now a
# wait that goes on keeps the time it began, and the older one is cut.
{
	my $t4 = MrhttpdTest->new(conf => { HTTP2 => 1, CGI_PATH => '/cgi-bin',
		CGI_DIR => "$dir/cgi-bin", MAX_CONNECTIONS => 2,
		MAX_CONNECTIONS_PER_IP => 1 });
	$t4->run;
	$port = $t4->port;
	my $h2 = open_from('127.0.0.50');
	http_send($h2, h2_frame(H2_HEADERS, 4, 1, h2_block(':method' => 'POST',
		':scheme' => 'http', ':path' => '/cgi-bin/reads.sh',
		':authority' => 'localhost', 'content-length' => '100'))
		. h2_frame(H2_DATA, 0, 1, 'x') . h2_headers(3, '/cgi-bin/fast.sh'));
	sleep 0.5;
	my $h1 = connect_from('127.0.0.51', '127.0.0.1', $port, 5) or die "connect: $!";
	http_send($h1, "POST /cgi-bin/reads.sh HTTP/1.1\r\nHost: x\r\n"
		. "Content-Length: 100\r\n\r\nx");
	ok(wait_for(sub { (grep { $_->[2] =~ /reads\.sh/ } children($t4->pid)) >= 2 }, 5),
		'MAX_CONNECTIONS=2: an HTTP/2 upload, a stream behind it, and an HTTP/1 upload wait');
	sleep 0.5;
	my $p = connect_from('127.0.0.52', '127.0.0.1', $port, 5) or die "connect: $!";
	http_send($p, "GET /cgi-bin/fast.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	my ($got, $sel) = ('', IO::Select->new($p));
	my $t0 = time;
	while (time - $t0 < 5 && $sel->can_read(5 - (time - $t0))) {
		last unless sysread($p, $got, 4096, length $got);
	}
	like($got, qr/^HTTP\/1\.1 200 /, 'a newcomer is served');
	my (undef, $h2gone) = h2_read($h2, 0.5);
	my $h1sel = IO::Select->new($h1);
	my $h1gone = $h1sel->can_read(0.5) && !sysread($h1, my $x, 4096) ? 1 : 0;
	is(($h2gone ? 1 : 0) . ' ' . $h1gone, '1 0',
		'... for it, the HTTP/2 wait that began first was cut, not the HTTP/1 one');
	close $_ for $p, $h1, $h2;
	$t4->stop();
}

# --- out of descriptors, with no spare left to give up ------------------------------
# RLIMIT_NOFILE 64.  12 HTTP/2 connections from one address hold their
# window at zero and ask for 90 files each: their streams hold every
# descriptor.  The listener's spare was given up for one of them and a
# cut's descriptors went to the attacker's streams before it was taken
# back; then each accept failed with EMFILE and only paused, nothing was
# cut, and a newcomer waited until the streams timed out (no answer in
# 60 s here, in most runs).  Now a failed accept with no spare cuts the
# longest wait for a slow client, as a file lookup does.
{
	my $t5 = MrhttpdTest->new(conf => { HTTP2 => 1, MAX_CONNECTIONS => 16 });
	$t5->write_file("f$_.bin", 'f' x 100_000) for 1 .. 100;
	$t5->write_file('index.html', "index\n");
	$t5->allow_log(qr/Too many open files/);
	$t5->run({ nofile => 64 });
	$port = $t5->port;
	my @hold;
	for my $c (1 .. 12) {
		my $s = connect_from('127.0.0.60', '127.0.0.1', $port, 5) or last;
		http_send($s, h2_preface() . h2_settings(4 => 0)
			. join('', map { h2_headers(2 * $_ - 1, "/f$_.bin") } 1 .. 90));
		push @hold, $s;
		sleep 0.05;
	}
	sleep 1;
	my ($st, $t0) = ('', time);
	while (time - $t0 < 10 && $st !~ / 200$/) {
		my $p = connect_from('127.0.0.61', '127.0.0.1', $port, 5) or last;
		http_send($p, "GET /index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
		my ($got, $sel) = ('', IO::Select->new($p));
		my $t1 = time;
		while (time - $t1 < 2 && $sel->can_read(2 - (time - $t1))) {
			last unless sysread($p, $got, 4096, length $got);
		}
		($st) = $got =~ /^(HTTP\/1\.1 \d+)/;
		$st //= 'nothing';
		note(sprintf("probe at %.1f s: %s", time - $t0, $st));
		close $p;
		sleep 0.5 unless $st =~ / 200$/;
	}
	like($st, qr/ 200$/, sprintf('12 zero-window connections under RLIMIT_NOFILE 64: '
		. 'a newcomer is served (%.1f s)', time - $t0));
	close $_ for @hold;
	ok($t5->alive, 'the server is still up');
	$t5->stop();
}

# --- CGI_MAX: a stream's body that never comes is cut for a newcomer -------------
# CGI_MAX=2, both places held by programs whose bodies stall after one
# byte, on streams of two connections: a third program got 503.  Now the
# wait that began first is cut (its pump woken through the stream's
# pipe), as over HTTP/1 (52-cgi-limits), and the newcomer runs.
{
	my $t3 = MrhttpdTest->new(conf => { HTTP2 => 1, CGI_PATH => '/cgi-bin',
		CGI_DIR => "$dir/cgi-bin", CGI_MAX => 2 });
	$t3->run;
	$port = $t3->port;
	my $post = h2_frame(H2_HEADERS, 4, 1, h2_block(':method' => 'POST',
		':scheme' => 'http', ':path' => '/cgi-bin/reads.sh',
		':authority' => 'localhost', 'content-length' => '100'))
		. h2_frame(H2_DATA, 0, 1, 'x');
	my @b = map { my $s = open_from('127.0.0.30'); http_send($s, $post);
		sleep 0.3; $s } 1 .. 2;
	ok(wait_for(sub { (grep { $_->[2] =~ /reads\.sh/ } children($t3->pid)) >= 2 },
		5), 'CGI_MAX=2: two programs wait for bodies on HTTP/2 streams');
	sleep 1.2;	# a program a second old (CGI_CUT_AGE_MS) may be cut
	my $c = open_from('127.0.0.31');
	http_send($c, get('/cgi-bin/fast.sh', 1));
	my ($body) = answers($c, 1, 5);
	is($body, "fast\n", '... a third program runs');
	my @cut = map { my ($f) = h2_read($_, 0.5); scalar grep { $_->{id} == 1 &&
		($_->{type} == H2_RST || $_->{type} == H2_HEADERS) } @$f } @b;
	ok($cut[0] >= 1 && $cut[1] == 0, "... for it, the first stream's wait was cut (@cut)");
	close $_ for $c, @b;

	# both places held by programs whose output their client does not
	# take (two streams of one address, their window spent and never
	# given back): the newcomer waited its 2 s and got 503, until
	# HTTP2_IDLE_TIMEOUT.  Now an address that holds two places more
	# than the newcomer's gives one up, as over HTTP/1 (52-cgi-limits)
	ok(wait_for(sub { !children($t3->pid) }, 5), 'no program left');
	my $h = open_from('127.0.0.32');
	http_send($h, get('/cgi-bin/flood.sh', 2));
	ok(wait_for(sub { (grep { $_->[2] =~ /flood\.sh/ } children($t3->pid)) >= 2 },
		5), 'CGI_MAX=2: two programs write to streams whose window is spent');
	sleep 1.2;
	$c = open_from('127.0.0.33');
	http_send($c, get('/cgi-bin/fast.sh', 1));
	my $t0 = time;
	($body) = answers($c, 1, 5);
	is($body, "fast\n", sprintf('... a third program runs (%.1f s)', time - $t0));
	my ($f) = h2_read($h, 0.5);
	my @rst = grep { $_->{type} == H2_RST } @$f;
	is(scalar @rst, 1, '... and one of the two streams was reset');
	close $_ for $c, $h;
	ok($t3->alive, 'the server is still up');
	$t3->done_testing();
}
