#!/usr/bin/perl
# 70-tls.t - HTTPS (TLS=1, mbed TLS) with real clients: curl and openssl
# s_client against the real server, with a test CA made at test time.
#
# What works over HTTP works over HTTPS: files, HEAD, errors, keep-alive
# and pipelining, ranges, validators, .gz variants, listings, PUT and
# DELETE with auth, CGI with a request body (HTTPS=on), a 1 MiB body, the
# access log.  Then the TLS itself: ECDSA and RSA certificates, session
# resumption with tickets, ALPN, no TLS 1.1 and no suite without ECDHE or
# AEAD, plain HTTP on the TLS port (a 400 in clear text), TLS_REDIRECT,
# and start-up failures (a key that does not match its certificate).

use strict;
use warnings;

use Digest::MD5 qw(md5_hex);
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp spew);
use MrhttpdCGI qw(cgi_dir script);
use MrhttpdTLS;

my $pki = tls_pki() or plan skip_all => "no test certificates: $@";

my $dir = cgi_dir('tls-70');
script("$dir/cgi-bin/env.sh", <<'EOF');
#!/bin/sh
body=$(cat)
printf 'Content-Type: text/plain\n\n'
printf 'HTTPS=%s SCHEME=%s PORT=%s BODY=%s\n' "$HTTPS" "$REQUEST_SCHEME" \
	"$SERVER_PORT" "$body"
EOF

my $t = MrhttpdTest->new(conf => {
	tls_conf($pki, 'ec'),
	DEFAULT_INDEX => 'index.html',
	AUTO_INDEX => 3,
	GZIP_STATIC => 1,
	PUT_PATH => '/up',
	AUTH_HEADER => 'Basic dGVzdDp0ZXN0',
	AUTH_METHODS => 12,
	CGI_PATH => '/cgi-bin',
	CGI_DIR => "$dir/cgi-bin",
});
$t->has('tls')->has_prog('curl', 'openssl');
my $big = join('', map { sprintf("%07d\n", $_) } 0 .. 131071);	# 1 MiB
$t->write_file('index.html', "hello over tls\n");
$t->write_file('big.bin', $big);
$t->write_file('page.html', 'plain page ' x 50);
$t->write_file('page.html.gz', "\x1f\x8b pretend gzip");
$t->write_file('list/a.txt', 'a');
$t->write_file('list/b.txt', 'b');
mkdir $t->htdocs . '/up';
my $sport = tls_port();
$t->run({}, '-s', $sport);
my $base = "https://localhost:$sport";

like($t->version_info->{raw}, qr/^tls-library: mbed TLS \d+\.\d+\.\d+$/m,
	'-V names the TLS library and its version');

# --- the feature set over HTTPS ---------------------------------------------
my $r = curl_tls($pki, "$base/");
is($r->{status}, 200, 'GET / over HTTPS: 200');
is($r->{body}, "hello over tls\n", 'GET /: the index file');
$r = curl_tls($pki, "$base/", '-I');
ok($r->{status} == 200 && $r->{head} =~ /^Content-Length: 15\r$/mi &&
	$r->{body} !~ /hello/, 'HEAD: the length, no body');
$r = curl_tls($pki, "$base/nothing-here");
is($r->{status}, 404, 'a missing file: 404');
$r = curl_tls($pki, "$base/big.bin");
ok($r->{status} == 200 && length($r->{body}) == length($big) &&
	md5_hex($r->{body}) eq md5_hex($big), '1 MiB file: every byte, in order');
SKIP: {
	skip 'built without ranges', 2 unless $t->feature('ranges');
	$r = curl_tls($pki, "$base/big.bin", '-r', '1000-1999');
	ok($r->{status} == 206 && $r->{body} eq substr($big, 1000, 1000),
		'a range: 206 with those bytes');
	$r = curl_tls($pki, "$base/big.bin", '-r', '-100');
	ok($r->{status} == 206 && $r->{body} eq substr($big, -100),
		'a suffix range: the last bytes');
}
SKIP: {
	skip 'built without validators', 2 unless $t->feature('validators');
	my ($etag) = curl_tls($pki, "$base/index.html")->{head} =~ /^ETag: (\S+)\r$/mi;
	ok(defined $etag, 'an ETag');
	$r = curl_tls($pki, "$base/index.html", '-H', "If-None-Match: $etag");
	is($r->{status}, 304, 'If-None-Match with it: 304');
}
$r = curl_tls($pki, "$base/page.html", '-H', 'Accept-Encoding: gzip');
ok($r->{status} == 200 && $r->{head} =~ /^Content-Encoding: gzip\r$/mi &&
	$r->{body} eq "\x1f\x8b pretend gzip", 'the .gz variant for gzip clients');
$r = curl_tls($pki, "$base/list/");
ok($r->{status} == 200 && $r->{body} =~ /a\.txt/ && $r->{body} =~ /b\.txt/,
	'an HTML listing');
$r = curl_tls($pki, "$base/up/new.txt", '-T', $t->write_file('/' .
	$t->testdir . '/src.txt', "uploaded\n"));
is($r->{status}, 401, 'PUT without credentials: 401');
$r = curl_tls($pki, "$base/up/new.txt", '-u', 'test:test', '-T',
	$t->testdir . '/src.txt');
is($r->{status}, 201, 'PUT with credentials: 201');
is(slurp($t->htdocs . '/up/new.txt'), "uploaded\n", 'the upload is in place');
# 8 MiB up: full records, every read within its budget (tls.c)
spew($t->testdir . '/big-up.bin', $big x 8);
$r = curl_tls($pki, "$base/up/big.bin", '-u', 'test:test', '-T',
	$t->testdir . '/big-up.bin');
ok($r->{status} == 201 && md5_hex(slurp($t->htdocs . '/up/big.bin') // '') eq
	md5_hex($big x 8), 'an 8 MiB PUT over TLS: 201, every byte');
$r = curl_tls($pki, "$base/up/new.txt", '-u', 'test:test', '-X', 'DELETE');
ok($r->{status} == 204 && !-e $t->htdocs . '/up/new.txt', 'DELETE: 204, gone');
$r = curl_tls($pki, "$base/cgi-bin/env.sh", '--data-binary', 'posted');
is($r->{body}, "HTTPS=on SCHEME=https PORT=$sport BODY=posted\n",
	'CGI: HTTPS=on, the TLS port, and the request body');
$r = curl_tls($pki, "http://127.0.0.1:" . $t->port . "/cgi-bin/env.sh",
	'--data-binary', 'x');
is($r->{body}, "HTTPS= SCHEME= PORT=" . $t->port . " BODY=x\n",
	'CGI over plain HTTP: no HTTPS');

# keep-alive: curl reuses the connection for a second URL
$r = curl_tls($pki, "$base/index.html", '-v', "$base/page.html");
like($r->{err}, qr/Re-using existing connection/i,
	'keep-alive: the second request on the same TLS connection');
is(() = $r->{head} =~ /^HTTP\/1\.1 200/mg, 2, 'keep-alive: both answered');

# pipelining: three requests in one write
my $out = s_client($pki, $sport, join('', map {
	"GET /index.html HTTP/1.1\r\nHost: localhost\r\n"
	. ($_ == 3 ? "Connection: close\r\n" : '') . "\r\n" } 1 .. 3), '-quiet');
is(() = $out =~ /^HTTP\/1\.1 200 OK\r$/mg, 3,
	'pipelining: three requests in one record, three replies');

# the access log has the HTTPS requests
like($t->log, qr{"PUT /up/new\.txt HTTP/1\.1" 201 }, 'the access log has them');

# --- TLS itself ----------------------------------------------------------------
$out = s_client($pki, $sport, "", '-tls1_2', '-alpn', 'http/1.1');
like($out, qr/Verify return code: 0 \(ok\)/, 'the chain verifies with the test CA');
like($out, qr/ALPN protocol: http\/1\.1/, 'ALPN: http/1.1');
# a client that offers only http/1.0 (curl --http1.0) is served, not sent
# a no_application_protocol alert
my $r10 = curl_tls($pki, "$base/index.html", '--http1.0');
is("$r10->{rc} $r10->{status} $r10->{body}", "0 200 hello over tls\n",
	'ALPN http/1.0 alone (curl --http1.0): served');
like($out, qr/Cipher is ECDHE-ECDSA-AES128-GCM-SHA256/,
	'ECDSA certificate: ECDHE-ECDSA with AES-GCM');
$out = s_client($pki, $sport, "", '-tls1_1');
unlike($out, qr/Cipher is (?!\(NONE\))/, 'TLS 1.1 is refused');
$out = s_client($pki, $sport, "", '-tls1_2', '-cipher', 'AES128-SHA:AES256-GCM-SHA384');
unlike($out, qr/Cipher is (?!\(NONE\))/,
	'suites without ECDHE are refused (RSA key exchange)');
$out = s_client($pki, $sport, "", '-tls1_2', '-cipher', 'ECDHE-ECDSA-AES128-SHA');
unlike($out, qr/Cipher is (?!\(NONE\))/, 'suites without AEAD are refused (CBC)');
$out = s_client($pki, $sport, "", '-tls1_2', '-cipher',
	'ECDHE-ECDSA-CHACHA20-POLY1305');
like($out, qr/Cipher is ECDHE-ECDSA-CHACHA20-POLY1305/, 'ChaCha20-Poly1305');

# resumption: a ticket from the first connection resumes the second
my $sess = $t->testdir . '/sess.pem';
$out = s_client($pki, $sport, "", '-tls1_2', '-sess_out', $sess);
like($out, qr/TLS session ticket lifetime hint: \d+/, 'a session ticket is issued');
$out = s_client($pki, $sport, "", '-tls1_2', '-sess_in', $sess);
like($out, qr/^Reused, TLSv1\.2/m, 'the next connection resumes with it');
$out = s_client($pki, $sport, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	'-tls1_2', '-sess_in', $sess, '-quiet');
like($out, qr/hello over tls/, 'a resumed session serves requests');

# plain HTTP on the TLS port: a 400 in clear text, and closed
my $s = http_connect(port => $sport);
http_send($s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
my $resp = read_response($s, timeout => 5);
ok($resp && $resp->{status} == 400 && $resp->{body} =~ /HTTPS/,
	'plain HTTP on the TLS port: 400 saying so');
ok(wait_closed($s, 5), 'and the connection is closed');
like($t->log, qr{"GET / HTTP/1\.1" 400 39 }, 'and it is in the access log');
like(curl_tls($pki, "$base/")->{body}, qr/hello/, 'HTTPS still served');
$t->stop();

# --- RSA, on the smallest stack configure allows -------------------------------------
# (a file goes through conn_copyfile and the TLS writer: their buffers,
# and mbed TLS under them, must fit THREAD_STACK_KB=48)
my $rsa = MrhttpdTest->new(conf => { tls_conf($pki, 'rsa'),
	THREAD_STACK_KB => 48, HTTP_HEADER_LENGTH => 512 });
$rsa->write_file('x.txt', "rsa\n");
$rsa->write_file('big.bin', $big x 5);
my $rport = tls_port();
$rsa->run({}, '-s', $rport);
$r = curl_tls($pki, "https://localhost:$rport/x.txt");
is($r->{body}, "rsa\n", 'an RSA-2048 certificate serves too');
$r = curl_tls($pki, "https://localhost:$rport/big.bin");
ok($r->{status} == 200 && md5_hex($r->{body}) eq md5_hex($big x 5),
	'THREAD_STACK_KB=48: a 5 MiB file over TLS, every byte');
$out = s_client($pki, $rport, "", '-tls1_2');
like($out, qr/Cipher is ECDHE-RSA-AES128-GCM-SHA256/, 'with ECDHE-RSA and AES-GCM');
$rsa->stop();

# --- HTTPS only, and TLS_REDIRECT --------------------------------------------------
my $only = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'), SERVER_PORT => '' });
$only->write_file('x.txt', "only\n");
$only->run();
$r = curl_tls($pki, "https://localhost:" . $only->port . "/x.txt");
is($r->{body}, "only\n", 'SERVER_PORT empty: HTTPS alone, on -p');
$only->stop();

# the biggest heads configure allows: a Location can be as long
my $red = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'), TLS_REDIRECT => 1,
	HTTP_HEADER_LENGTH => 65536 });
$red->write_file('x.txt', "secure\n");
my $dport = tls_port();
$red->run({}, '-s', $dport);
$s = http_connect();
http_send($s, "GET /x.txt?a=1 HTTP/1.1\r\nHost: localhost:" . $red->port
	. "\r\n\r\n");
$resp = read_response($s, timeout => 5);
ok($resp && $resp->{status} == 301 && $resp->{headers}{location} eq
	"https://localhost:$dport/x.txt?a=1", 'TLS_REDIRECT: GET gets 301 to https')
	or diag(explain($resp));
http_send($s, "POST /form HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nab");
$resp = read_response($s, timeout => 5);
ok($resp && $resp->{status} == 308 && $resp->{headers}{location} eq
	"https://127.0.0.1:$dport/form", 'TLS_REDIRECT: POST gets 308');
# a build that reads no bodies closes after one
$s = http_connect() unless $red->feature('request-bodies');
my $long = '/' . ('a' x 60000);
http_send($s, "GET $long HTTP/1.1\r\nHost: localhost\r\n\r\n");
$resp = read_response($s, timeout => 5);
ok($resp && $resp->{status} == 301 && $resp->{headers}{location} eq
	"https://localhost:$dport$long", 'TLS_REDIRECT: a 60,000-byte target fits');
for my $host ('evil.example/x', 'a@b', 'x y', '[::1', '[]', '[]:80') {
	$s = http_connect();
	http_send($s, "GET / HTTP/1.1\r\nHost: $host\r\n\r\n");
	$resp = read_response($s, timeout => 5);
	ok($resp && $resp->{status} == 400, "TLS_REDIRECT: Host '$host' is not echoed: 400");
}
$r = curl_tls($pki, "https://localhost:$dport/x.txt", '-L');
is($r->{body}, "secure\n", 'the HTTPS port serves');
$r = curl_tls($pki, "http://localhost:" . $red->port . "/x.txt", '-L');
is($r->{body}, "secure\n", 'curl -L from http:// lands on the file over https');
$red->stop();

# --- start-up --------------------------------------------------------------------
my $bad = MrhttpdTest->new(conf => { TLS => 1, TLS_CERT => $pki->{ec_crt},
	TLS_KEY => $pki->{other_key} });
my ($rc, $msg) = run_cmd(MrhttpdTest::_wrapper(), $bad->binary, '-f', '-p', tls_port(), '-s', tls_port());
$msg =~ s/^mrhttpd: warning: running as root.*\n//m;
ok($rc != 0 && $msg =~ /^mrhttpd: TLS_KEY \S+ does not match TLS_CERT/ &&
	($msg =~ tr/\n//) == 1, 'a key that does not match: one line, exit 1')
	or diag($msg);
$bad = MrhttpdTest->new(conf => { TLS => 1, TLS_CERT => "$pki->{dir}/none.crt",
	TLS_KEY => $pki->{ec_key} });
($rc, $msg) = run_cmd(MrhttpdTest::_wrapper(), $bad->binary, '-f', '-p', tls_port(), '-s', tls_port());
ok($rc != 0 && $msg =~ /^mrhttpd: TLS_CERT \S+none\.crt: No such file/m,
	'a missing certificate: named, with the reason')
	or diag($msg);
# the library's own words were "memory allocation failed" for a directory
# and "generic error" for a chain with a block it cannot parse
mkdir("$pki->{dir}/crt.d");
MrhttpdTest::spew("$pki->{dir}/hole.crt", MrhttpdTest::slurp($pki->{ec_crt})
	. "-----BEGIN CERTIFICATE-----\nAAAAbroken\n-----END CERTIFICATE-----\n");
for (['crt.d', qr/crt\.d: not a regular file$/m, 'a directory'],
    ['hole.crt', qr/hole\.crt: a certificate in it could not be parsed$/m,
	'a chain with a block that does not parse']) {
	my ($f, $re, $what) = @$_;
	$bad = MrhttpdTest->new(conf => { TLS => 1,
		TLS_CERT => "$pki->{dir}/$f", TLS_KEY => $pki->{ec_key} });
	($rc, $msg) = run_cmd(MrhttpdTest::_wrapper(), $bad->binary, '-f',
		'-p', tls_port(), '-s', tls_port());
	ok($rc != 0 && $msg =~ /^mrhttpd: TLS_CERT \S+$re/m, "$what as TLS_CERT: says so")
		or diag($msg);
}

# A body that only the close ends (HTTP/1.0, a program's output with no
# length): a close_notify says it is whole, so one cut short (CGI_TIMEOUT)
# ends without it (RFC 9112 9.8), and a whole one with it
script("$dir/cgi-bin/cut.sh",
	"#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\npart1\\n'\nsleep 10\necho part2\n");
script("$dir/cgi-bin/whole.sh", "#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\nwhole\\n'\n");
{
	my $ct = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'),
		CGI_PATH => '/cgi-bin', CGI_DIR => "$dir/cgi-bin", CGI_TIMEOUT => 1 });
	my $cport = tls_port();
	$ct->run({}, '-s', $cport);
	my $cut = s_client($pki, $cport, "GET /cgi-bin/cut.sh HTTP/1.0\r\nHost: x\r\n\r\n");
	my $whole = s_client($pki, $cport, "GET /cgi-bin/whole.sh HTTP/1.0\r\nHost: x\r\n\r\n");
	like($whole, qr/\r\n\r\nwhole\n(?:.*\n)*closed$/m,
		'a whole body ended by the close: then a close_notify');
	ok($cut =~ /\r\n\r\npart1\n/ && $cut !~ /^closed$/m,
		'one cut short at CGI_TIMEOUT: no close_notify after it') or diag($cut);
	$ct->stop();
}

# configure: bad values named
for my $case (
	['TLS_CERT=cert.pem', qr/TLS_CERT: 'cert\.pem' is not an absolute path/],
	['TLS_KEY=', qr/TLS_KEY: missing/],
	['TLS_MIN_VERSION=1.1', qr/TLS_MIN_VERSION: '1\.1' must be 1\.2/],
	['TLS_MIN_VERSION=1.3', qr/TLS_MIN_VERSION: 1\.3 needs mbed TLS 3, not supported yet/],
	['TLS_PORT=70000', qr/TLS_PORT: 70000 is out of range/],
	['TLS_REDIRECT=1', qr/TLS_REDIRECT: needs SERVER_PORT/, "SERVER_PORT=\n"],
	['TLS=0', qr/TLS_CERT: set, but TLS=0/],
) {
	my ($line, $re, $extra) = @$case;
	my $c = "PUBLIC_DIR=/srv\nTLS=1\nTLS_CERT=$pki->{ec_crt}\n"
		. "TLS_KEY=$pki->{ec_key}\n" . ($extra // '') . "$line\n";
	my $f = spew($t->testdir . '/bad.conf', $c);
	my ($crc, $cout) = run_cmd("$MrhttpdTest::ROOT/configure", '-o',
		$t->testdir . '/gen', $f);
	ok($crc != 0 && $cout =~ $re, "configure refuses $line") or diag($cout);
}

$t->done_testing();
