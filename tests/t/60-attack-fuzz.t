#!/usr/bin/perl
# Attack: mutated requests.  A generator of our own mutates a set of valid
# requests (chunked bodies, ranges, conditionals, long and many headers,
# absolute-form targets, odd methods, PUT, DELETE, CGI) by byte flips,
# insertions of bytes and HTTP tokens, deletions, duplications, splices of
# two requests, odd numbers and truncation, and sends them, alone or a few
# pipelined, each batch on a connection of its own that is half-closed
# after it (so that the server sees the end and never waits).  10,000
# requests; 100,000 under MRHTTPD_SANITIZE=1 (the ASan/UBSan build);
# scaled() of 10,000 under a RUN_WRAPPER.  The seed is fixed and printed
# (MRHTTPD_FUZZ_SEED=N to change it), so a run can be repeated.
#
# A normal client from 127.0.0.2 GETs a small file on a fresh connection
# every ~150 ms and must be answered within 1 s (x3 under a RUN_WRAPPER).
# Every connection must end (no hang past REQUEST_TIMEOUT), whatever comes
# back must be an HTTP/1.x status line, the server must stay up and serve,
# and stop() must find no sanitizer report in its stderr.

use strict;
use warnings;

use File::Temp qw(tempfile);
use IO::Select;
use Socket qw(SHUT_WR);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;
use MrhttpdAttack;

my $SEED = $ENV{MRHTTPD_FUZZ_SEED} // 60_2026;
my $N = $ENV{RUN_WRAPPER} ? scaled(10_000)
	: $ENV{MRHTTPD_SANITIZE} ? 100_000 : 10_000;
my $INFLIGHT = 8;	# connections at once
my $RT = 5;		# REQUEST_TIMEOUT
my $CAP = 600;		# seconds at most (ASan takes about 3 minutes)

my $AUTH = 'Basic dXNlcjpwYXNz';	# user:pass
my $cgi = MrhttpdTest::fixed_dir('cgi-60');
MrhttpdTest::spew("$cgi/echo.sh", "#!/bin/sh\ncat >/dev/null\n"
	. "printf 'Content-Type: text/plain\\r\\n\\r\\n%s %s\\n' \"\$REQUEST_METHOD\" \"\$CONTENT_LENGTH\"\n",
	0755);
my $t = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html',
	AUTO_INDEX => 1, GZIP_STATIC => 1, PUT_PATH => '/up', PUT_MAX_BODY => 65536,
	AUTH_HEADER => $AUTH, AUTH_METHODS => 12, CGI_PATH => '/cgi-bin',
	CGI_DIR => $cgi, CGI_TIMEOUT => 5, REQUEST_TIMEOUT => $RT,
	KEEPALIVE_TIMEOUT => $RT });
$t->has(qw(put cgi auth));
$t->write_file('probe.txt', "probe\n");
$t->write_file('index.html', "<p>index</p>\n");
$t->write_file('a.txt', "aaa\n");
$t->write_file('g.txt', 'g' x 1000);
$t->write_file('g.txt.gz', "\x1f\x8b" . ('z' x 100));
$t->write_file('dir/b.txt', "bbb\n");
$t->write_file('dir/sub/c.txt', "ccc\n");
$t->write_file('big.bin', join('', map { chr($_ % 251) } 0 .. 65535));
$t->write_file('up/f.txt', "old\n");
$t->run();
sleep 0.2;
my $port = $t->port;
note("fuzz seed: $SEED, $N requests");
srand($SEED);

###############################################################################
# The generator

my $A = "Authorization: $AUTH";
my @SEEDS = (
	"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /a.txt HTTP/1.1\r\nHost: x\r\nUser-Agent: fuzz/1.0\r\nReferer: http://x/\r\n\r\n",
	"HEAD /dir/ HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /dir HTTP/1.0\r\n\r\n",
	"GET /dir/sub/c.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
	"GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9,20-29,-5\r\n\r\n",
	"GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=65000-\r\nIf-Range: \"abc\"\r\n\r\n",
	"HEAD /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=1-1\r\n\r\n",
	"GET /a.txt HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
		. "If-None-Match: \"x\", W/\"y\", *\r\n\r\n",
	"GET /a.txt HTTP/1.1\r\nHost: x\r\nIf-Unmodified-Since: Thu, 01 Jan 1970 00:00:00 GMT\r\n"
		. "If-Match: *\r\n\r\n",
	"GET /g.txt HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=1.0, identity;q=0.5, *;q=0\r\n\r\n",
	"GET http://x/a.txt?q=1 HTTP/1.1\r\nHost: y\r\n\r\n",
	"GET https://x:8080/dir/?a=%41&b HTTP/1.1\r\nHost: x\r\n\r\n",
	"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
	"OPTIONS /a.txt HTTP/1.1\r\nHost: x\r\n\r\n",
	"POST /a.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
	"PUT /up/f.txt HTTP/1.1\r\nHost: x\r\n$A\r\nContent-Length: 11\r\n\r\nhello world",
	"PUT /up/d/c.txt HTTP/1.1\r\nHost: x\r\n$A\r\nTransfer-Encoding: chunked\r\n\r\n"
		. "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
	"PUT /up/e.txt HTTP/1.1\r\nHost: x\r\n$A\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
	"PUT /a.txt HTTP/1.1\r\nHost: x\r\n$A\r\nContent-Length: 1\r\n\r\nz",
	"DELETE /up/f.txt HTTP/1.1\r\nHost: x\r\n$A\r\n\r\n",
	"DELETE /up/d HTTP/1.1\r\nHost: x\r\n$A\r\n\r\n",
	"POST /cgi-bin/echo.sh?x=1 HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
		. "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
	"POST /cgi-bin/echo.sh HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody",
	"GET /cgi-bin/echo.sh/path/info?q=%20 HTTP/1.1\r\nHost: x\r\nCookie: a=b\r\n$A\r\n\r\n",
	"GET /a.txt HTTP/1.1\r\nHost: x\r\nX-Long: " . ('L' x 6000) . "\r\n\r\n",
	"GET /a.txt HTTP/1.1\r\n" . join('', map { "X-H$_: v$_\r\n" } 1 .. 60) . "Host: x\r\n\r\n",
	"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /dir/../a.txt%00.html HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /dir//sub/./c.txt?%zz HTTP/1.1\r\nHost: x\r\n\r\n",
	"BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n",
	"PROPFIND /dir/ HTTP/1.1\r\nHost: x\r\nDepth: 1\r\nContent-Length: 0\r\n\r\n",
	"TRACE / HTTP/1.1\r\nHost: x\r\n\r\n",
	"CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n",
	"get /a.txt HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /a.txt\r\n\r\n",
	"GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Upgrade\r\nUpgrade: h2c\r\n\r\n",
	"POST /a.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"GET /a.txt HTTP/1.1\r\nHost: x\r\n Folded: line\r\n\r\n",
	"GET /a.txt HTTP/1.1\nHost: x\n\n",
);
my @TOKENS = ("\r\n", "\r\n\r\n", "\n", "\r", ':', ' ', "\t", "\0", '%', '%00',
	'%2f', '%zz', '/', '../', '?', '#', ',', ';', '=', '"', "\xff", "\x80", '-',
	'0', '1', '9', '*', 'chunked', 'gzip', 'HTTP/1.1', 'HTTP/9.9', 'http://',
	"Content-Length: ", "Transfer-Encoding: chunked\r\n", "Range: bytes=",
	'bytes=0-0,', "Expect: 100-continue\r\n", "Connection: close\r\n",
	"$A\r\n", 'A' x 300, 'B' x 5000);
my @NUMBERS = qw(0 1 -1 00 007 65535 65536 2147483647 2147483648 4294967295
	4294967296 9223372036854775807 9223372036854775808
	18446744073709551616 99999999999999999999999 0x10 1e3 +5);

sub pick { return $_[int rand @_] }

sub mutate {
	my ($s) = @_;
	my $len = length $s;
	my $op = int rand 10;
	my $pos = int rand($len + 1);
	if ($op == 0 && $len) {			# flip bits of a byte
		$pos = int rand $len;
		substr($s, $pos, 1) = chr(ord(substr($s, $pos, 1)) ^ (1 << int rand 8));
	} elsif ($op == 1 && $len) {		# a random byte
		substr($s, int rand $len, 1) = chr(int rand 256);
	} elsif ($op == 2) {			# insert a token
		substr($s, $pos, 0) = pick(@TOKENS);
	} elsif ($op == 3 && $len) {		# delete a span
		substr($s, $pos, 1 + int rand(rand() < 0.8 ? 8 : 200)) = '';
	} elsif ($op == 4 && $len) {		# duplicate a span
		my $from = int rand $len;
		my $span = substr($s, $from, 1 + int rand 64);
		substr($s, rand() < 0.5 ? $from : $pos, 0) = $span x (1 + int rand 3);
	} elsif ($op == 5) {			# splice with another request
		my $o = pick(@SEEDS);
		$s = substr($s, 0, $pos) . substr($o, int rand length $o);
	} elsif ($op == 6 && $s =~ /\d+/g) {	# an odd number for a number
		my @at;
		pos($s) = 0;
		push @at, [$-[0], $+[0] - $-[0]] while $s =~ /\d+/g;
		my $at = pick(@at);
		substr($s, $at->[0], $at->[1]) = pick(@NUMBERS);
	} elsif ($op == 7) {			# truncate
		$s = substr($s, 0, $pos);
	} elsif ($op == 8 && $s =~ /\r\n/) {	# repeat a header line
		my @l = split /(?<=\r\n)/, $s;
		my $i = int rand @l;
		splice(@l, $i, 0, ($l[$i]) x (1 + int rand 40));
		$s = join('', @l);
	} elsif ($len) {			# flip the case of a letter
		$pos = int rand $len;
		substr($s, $pos, 1) = lc(substr($s, $pos, 1)) eq substr($s, $pos, 1)
			? uc(substr($s, $pos, 1)) : lc(substr($s, $pos, 1));
	}
	return length($s) > 16384 ? substr($s, 0, 16384) : $s;
}

# one request: mostly mutated, 1 to 4 times; some left valid so that a
# batch gets past its first request
sub request {
	my $s = pick(@SEEDS);
	return $s if rand() < 0.08;
	$s = mutate($s) for 1 .. 1 + int rand(rand() < 0.7 ? 2 : 4);
	return $s;
}

###############################################################################
# Sending

my $p = probe_start(port => $port, addr => '127.0.0.2', max => $CAP + 30);
my %st = (requests => 0, conns => 0, hung => 0, bad => 0, refused => 0);
my %status;
my @recent;		# the last batches sent, for a report
my (@bad, @hung);
my %live;		# fileno => [socket, deadline, batch]
my $sel = IO::Select->new;
my $t0 = time;
my $dead = 0;

sub finish {
	my ($s, $hung) = @_;
	my $c = $live{fileno $s};
	my $got = ${*$s}{got} // '';
	if ($hung) {
		$st{hung}++;
		push @hung, $c->[2] if @hung < 5;
	} elsif (length $got) {
		# past interim responses (a 100 Continue, a CGI's 102)
		$got =~ s{\AHTTP/1\.[01] 1\d\d [^\r\n]*\r\n\r\n}{} while
			$got =~ m{\AHTTP/1\.[01] 1\d\d [^\r\n]*\r\n\r\nHTTP/};
		if ($got =~ m{\AHTTP/1\.[01] (\d{3}) }) {
			$status{$1}++;
		} else {
			$st{bad}++;
			push @bad, [$c->[2], substr($got, 0, 200)] if @bad < 5;
		}
	} else {
		$status{none}++;
	}
	$sel->remove($s);
	delete $live{fileno $s};
	close $s;
}

while ($st{requests} < $N || %live) {
	# top up
	while ($st{requests} < $N && keys(%live) < $INFLIGHT) {
		my $k = rand() < 0.6 ? 1 : 2 + int rand 3;
		$k = $N - $st{requests} if $k > $N - $st{requests};
		my $batch = join('', map { request() } 1 .. $k);
		$st{requests} += $k;
		# from 127.0.1.1-64 in turn: the client closes first, and
		# 100,000 of its sockets in TIME_WAIT would use up the
		# ephemeral ports of one address
		my $s = connect_from('127.0.1.' . (1 + $st{conns} % 64), '127.0.0.1',
			$port, 5);
		unless ($s) {
			$st{refused}++;
			last;
		}
		$st{conns}++;
		push @recent, $batch;
		shift @recent if @recent > 64;
		http_send($s, $batch);
		shutdown($s, SHUT_WR);
		$live{fileno $s} = [$s, time + $RT + 10 * slack(), $batch];
		$sel->add($s);
	}
	for my $s ($sel->can_read(0.2)) {
		my $n = sysread($s, my $buf, 65536);
		if ($n) {
			${*$s}{got} .= $buf if length(${*$s}{got} // '') < 1024;
			next;
		}
		finish($s, 0);
	}
	my $now = time;
	finish($_->[0], 1) for grep { $_->[1] < $now } values %live;
	if ($st{conns} % 500 == 0 && !$t->alive) {
		$dead = 1;
		last;
	}
	last if $st{refused} > 20;
	last if time - $t0 > $CAP;	# bounded, whatever happens
}
my $el = time - $t0;
my $res = probe_stop($p);

note(sprintf('fuzz: %d requests on %d connections in %.1f s; responses: %s',
	$st{requests}, $st{conns}, $el,
	join(', ', map { "$_ $status{$_}" } sort keys %status)));
ok(!$dead && $t->alive, 'the server survived the fuzzing')
	or diag(_save_recent());
is($st{requests}, $N, "all $N requests sent (within $CAP s)");
is($st{refused}, 0, 'every connection was accepted');
is($st{hung}, 0, 'every connection ended (none hung past REQUEST_TIMEOUT)')
	or diag(join("\n", map { 'hung after: ' . _show($_) } @hung));
is($st{bad}, 0, 'whatever came back began with an HTTP/1.x status line')
	or diag(join("\n", map { 'sent: ' . _show($_->[0]) . "\ngot:  " . _show($_->[1]) } @bad));
is($status{500} // 0, 0, 'no 500 Internal Server Error');
probe_check($res, 'fuzz', min => 1);
my ($r) = parse_responses(http_get('/probe.txt'));
is($r && $r->{status}, 200, 'the server still serves a GET');
my $err = $t->stderr;
unlike($err, qr/Sanitizer|runtime error:/, 'no sanitizer report so far')
	or diag(_save_recent());

sub _show {
	my ($s) = @_;
	$s = substr($s, 0, 300) . '...' if length $s > 300;
	$s =~ s/([^\x20-\x7e])/sprintf('\\x%02x', ord $1)/ge;
	return $s;
}

sub _save_recent {
	my ($fh, $f) = tempfile('mrhttpd-fuzz-XXXXXXXX', TMPDIR => 1, UNLINK => 0);
	binmode $fh;
	print $fh map { "=== batch\n$_\n" } @recent;
	close $fh;
	return "the last " . scalar(@recent) . " batches sent (seed $SEED) are in $f";
}

$t->done_testing();
