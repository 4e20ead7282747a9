#!/usr/bin/perl
# 80-h2.t - HTTP/2 (HTTP2=1, nghttp2) with real clients: curl, nghttp,
# h2load and h2spec, over h2c (prior knowledge and Upgrade) and over TLS
# (ALPN), against the real server.
#
# What works over HTTP/1.1 works on a stream: files, HEAD, errors,
# ranges, validators, .gz variants, listings, PUT and DELETE with auth,
# CGI with a request body; then the protocol (h2spec, every case), load,
# a slow stream beside quick ones, and hostile clients: rapid reset,
# SETTINGS and PING floods, a huge header list, a zero window held open,
# a cut preface.  The server stays up and answers others meanwhile.

use strict;
use warnings;

use Digest::MD5 qw(md5_hex);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp spew);
use MrhttpdCGI qw(cgi_dir script);
use MrhttpdTLS;
use MrhttpdH2;

my $pki = tls_pki() or plan skip_all => "no test certificates: $@";

my $dir = cgi_dir('h2-80');
script("$dir/cgi-bin/env.sh", <<'EOF');
#!/bin/sh
body=$(cat)
printf 'Content-Type: text/plain\n\n'
printf 'PROTO=%s HTTPS=%s LEN=%s BODY=%s\n' "$SERVER_PROTOCOL" "$HTTPS" \
	"$CONTENT_LENGTH" "$body"
printf 'HOST=%s NAME=%s\n' "$HTTP_HOST" "$SERVER_NAME"
EOF
script("$dir/cgi-bin/slow.sh", <<'EOF');
#!/bin/sh
sleep 3
printf 'Content-Type: text/plain\n\nslow\n'
EOF
script("$dir/cgi-bin/why.sh",
	"#!/bin/sh\nprintf 'Status: 404 Not Here\\nContent-Type: text/plain\\n\\nx'\n");
script("$dir/cgi-bin/count.sh", <<'EOF');
#!/bin/sh
printf 'Content-Type: text/plain\n\n'
seq 1 20000
EOF

my $t = MrhttpdTest->new(conf => {
	tls_conf($pki, 'ec'),
	HTTP2 => 1,
	HTTP2_IDLE_TIMEOUT => 3,
	HTTP2_MAX_CONTROL => 100,
	DEFAULT_INDEX => 'index.html',
	AUTO_INDEX => 3,
	GZIP_STATIC => 1,
	PUT_PATH => '/up',
	AUTH_HEADER => 'Basic dGVzdDp0ZXN0',
	AUTH_METHODS => 12,
	CGI_PATH => '/cgi-bin',
	CGI_DIR => "$dir/cgi-bin",
	LOG_LEVEL => 4,
});
$t->has('tls')->has_prog('curl', 'nghttp', 'h2load');
my $h2spec = h2spec_prog() or plan skip_all =>
	'no h2spec (tests/install-deps.sh builds it with go install)';
my $big = join('', map { sprintf("%07d\n", $_) } 0 .. 131071);	# 1 MiB
$t->write_file('index.html', "hello over h2\n");
$t->write_file('25.txt', 'x' x 25);
$t->write_file('big.bin', $big);
$t->write_file('page.html', 'plain page ' x 50);
$t->write_file('page.html.gz', "\x1f\x8b pretend gzip");
$t->write_file('list/a.txt', 'a');
$t->write_file('list/b.txt', 'b');
# more names than a listing sorts (its arena is 6 KiB): created backwards
$t->write_file(sprintf('many/%03d-%s', 399 - $_, 'm' x 40), '') for 0 .. 399;
mkdir $t->htdocs . '/up';
my $sport = tls_port();
$t->run({}, '-s', $sport);
my $port = $t->port;
my $base = "http://127.0.0.1:$port";
my $sbase = "https://localhost:$sport";

like($t->version_info->{raw}, qr/^http2: yes\nhttp2-library: nghttp2 \d+\.\d+\.\d+$/m,
	'-V: http2 and the nghttp2 version');

# curl(URL, ARGS): as curl_tls, with the HTTP version curl used.
sub curl {
	my ($url, @args) = @_;
	my $r = curl_tls($pki, $url, '-w', '%{http_version}', @args);
	$r->{ver} = $r->{body} =~ s/(\d(?:\.\d)?)\z// ? $1 : '';
	return $r;
}
sub h2c { return curl(shift, '--http2-prior-knowledge', @_) }
sub ver { return $_[0]{ver} }

# --- the feature set on streams ----------------------------------------------
my $r = h2c("$base/");
is(ver($r), '2', 'prior knowledge: curl speaks HTTP/2');
ok($r->{status} == 200 && $r->{body} eq "hello over h2\n", 'GET /: the index');
$r = h2c("$base/", '-I');
ok($r->{status} == 200 && $r->{head} =~ /^content-length: 14\r$/m &&
	$r->{body} !~ /hello/, 'HEAD: the length, no body');
$r = h2c("$base/nothing-here");
is($r->{status}, 404, 'a missing file: 404');
$r = h2c("$base/big.bin");
ok($r->{status} == 200 && md5_hex($r->{body}) eq md5_hex($big),
	'1 MiB file (sendfile behind nghttp2\'s frame headers): every byte');
SKIP: {
	skip 'built without ranges and validators', 2
		unless $t->feature('ranges') && $t->feature('validators');
	$r = h2c("$base/big.bin", '-r', '1000-1999');
	ok($r->{status} == 206 && $r->{body} eq substr($big, 1000, 1000),
		'a range: 206 with those bytes');
	my ($etag) = h2c("$base/index.html")->{head} =~ /^etag: (\S+)\r$/m;
	$r = h2c("$base/index.html", '-H', "If-None-Match: $etag");
	is($r->{status}, 304, 'If-None-Match with the ETag: 304');
}
$r = h2c("$base/page.html", '-H', 'Accept-Encoding: gzip');
ok($r->{head} =~ /^content-encoding: gzip\r$/m &&
	$r->{body} eq "\x1f\x8b pretend gzip", 'the .gz variant');
$r = h2c("$base/list/");
ok($r->{status} == 200 && $r->{body} =~ /a\.txt/ && $r->{body} =~ /b\.txt/,
	'a listing (a stream body, on a thread of its own)');
$r = h2c("$base/many/");
my @seq;
push @seq, $1 // 'M' while $r->{body} =~ m{<a href="(\d{3})-m+">|(colspan)}g;
my @names = grep { $_ ne 'M' } @seq;
my %once = map { $_ => 1 } @names;
ok(@names == 400 && keys(%once) == 400, 'a listing too big to sort: '
	. 'every entry once');
my ($m) = grep { $seq[$_] eq 'M' } 0 .. $#seq;
ok(defined $m && $m >= 100 && "@seq[0 .. $m - 1]" eq
	join(' ', sort @seq[0 .. $m - 1]), '... sorted up to the marker');
$r = h2c("$base/up/new.txt", '-X', 'PUT', '--data-binary', 'x');
is($r->{status}, 401, 'PUT without credentials: 401');
$r = h2c("$base/up/new.txt", '-u', 'test:test', '--data-binary', 'put over h2',
	'-X', 'PUT');
is($r->{status}, 201, 'PUT with credentials: 201');
is(slurp($t->htdocs . '/up/new.txt'), 'put over h2', 'the file was written');
$r = h2c("$base/up/new.txt", '-u', 'test:test', '-X', 'DELETE');
ok($r->{status} == 204 && !-e $t->htdocs . '/up/new.txt', 'DELETE: 204, gone');
$r = h2c("$base/cgi-bin/env.sh", '--data-binary', 'abc');
like($r->{body}, qr/^PROTO=HTTP\/2\.0 HTTPS= LEN=3 BODY=abc$/m,
	'CGI: a POST body, SERVER_PROTOCOL HTTP/2.0');
like($r->{body}, qr/^HOST=127\.0\.0\.1:\d+ NAME=127\.0\.0\.1$/m,
	'CGI: :authority is HTTP_HOST, as Host over HTTP/1');
$r = h2c("$base/cgi-bin/why.sh");
ok($r->{status} == 404 && $r->{body} eq 'x' && $r->{head} =~ m{^HTTP/2 404 ?\r$}m
	&& $r->{head} !~ /Not Here/, 'CGI: a Status phrase is not part of :status')
	or diag($r->{head});
$r = h2c("$base/cgi-bin/count.sh");
my @n = split /\n/, $r->{body};
ok($r->{status} == 200 && @n == 20000 && $n[-1] eq '20000',
	'CGI output streamed: 20,000 lines, in order');
$r = curl("$base/25.txt", '--http2');
ok(ver($r) eq '2' && $r->{body} eq 'x' x 25 && $r->{head} =~ /^HTTP\/1\.1 101/m,
	'Upgrade: h2c: 101, then the answer over HTTP/2');
$r = curl("$base/25.txt");
is(ver($r), '1.1', 'HTTP/1.1 still on the same port');
$r = curl("$sbase/25.txt", '--http2');
ok(ver($r) eq '2' && $r->{body} eq 'x' x 25, 'TLS: ALPN h2');
$r = curl("$sbase/big.bin", '--http2');
ok($r->{ver} eq '2' && md5_hex($r->{body}) eq md5_hex($big),
	'TLS: 1 MiB file (read a frame at a time): every byte');
$r = curl("$sbase/cgi-bin/env.sh", '--http2', '--data-binary', 'tls');
like($r->{body}, qr/^PROTO=HTTP\/2\.0 HTTPS=on LEN=3 BODY=tls$/m,
	'CGI over h2 and TLS: HTTPS=on');
$r = curl("$sbase/25.txt", '--http1.1');
is(ver($r), '1.1', 'TLS: HTTP/1.1 when the client asks for it');
# over TLS, HTTP/2 is chosen in the handshake only (RFC 9113 3.3): a
# preface after ALPN settled on http/1.1, or without ALPN, is no request
my $pri = h2_preface() . h2_settings() . h2_headers(1, '/25.txt');
for my $alpn (['h2'], ['http/1.1'], []) {
	my $out = s_client($pki, $sport, $pri,
		@$alpn ? ('-alpn', $alpn->[0]) : ());
	my $want = @$alpn && $alpn->[0] eq 'h2';
	is(index($out, 'x' x 25) >= 0 ? 1 : 0, $want ? 1 : 0,
		'TLS: a preface with ALPN ' . (@$alpn ? $alpn->[0] : 'none') .
		($want ? ' is served' : ' is not taken for HTTP/2'));
}

my ($rc, $out) = run_cmd('nghttp', '-nv', "$base/index.html");
ok($out =~ /recv SETTINGS frame/ && $out =~ /recv \(stream_id=\d+\) :status: 200/ &&
	$out =~ /recv DATA frame <length=14, flags=0x01, stream_id=\d+>/,
	'nghttp -nv: SETTINGS, HEADERS with :status 200, DATA with END_STREAM');

# :authority is checked as Host is: one nghttp2 lets through ('@' is in
# its set) but that is no host[:port] gets 400, a sound one 200
$r = h2c("$base/", '-H', 'Host: u@h');
is($r->{status}, 400, ':authority with userinfo: 400, as a Host would get');
$r = h2c("$base/", '-H', 'Host: my_router.lan:8080');
is($r->{status}, 200, ':authority with _ and a port: 200');

# a Host beside :authority must name the same authority (RFC 9113 8.3.1):
# one that differs would let a program or a log see another host than
# the one routed on
for (['other.example', qr/400 Bad Request/, 'another'],
    ['LOCALHOST', qr/^hello over h2$/, 'the same (case aside)']) {
	my ($host, $want, $what) = @$_;
	my $c = h2_open($port);
	http_send($c, h2_headers(1, '/index.html', 1, 'host' => $host));
	my ($g) = h2_read($c, 5, sub { $_[0]{type} == H2_DATA && $_[0]{flags} & 1
		|| $_[0]{type} == H2_RST });
	my $page = join '', map { $_->{payload} } grep { $_->{type} == H2_DATA } @$g;
	like($page, $want, "Host beside :authority, $what: "
		. ($what eq 'another' ? '400' : 'served'));
	close $c;
}

# CONNECT has :authority and no :path (RFC 9113 8.5): nothing is proxied,
# so 405, as over HTTP/1 (its error page tells; the status is Huffman-coded)
{
	my $c = h2_open($port);
	http_send($c, h2_frame(H2_HEADERS, 5, 1, h2_block(':method' => 'CONNECT',
		':authority' => 'example.com:443')));
	my ($g) = h2_read($c, 5, sub { $_[0]{type} == H2_DATA && $_[0]{flags} & 1
		|| $_[0]{type} == H2_RST });
	my $page = join '', map { $_->{payload} } grep { $_->{type} == H2_DATA } @$g;
	like($page, qr/405 Method Not Allowed/, 'CONNECT: 405, as over HTTP/1');
	close $c;
}

# --- the protocol: h2spec, every case --------------------------------------
for my $tls (0, 1) {
	($rc, $out) = run_cmd('timeout', '300', $h2spec, '-h', '127.0.0.1',
		'-p', $tls ? $sport : $port, $tls ? ('-t', '-k') : (), '-o', '3');
	my ($sum) = $out =~ /^(\d+ tests, \d+ passed.*)$/m;
	note("h2spec over " . ($tls ? 'TLS' : 'h2c') . ": " . ($sum // '?'));
	ok(defined $sum && $sum =~ /^145 tests, 145 passed, 0 skipped, 0 failed/,
		'h2spec over ' . ($tls ? 'TLS' : 'h2c') . ': ' . ($sum // 'no summary'))
		or diag(join "\n", grep { /×|->|Expected|Actual/ } split /\n/, $out);
}

# --- load ---------------------------------------------------------------------
for my $url ("$base/25.txt", "$sbase/25.txt") {
	($rc, $out) = run_cmd('h2load', '-c', '100', '-m', '100', '-n',
		scaled(20000), $url);
	my ($done, $failed) = $out =~ /requests: \d+ total, \d+ started, (\d+) done, \d+ succeeded, (\d+) failed/;
	ok(defined $failed && $failed == 0 && $done == scaled(20000),
		"h2load -c 100 -m 100 over " . ($url =~ /^https/ ? 'TLS' : 'h2c')
		. ": " . ($done // '?') . " done, " . ($failed // '?') . " failed");
}

# --- a slow stream holds up no other ---------------------------------------------
my $s = h2_open($port);
http_send($s, h2_headers(1, '/cgi-bin/slow.sh') . h2_headers(3, '/25.txt'));
my $t0 = time;
my ($f) = h2_read($s, 10, sub { $_[0]{type} == H2_DATA && $_[0]{id} == 1 &&
	$_[0]{flags} & 1 });
my ($fast) = grep { $_->{type} == H2_DATA && $_->{id} == 3 } @$f;
my ($slow) = grep { $_->{type} == H2_DATA && $_->{id} == 1 } @$f;
my @order = map { $_->{id} } grep { $_->{type} == H2_DATA } @$f;
ok($fast && $slow && $order[0] == 3 && $order[-1] == 1,
	'a 3 s program on stream 1: stream 3 is answered first, then stream 1')
	or diag(join ' ', map { "$_->{type}/$_->{id}/$_->{flags}" } @$f);
close $s;

# --- hostile clients -----------------------------------------------------------
# probe(): a well-behaved request on another connection, and how long it took.
sub probe {
	my $t1 = time;
	my $p = h2c("$base/25.txt", '--max-time', '5');
	return $p->{status} == 200 ? time - $t1 : 99;
}

sub flood {
	my ($name, $bytes, $want) = @_;
	my $c = h2_open($port);
	http_send($c, $bytes);
	my $lat = probe();
	my ($fr, $closed) = h2_read($c, 10);
	my $code = h2_goaway($fr);
	ok(defined $code && $code == $want && $closed,
		"$name: GOAWAY (" . ($code // 'none') . "), then closed");
	ok($lat < 1, sprintf('%s: another client answered in %.2f s', $name, $lat));
	close $c;
}
flood('rapid reset: 2,000 streams opened and reset',
	join('', map { h2_headers(2 * $_ + 1, '/25.txt')
		. h2_frame(H2_RST, 0, 2 * $_ + 1, pack('N', 8)) } 0 .. 1999), 11);
flood('reset by the server: 2,000 streams with an invalid field',
	join('', map { h2_headers(2 * $_ + 1, '/25.txt', 1, 'X-Up' => '1') }
		0 .. 1999), 11);
flood('reset by the server: 2,000 POSTs past their content-length',
	join('', map { h2_frame(H2_HEADERS, 4, 2 * $_ + 1, h2_block(
		':method' => 'POST', ':scheme' => 'http', ':path' => '/25.txt',
		':authority' => 'localhost', 'content-length' => '1'))
		. h2_frame(H2_DATA, 1, 2 * $_ + 1, 'ab') } 0 .. 1999), 11);
flood('PING flood: 5,000 PINGs',
	h2_frame(H2_PING, 0, 0, 'pingpong') x 5000, 11);
flood('SETTINGS flood: 5,000 SETTINGS', h2_settings(3 => 100) x 5000, 11);

# a header list of 1 MiB, in CONTINUATION frames
{
	my $c = h2_open($port);
	my $v = 'v' x 16000;
	http_send($c, h2_frame(H2_HEADERS, 0, 1, h2_block(':method' => 'GET',
		':scheme' => 'http', ':path' => '/', ':authority' => 'x')));
	http_send($c, h2_frame(H2_CONTINUATION, 0, 1, h2_block("x-$_" => $v)))
		or last for 1 .. 64;
	my $lat = probe();
	my ($fr, $closed) = h2_read($c, 10);
	ok(defined h2_goaway($fr) && $closed, 'a 1 MiB header list: GOAWAY ('
		. (h2_goaway($fr) // 'none') . '), closed');
	ok($lat < 1, sprintf('... another client answered in %.2f s', $lat));
}

# a zero window, held: the body never goes; the connection is closed
# after HTTP2_IDLE_TIMEOUT (3 s) with GOAWAY, and others are served
{
	my $c = h2_open($port, 4 => 0);
	http_send($c, h2_headers(1, '/big.bin'));
	my $lat = probe();
	my ($fr, $closed) = h2_read($c, 15);
	my ($hd) = grep { $_->{type} == H2_HEADERS && $_->{id} == 1 } @$fr;
	ok($hd && !grep({ $_->{type} == H2_DATA } @$fr) &&
		defined h2_goaway($fr) && $closed,
		'a zero window: HEADERS, no DATA, then GOAWAY and closed');
	ok($lat < 1, sprintf('... another client answered in %.2f s', $lat));
}

# the same, with a PING every second: frames that move nothing do not
# keep the connection (they did: it stayed, and its stream's file open)
{
	my $c = h2_open($port, 4 => 0);
	http_send($c, h2_headers(1, '/big.bin'));
	my ($t0, $closed, @fr) = (time);
	while (!$closed && time - $t0 < 10) {
		http_send($c, h2_frame(H2_PING, 0, 0, 'pingpong'));
		my ($f, $cl) = h2_read($c, 1);
		push @fr, @$f;
		$closed = $cl;
	}
	ok($closed && defined h2_goaway(\@fr) && time - $t0 < 8, sprintf('a zero '
		. 'window and a PING a second: GOAWAY and closed after %.1f s',
		time - $t0));
}

# a refusal (here a malformed request: host and :authority differ) whose
# PRIVATE_DIR page is a file, with H2_FDS (8) files already kept for a
# zero window: its 400 goes out without the page.  It was reset with
# INTERNAL_ERROR (blaming the server), and such resets were not counted
# toward HTTP2_MAX_CONTROL
{
	my $pt = MrhttpdTest->new(conf => { HTTP2 => 1,
		PRIVATE_DIR => "$dir/private-80", LOG_LEVEL => 4 });
	$pt->write_file('f.html', 'file page ' x 200);
	mkdir "$dir/private-80";
	open my $pf, ">", "$dir/private-80/400.html" or die "400.html: $!";
	print $pf 'bad request page ' x 100;
	close $pf;
	$pt->run;
	my $c = h2_open($pt->port, 4 => 0);
	http_send($c, join('', map { h2_headers(2 * $_ + 1, '/f.html') } 0 .. 7)
		. h2_headers(17, '/f.html', 1, host => 'other.example'));
	my ($f) = h2_read($c, 3, sub { $_[0]{id} == 17 });
	my @s17 = grep { $_->{id} == 17 } @$f;
	ok(@s17 && $s17[0]{type} == H2_HEADERS
		&& $s17[0]{payload} =~ /^\x8c|400/,
		'a refusal past the 8 kept files: its 400 goes out')
		or diag(join ' ', map { "type $_->{type}" } @s17);
	ok(!grep({ $_->{type} == H2_RST } @s17), '... and no reset');
	close $c;
	# without the window at zero, the same request gets its page
	$c = h2_open($pt->port);
	http_send($c, h2_headers(1, '/f.html', 1, host => 'other.example'));
	($f) = h2_read($c, 3, sub { $_[0]{id} == 1 && $_[0]{type} == H2_DATA
		&& $_[0]{flags} & 1 });
	like(join('', map { $_->{payload} } grep { $_->{type} == H2_DATA } @$f),
		qr/^(?:bad request page ){100}$/, '... which has its page otherwise');
	close $c;
	$pt->stop;
}

# ninety files asked for with a zero window: an answer given on the
# driver keeps its file open until it is sent, and each kept one then,
# so that a few connections from one address could take every
# descriptor.  Now at most H2_FDS (8) are kept there; past that a file
# is answered on a thread (H2_THREADS, 8), and the rest wait for one
# without a file.  A request that needs no file is not held up by them,
# and all go once the window opens
{
	my $pid = $t->pid;
	my $before = () = glob("/proc/$pid/fd/*");
	my $c = h2_open($port, 4 => 0);
	http_send($c, join '', map { h2_headers(2 * $_ + 1, '/page.html') } 0 .. 89);
	sleep 1;
	my $more = () = glob("/proc/$pid/fd/*");
	$more -= $before;
	cmp_ok($more, '<=', 48, "90 files, a zero window: $more descriptors more "
		. '(8 files, 8 threads\' files and pipes, the socket, the cache\'s)');
	my $t0 = time;
	http_send($c, h2_frame(H2_HEADERS, 5, 181, h2_block(':method' => 'HEAD',
		':scheme' => 'http', ':path' => '/25.txt', ':authority' => 'localhost')));
	my ($f) = h2_read($c, 2, sub { $_[0]{type} == H2_HEADERS && $_[0]{id} == 181 });
	ok(grep({ $_->{type} == H2_HEADERS && $_->{id} == 181 } @$f), sprintf(
		'... a HEAD behind them is answered (%.2f s)', time - $t0));
	http_send($c, h2_settings(4 => 65535));
	my $left = 90;
	h2_read($c, 20, sub { $_[0]{type} == H2_DATA && $_[0]{flags} & 1 &&
		--$left == 0 });
	is($left, 0, '... the window opened: all 90 answered');
	close $c;
}

# and if the window never opens: HTTP2_IDLE_TIMEOUT from the last
# progress ends the connection, as if it were parked.  Each thread's
# wait began afresh, so the streams queued behind the first eight threads
# waited as long again, wave after wave (41 streams: 15 s; the helper's
# 100 at a 60 s time-out: 780 s, holding 8 threads and their files)
{
	my $c = h2_open($port, 4 => 0);
	http_send($c, join '', map { h2_headers(2 * $_ + 1, '/page.html') } 0 .. 40);
	my $t0 = time;
	my ($fr, $closed) = h2_read($c, 20);
	my $el = time - $t0;
	ok($closed && defined h2_goaway($fr) && !grep({ $_->{type} == H2_DATA } @$fr)
		&& $el < 9, sprintf('41 files, a zero window never opened: GOAWAY and '
		. 'closed after %.1f s (HTTP2_IDLE_TIMEOUT 3 s; 4 s unloaded)', $el));
	close $c;
}

# but a wait for a request body has REQUEST_TIMEOUT (30 s here) from its
# last byte, longer than HTTP2_IDLE_TIMEOUT (3 s): an upload that pauses
# 5 s is not ended by the connection's time-out (it was, with GOAWAY at
# 4 s, once that applied to every wait of the threads)
{
	my $c = h2_open($port);
	http_send($c, h2_frame(H2_HEADERS, 4, 1, h2_block(':method' => 'POST',
		':scheme' => 'http', ':path' => '/cgi-bin/env.sh',
		':authority' => 'localhost', 'content-length' => '10'))
		. h2_frame(H2_DATA, 0, 1, 'abcde'));
	my (undef, $closed) = h2_read($c, 5);
	http_send($c, h2_frame(H2_DATA, 1, 1, 'fghij')) unless $closed;
	my ($fr) = h2_read($c, 5, sub { $_[0]{type} == H2_DATA && $_[0]{flags} & 1 });
	my $body = join '', map { $_->{payload} } grep { $_->{type} == H2_DATA } @$fr;
	like($body, qr/LEN=10 BODY=abcdefghij/, 'an upload that pauses 5 s, past '
		. 'HTTP2_IDLE_TIMEOUT but not REQUEST_TIMEOUT: its program answers');
	close $c;
}

# the same for a program's output, produced on a thread: the thread gives
# up after HTTP2_IDLE_TIMEOUT without progress and the stream is reset
{
	my $c = h2_open($port, 4 => 0);
	http_send($c, h2_headers(1, '/cgi-bin/count.sh'));
	my $lat = probe();
	my ($fr, $closed) = h2_read($c, 20);
	my ($rst) = grep { $_->{type} == H2_RST && $_->{id} == 1 } @$fr;
	ok($rst && !grep({ $_->{type} == H2_DATA } @$fr) &&
		defined h2_goaway($fr) && $closed,
		'a zero window on a program\'s output: RST_STREAM, then GOAWAY and closed')
		or diag(join ' ', map { "$_->{type}/$_->{id}" } @$fr);
	ok($lat < 1, sprintf('... another client answered in %.2f s', $lat));
}

# a preface cut short: closed after the idle time-out, with GOAWAY
{
	my $c = http_connect(port => $port);
	http_send($c, substr(h2_preface(), 0, 10));
	my $t1 = time;
	my ($fr, $closed) = h2_read($c, 15);
	ok($closed && time - $t1 < 10, sprintf('a cut preface: closed after %.1f s',
		time - $t1));
}

# --- the log, and still up ---------------------------------------------------
my $log = $t->log;
like($log, qr/"GET \/index\.html HTTP\/2\.0" 200 14 /, 'access log: HTTP/2.0');
my $lines = () = $log =~ /"GET \/list\/ HTTP\/2\.0" 200 /g;
is($lines, 1, 'one log line per stream (a listing run twice logs once)');
ok($t->alive, 'the server is still up');

# --- TLS_REDIRECT: a body answered by the redirect is dropped -----------------
# A POST on the plain port gets its 308 at once; the body that follows is
# read and dropped, and its window opened again.  Before, it was kept for
# a thread that never came: the stream's window stayed shut, and the
# bytes counted as those of streams waiting for a thread, so that after
# two such bodies a third request was refused (REFUSED_STREAM), though
# it had its answer.
{
	my $red = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'),
		TLS_REDIRECT => 1, HTTP2 => 1 });
	$red->run({}, '-s', tls_port());
	my $c = h2_open($red->port);
	my $post = sub { h2_frame(H2_HEADERS, 4, $_[0], h2_block(':method' => 'POST',
		':scheme' => 'http', ':path' => '/form', ':authority' => 'localhost',
		'content-length' => 200000)) };
	my @f;
	for my $id (1, 3, 5) {
		http_send($c, $post->($id));
		my $n = $id == 5 ? 100 : 65535;
		while ($n > 0) {
			my $k = $n > 16384 ? 16384 : $n;
			http_send($c, h2_frame(H2_DATA, 0, $id, 'x' x $k));
			$n -= $k;
		}
		my ($f) = h2_read($c, 0.5);
		push @f, @$f;
	}
	my @answered = grep { $_->{type} == H2_HEADERS } @f;
	my @refused = grep { $_->{type} == H2_RST && unpack('N', $_->{payload}) == 7 } @f;
	my @opened = grep { $_->{type} == H2_WINDOW && $_->{id} == 1 } @f;
	ok(@answered == 3 && !@refused && @opened, sprintf('TLS_REDIRECT: three POSTs '
		. 'redirected, %d refused, stream 1\'s window opened again %d times',
		scalar @refused, scalar @opened));
	close $c;
	$red->stop;
}

# --- SIGTERM: GOAWAY, and the stream under way finishes -------------------------
{
	my $idle = h2_open($port);
	h2_read($idle, 1, sub { $_[0]{type} == H2_SETTINGS });
	my $c = h2_open($port);
	http_send($c, h2_headers(1, '/cgi-bin/slow.sh'));
	sleep 0.5;
	kill 'TERM', $t->pid;
	my ($fr, $closed) = h2_read($c, 10);
	my ($ga) = grep { $_->{type} == H2_GOAWAY } @$fr;
	my @data = grep { $_->{type} == H2_DATA && $_->{id} == 1 } @$fr;
	ok($ga && unpack('N', $ga->{payload}) == 1 &&
		unpack('x4N', $ga->{payload}) == 0 && @data &&
		$data[-1]{flags} & 1 &&
		join('', map { $_->{payload} } @data) eq "slow\n" && $closed,
		'SIGTERM: GOAWAY (last stream 1, NO_ERROR), stream 1 finishes, closed');
	($fr, $closed) = h2_read($idle, 10);
	ok(defined h2_goaway($fr) && $closed, 'SIGTERM: an idle connection gets GOAWAY');
	is($t->stop, 0, 'the server exits 0') or diag($t->stderr);
}

done_testing();
