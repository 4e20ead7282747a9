#!/usr/bin/perl
# 71-tls-attack.t - hostile input on the TLS port: garbage in place of a
# ClientHello, a recorded ClientHello cut at every byte position, a
# handshake left half done (closed at REQUEST_TIMEOUT), a request head
# left half done over TLS (408 at REQUEST_TIMEOUT), 1,000 clients that
# connect and never send, 10,000 aborted handshakes, and stalled
# handshakes in every slot.  Throughout, the
# server stays up and a normal HTTPS client is answered within 1 s; after
# them no descriptor, slot or memory is left behind (and under ASan, no
# leak: make check-sanitize runs this file too).

use strict;
use warnings;

use IO::Socket::IP;
use POSIX ();
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);
use MrhttpdAttack qw(hold_start hold_ready hold_stop hold_summary
	raise_nofile latency_bound);
use MrhttpdTLS;
use MrhttpdCGI ();

my $pki = tls_pki() or plan skip_all => "no test certificates: $@";
my $t = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'), REQUEST_TIMEOUT => 2,
	KEEPALIVE_TIMEOUT => 60, MAX_CONNECTIONS => 1100,
	MAX_CONNECTIONS_PER_IP => 300, LOG_LEVEL => 1 });
$t->has('tls')->has_prog('curl', 'openssl');
$t->write_file('probe.txt', "probe\n");
raise_nofile(4096);
my $sport = tls_port();
$t->run({ nofile => 4096 }, '-s', $sport);
my $url = "https://localhost:$sport/probe.txt";
my $bound = latency_bound();

# probes(N): N normal HTTPS requests in a row; the failures and the worst
# latency.
sub probes {
	my ($n) = @_;
	my ($bad, $worst) = (0, 0);
	for (1 .. $n) {
		my $r = curl_tls($pki, $url, '--max-time', 5);
		$bad++ unless $r->{status} == 200 && $r->{body} eq "probe\n";
		$worst = $r->{secs} if $r->{secs} > $worst;
		sleep 0.05;
	}
	return ($bad, $worst);
}

# others_served(): three probes, each served, none slower than the bound
sub others_served {
	my ($bad, $worst) = probes(3);
	ok($bad == 0 && $worst < $bound, 'others are still served within 1 s')
		or diag("probes: $bad failed, slowest $worst s, bound $bound s");
}

sub fds { my @f = glob("/proc/$_[0]/fd/*"); return scalar @f }
sub rss_kb { return (slurp("/proc/$_[0]/status") // '') =~ /^VmRSS:\s+(\d+)/m ? $1 : 0 }

sub tls_connect {
	return IO::Socket::IP->new(PeerHost => '127.0.0.1', PeerPort => $sport,
		Proto => 'tcp', Timeout => 5);
}

my ($bad, $worst) = probes(3);
is($bad, 0, 'a normal client is served');
sleep 1.5;	# at rest: the open-file cache is let go of after 1 s
my $fds0 = fds($t->pid);

# --- garbage -----------------------------------------------------------------------
my @garbage = ("\x16\x03\x01\x00\x05hello", "\x16\x03\x03\xff\xffxx",
	"\x16" . ("\0" x 600), "\x16\x03\x01\x00\x30" . ("\xff" x 48),
	join('', map { chr(int rand 256) } 1 .. 4000));
my $closed = 0;
for my $g (@garbage) {
	my $s = tls_connect() or next;
	http_send($s, $g);
	$closed++ if defined wait_closed($s, 5);
}
is($closed, scalar @garbage, 'garbage instead of a ClientHello: closed, every time');
others_served();

# --- a real ClientHello, cut at every byte --------------------------------------------
my $hello = client_hello($pki);
cmp_ok(length $hello, '>', 100, 'a ClientHello was recorded (' . length($hello) . ' bytes)');
my $cut_ok = 0;
for my $i (1 .. length($hello) - 1) {
	my $s = tls_connect() or next;
	http_send($s, substr($hello, 0, $i));
	shutdown($s, 1);	# no more: the server must give up on it
	$cut_ok++ if defined wait_closed($s, 5);
}
is($cut_ok, length($hello) - 1, 'cut at every byte position, then ended: '
	. 'each connection closed by the server');
others_served();

# --- a half handshake held open: closed at REQUEST_TIMEOUT --------------------------
{
	my $s = tls_connect();
	http_send($s, substr($hello, 0, 60));
	my $t0 = time;
	my $gone = wait_closed($s, 10);
	ok(defined $gone && $gone > 1.5 && $gone < 6,
		'a ClientHello that stops half-way: closed after REQUEST_TIMEOUT (2 s)')
		or diag(defined $gone ? "after $gone s" : 'still open');
}

# --- a request head that stops half-way, after the handshake: 408 ----------------------
{
	my $t0 = time;
	my $out = s_client($pki, $sport, "GET /probe.txt HTTP/1.1\r\nHost: x\r\n",
		'-quiet');
	my $took = time - $t0;
	ok($out =~ /^HTTP\/1\.1 408 /m && $took > 1.5 && $took < 8,
		'over TLS, half a request head: 408 after REQUEST_TIMEOUT, closed')
		or diag(sprintf("after %.1f s: %s", $took, substr($out, 0, 300)));
}

# --- 1,000 clients that connect and never send ------------------------------------------
{
	my $rss0 = rss_kb($t->pid);
	my $h = hold_start(port => $sport, addrs => [map { "127.0.0.$_" } 2 .. 5],
		n => 1000, send => '', rate => 2000, max => 30);
	ok(hold_ready($h, 20), '1,000 silent connections opened');
	sleep 0.5;
	my $rss1 = rss_kb($t->pid);
	($bad, $worst) = probes(10);
	is($bad, 0, 'with 1,000 silent clients: a normal client is served');
	cmp_ok($worst, '<', $bound, "... within $bound s");
	note(sprintf('worst latency tls-silent-1000: %d ms', $worst * 1000));
	my $per = ($rss1 - $rss0) / 1000;
	cmp_ok($per, '<', 4, 'a silent connection holds no TLS buffers (RSS per '
		. "connection ${per} kB)");
	my $st = hold_stop($h);
	note('silent holder: ' . hold_summary($st));
	is($st->{failed} // 0, 0, 'none of them was refused a connection');
}

# --- 10,000 aborted handshakes -----------------------------------------------------------
{
	# under qemu-user a tenth: the same paths, in a bearable time
	my ($n, $full, $done) = ($ENV{RUN_WRAPPER} ? 1000 : 10000, 0, 0);
	my $t0 = time;
	my @open;
	for my $i (0 .. $n - 1) {
		my $s = tls_connect() or next;
		$done++;
		# most stop inside the hello; every 50th sends all of it and
		# goes before the server's reply is read (crypto done for nothing)
		my $len = $i % 50 == 0 ? length $hello : 1 + $i % (length($hello) - 1);
		$full++ if $len == length $hello;
		http_send($s, substr($hello, 0, $len));
		push @open, $s;
		if (@open >= 50) {	# a few in flight at once
			close $_ for @open;
			@open = ();
		}
	}
	close $_ for @open;
	note(sprintf('%d aborted handshakes (%d with a whole hello) in %.1f s',
		$done, $full, time - $t0));
	is($done, $n, "$n handshakes started and aborted");
	others_served();
	my $deadline = time + 10;
	sleep 0.2 while fds($t->pid) > $fds0 && time < $deadline;
	cmp_ok(fds($t->pid), '<=', $fds0, 'no descriptor is left behind')
		or diag(join ' ', map { readlink($_) // '?' } glob('/proc/' . $t->pid . '/fd/*'));
}

# --- a flood of warning alerts after the handshake ----------------------------------------
# mbed TLS skips a warning alert and reads the next record, for as long as
# the socket has one: a client that sends nothing else held the event
# loop, every other client waiting, until it stopped (a 93 MB flood: 1.2 s)
SKIP: {
	my $tool = tls_tool('tls-client') or skip "tests/tools/tls-client.c: $@", 4;
	my $n = $ENV{RUN_WRAPPER} ? 200000 : 1000000;
	my $pid = open(my $out, '-|', 'timeout', '120', $tool, '127.0.0.1', $sport, 'flood', $n)
		// die "tls-client: $!";
	sleep 0.3;
	($bad, $worst) = probes(5);
	my $sent = join('', <$out>);
	close $out;
	is($?, 0, 'tls-client flood: handshake done, alerts sent');
	my ($k) = $sent =~ /^sent (\d+)$/m;
	cmp_ok($k // $n, '<', $n, "the server closed the connection before $n alerts ("
		. ($k // '?') . ' went out, most into socket buffers)');
	ok($bad == 0 && $worst < $bound, 'others were served within 1 s meanwhile')
		or diag("failures $bad, worst ${worst} s");
	($bad, $worst) = probes(2);
	is($bad, 0, '... and after it');
}

# --- a record that never ends, alerts that never stop ------------------------------------
# helper-40: a request's record sent a byte at a time held its connection
# for as long as the client liked.  The bytes stayed inside mbed TLS, no
# byte of the head reached the buffer, so the connection parked as idle,
# and each byte renewed KEEPALIVE_TIMEOUT (60 s here) instead of a head's
# REQUEST_TIMEOUT (2 s) running.  Warning alerts, records without data,
# did the same.  Now any record bytes after the last request start the
# head's clock.
SKIP: {
	my $tool = tls_tool('tls-client') or skip "tests/tools/tls-client.c: $@", 2;
	for my $mode (qw(record alerts)) {
		my $out = `timeout 60 $tool 127.0.0.1 $sport $mode 250 12`;
		my ($how, $secs) = ($out // '') =~ /^(closed|open) after ([\d.]+) s$/m;
		ok(($how // '') eq 'closed' && $secs < 8,
			"TLS, " . ($mode eq 'record' ? 'a request record a byte each 250 ms'
			: 'a warning alert each 250 ms') . ': closed at REQUEST_TIMEOUT (2 s), '
			. 'not kept for KEEPALIVE_TIMEOUT (60 s): ' . ($out // '') =~ s/\n//r)
			or diag("tls-client: $out");
	}
}

# --- the same in the handshake, in clear text -------------------------------------------
# plaintext warning alerts after a ClientHello: the handshake skipped them
# for as long as they came, a thread at full CPU past REQUEST_TIMEOUT
{
	local $SIG{PIPE} = 'IGNORE';
	my $s = tls_connect();
	http_send($s, $hello);
	my $chunk = "\x15\x03\x03\x00\x02\x01\x5a" x 10000;	# 70,000 bytes
	my ($sent, $max, $t0) = (0, 20_000_000, time);
	while ($sent < $max && time - $t0 < 10) {
		my $w = syswrite($s, $chunk);
		last unless $w;
		$sent += $w;
	}
	close $s;
	cmp_ok($sent, '<', $max, 'alerts in the handshake: the server closed the connection '
		. "before $max bytes of them ($sent went out, most into socket buffers)");
	($bad, $worst) = probes(2);
	is($bad, 0, '... and serves others');
}

ok($t->alive, 'the server is still up');

# --- ClientHellos that take every slot, then stall ------------------------------------------
# MAX_CONNECTIONS 32, 8 per address: 32 clients from four addresses each
# send a ClientHello and wait, reconnecting when closed.  Between flights
# a handshake is parked like an idle connection, on no thread, and the
# one parked longest makes room for a newcomer; before, each held a
# thread until REQUEST_TIMEOUT, and a newcomer waited that long.
{
	my $e = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'),
		REQUEST_TIMEOUT => 20, KEEPALIVE_TIMEOUT => 60,
		MAX_CONNECTIONS => 32, MAX_CONNECTIONS_PER_IP => 8 });
	$e->write_file('probe.txt', "probe\n");
	my $eport = tls_port();
	$e->run('-s', $eport);
	my $h = hold_start(port => $eport, addrs => [map { "127.0.0.$_" } 2 .. 5],
		n => 32, send => $hello, reconnect => 1, rate => 500, max => 30);
	ok(hold_ready($h, 10), 'handshakes held: 32 ClientHellos sent');
	sleep 0.5;
	my ($ebad, $eworst) = (0, 0);
	for (1 .. 3) {
		my $r = curl_tls($pki, "https://localhost:$eport/probe.txt",
			'--max-time', 5);
		$ebad++ unless $r->{status} == 200;
		$eworst = $r->{secs} if $r->{secs} > $eworst;
	}
	my $st = hold_stop($h);
	note('handshake holder: ' . hold_summary($st));
	is($ebad, 0, 'every slot in a stalled handshake: a newcomer is served');
	cmp_ok($eworst, '<', $bound, "... within $bound s");
	cmp_ok($st->{closed} // 0, '>=', 1, '... by closing a stalled one');
	ok($e->alive, '... and the server is up');
	$e->stop();
}

# --- a burst of handshakes against an RSA key -------------------------------------------
# h2load opens 200 keep-alive connections at once.  A step of a handshake
# (an RSA signature among it) runs on a thread of its own only while
# fewer steps than CPUs do, past that on the turn holder: before, each
# took a thread and its stack and heap (261 threads and 22 MB for 300
# clients; 939 threads and 74 MB for 1,000).
SKIP: {
	skip 'no h2load (apt-get install nghttp2-client)', 3
	    unless MrhttpdTest::find_prog('h2load');
	my $n = scaled(200);
	my ($ncpu) = `getconf _NPROCESSORS_ONLN 2>/dev/null` =~ /(\d+)/;
	$ncpu ||= 1;
	my $r = MrhttpdTest->new(conf => { tls_conf($pki, 'rsa'),
		MAX_CONNECTIONS => $n + 50, MAX_CONNECTIONS_PER_IP => $n + 10,
		REQUEST_TIMEOUT => 60 });
	$r->write_file('probe.txt', "probe\n");
	my $rport = tls_port();
	$r->run('-s', $rport);
	my $out = "$r->{testdir}/h2load.out";
	my $kid = fork() // die "fork: $!";
	if ($kid == 0) {
		open STDIN, '<', '/dev/null';
		open STDOUT, '>', $out;
		open STDERR, '>&', \*STDOUT;
		{ no warnings 'exec'; exec 'h2load', '--h1', '-c', $n, '-n',
			$n, "https://127.0.0.1:$rport/probe.txt"; }
		POSIX::_exit(127);
	}
	my $peak = 0;
	while (waitpid($kid, POSIX::WNOHANG()) == 0) {
		my $th = (slurp('/proc/' . $r->pid . '/status') // '')
			=~ /^Threads:\s+(\d+)/m ? $1 : 0;
		$peak = $th if $th > $peak;
		sleep 0.005;
	}
	my ($ok) = (slurp($out) // '') =~ /requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded/;
	is($ok // 0, $n, "$n handshakes at once against an RSA key: all served");
	cmp_ok($peak, '<=', $ncpu + 8, "... on at most CPUs ($ncpu) + 8 threads")
		or diag(slurp($out));
	ok($r->alive, '... and the server is up');
	$r->stop();
}

# --- keep-alive after a body that came in pieces --------------------------------------
# helper-41, on the record-trickle fix as first made: the clock for a head
# was started by any read that took part of a record, a body's too, and
# nothing stopped it after the request: a connection whose POST body's
# record came in two TCP segments was closed REQUEST_TIMEOUT after its
# answer, not KEEPALIVE_TIMEOUT, and the client's next request found it
# gone.  Only reads between requests start it now.
SKIP: {
	my $tool = tls_tool('tls-client') or skip "tests/tools/tls-client.c: $@", 4;
	my $cgi = "$t->{testdir}/cgi-bin";
	mkdir $cgi;
	MrhttpdCGI::script("$cgi/cat.sh", "#!/bin/sh\nn=\$(wc -c)\n"
		. "printf 'Content-Type: text/plain\\nContent-Length: 9\\n\\nread %4d' \$n\n");
	my $b = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'), REQUEST_TIMEOUT => 2,
		KEEPALIVE_TIMEOUT => 60, CGI_PATH => '/cgi-bin', CGI_DIR => $cgi,
		PUT_PATH => '/pub' });
	$b->has('cgi') or skip 'no CGI in this build', 4;
	mkdir $b->htdocs . '/pub';
	my $bport = tls_port();
	$b->run('-s', $bport);
	my $out = `timeout 60 $tool 127.0.0.1 $bport body /cgi-bin/cat.sh 3000`;
	like($out, qr{^first: HTTP/1\.1 200 }m, 'TLS: a POST whose body record came in two halves: 200')
		or diag($out);
	like($out, qr{^second: HTTP/1\.1 200 }m, '... and after 3 s of silence (REQUEST_TIMEOUT 2, '
		. 'KEEPALIVE_TIMEOUT 60) the connection serves the next request') or diag($out);
	# the same for a PUT: readable is not a whole record, and the
	# upload's read took the first half's EAGAIN for the end (0, cut)
	$out = `timeout 60 $tool 127.0.0.1 $bport body /pub/f 500 PUT`;
	like($out, qr{^first: HTTP/1\.1 201 }m, 'TLS: a PUT whose body record came in two halves: 201')
		or diag($out);
	like($out, qr{^second: HTTP/1\.1 200 }m, '... and the file it wrote is served') or diag($out);
	$b->stop();
}
# An address past MAX_CONNECTIONS_PER_IP on the HTTPS port gets a TLS
# alert, as a TLS client understands; it got the plain port's 503 in
# clear, which curl and browsers report as a broken server ("wrong version
# number") (helper-68)
{
	my $p = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'), MAX_CONNECTIONS_PER_IP => 2 });
	my $pport = tls_port();
	$p->run('-s', $pport);
	# each with its ClientHello: deferred accept takes none before data
	my @held = map { http_connect(port => $pport) } 1 .. 2;
	http_send($_, $hello) for @held;
	sleep 0.3;
	my $s = http_connect(port => $pport);
	http_send($s, $hello);
	my $got = http('', sock => $s, timeout => 5);
	is(unpack('H*', substr($got, 0, 7)), '15030300020250',
		'the third connection from an address (MAX_CONNECTIONS_PER_IP=2) on the HTTPS port: '
		. 'a fatal internal_error alert, no clear-text 503')
		or diag(substr($got, 0, 60));
	close $_ for @held;
	$p->stop();
}
$t->done_testing();
