#!/usr/bin/perl
# Strict, bounded parsing: every malformed request gets its status, framing
# errors close the connection, a body is never parsed as a request, error
# pages never echo the path, and the server keeps serving after each one.

use strict;
use warnings;

use Test::More;
use MrhttpdTest;

my $t = MrhttpdTest->new(conf => { HTTP_HEADER_LENGTH => 1024 });
$t->write_file('a.txt', "aaa\n");
$t->write_file('b.txt', "bbb\n");
$t->write_file('smuggled.txt', "SMUGGLED\n");
$t->run();

# send_raw(BYTES): one response to BYTES on a fresh connection, or undef.
sub send_raw {
	my ($bytes, %o) = @_;
	my $s = http_connect();
	http_send($s, $bytes);
	my $r = read_response($s, timeout => 5);
	return wantarray ? ($r, $s) : $r;
}

sub still_serving {
	my ($what) = @_;
	my ($r) = parse_responses(http_get('/a.txt', timeout => 5));
	ok($r && $r->{status} == 200 && $r->{body} eq "aaa\n",
		"$what: server still serves");
}

my $H = "Host: x\r\n";
# [name, request bytes, expected status (regex), must close]
my @cases = (
	['garbage request line', "this is not http\r\n\r\n", 400],
	['binary garbage', "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400],
	['request line without version', "GET /a.txt\r\n\r\n", 400],
	['bare CR before the request line (RFC 9112 2.2)', "\rGET /a.txt HTTP/1.1\r\n$H\r\n", 400],
	['CR CR LF before the request line', "\r\r\nGET /a.txt HTTP/1.1\r\n$H\r\n", 400],
	['HTTP/1.1 without Host', "GET /a.txt HTTP/1.1\r\n\r\n", 400],
	# a fragment is never sent (RFC 9112 3.2.1): a proxy in front cuts
	# "/x#/../private/a" to "/x" before its rules, and passes it on whole
	['"#" in the target', "GET /x#/../a.txt HTTP/1.1\r\n$H\r\n", 400],
	['"#" at the end of the target', "GET /a.txt# HTTP/1.1\r\n$H\r\n", 400],
	['"#" in the query', "GET /a.txt?a#b HTTP/1.1\r\n$H\r\n", 400],
	['two Host headers', "GET /a.txt HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400],
	['HTTP/1.2', "GET /a.txt HTTP/1.2\r\n$H\r\n", 505],
	['HTTP/2.0', "GET /a.txt HTTP/2.0\r\n$H\r\n", 505],
	['HTTP/0.9', "GET /a.txt HTTP/0.9\r\n$H\r\n", 505],
	['HTTP/1 (no minor)', "GET /a.txt HTTP/1\r\n$H\r\n", 400],
	['HTTX/1.1', "GET /a.txt HTTX/1.1\r\n$H\r\n", 400],
	['lowercase http/1.1', "GET /a.txt http/1.1\r\n$H\r\n", 400],
	['unknown method FOO', "FOO /a.txt HTTP/1.1\r\n$H\r\n", 501],
	['lowercase get', "get /a.txt HTTP/1.1\r\n$H\r\n", 501],
	['POST not implemented', "POST /a.txt HTTP/1.1\r\n${H}Content-Length: 0\r\n\r\n",
		qr/^(?:501|405)$/],
	['head over HTTP_HEADER_LENGTH',
		"GET /a.txt HTTP/1.1\r\n${H}X-Long: " . ('y' x 1100) . "\r\n\r\n", 431],
	['request line over HTTP_HEADER_LENGTH',
		"GET /" . ('a' x 1100) . " HTTP/1.1\r\n$H\r\n", qr/^(?:431|414)$/],
	['many headers over HTTP_HEADER_LENGTH',
		"GET /a.txt HTTP/1.1\r\n$H" . ("X-A: b\r\n" x 200) . "\r\n", 431],
	['Content-Length abc', "GET /a.txt HTTP/1.1\r\n${H}Content-Length: abc\r\n\r\n",
		400, 1],
	['Content-Length -1', "GET /a.txt HTTP/1.1\r\n${H}Content-Length: -1\r\n\r\n",
		400, 1],
	['Content-Length +5', "GET /a.txt HTTP/1.1\r\n${H}Content-Length: +5\r\n\r\nhello",
		400, 1],
	['Content-Length 1 2', "GET /a.txt HTTP/1.1\r\n${H}Content-Length: 1 2\r\n\r\nab",
		400, 1],
	['Content-Length overflow',
		"GET /a.txt HTTP/1.1\r\n${H}Content-Length: 99999999999999999999999\r\n\r\n",
		400, 1],
	['Content-Length 2^64', "GET /a.txt HTTP/1.1\r\n${H}Content-Length: 18446744073709551616\r\n\r\n",
		400, 1],
	['Content-Length with Transfer-Encoding',
		"GET /a.txt HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
		. "0\r\n\r\n", 400, 1],
	['two different Content-Lengths',
		"GET /a.txt HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
		400, 1],
	['header line without colon', "GET /a.txt HTTP/1.1\r\n${H}Foo bar\r\n\r\n", 400],
	['whitespace before colon', "GET /a.txt HTTP/1.1\r\n${H}X-Foo : bar\r\n\r\n", 400],
	['whitespace before colon in Host', "GET /a.txt HTTP/1.1\r\nHost : x\r\n\r\n", 400],
	['obs-fold continuation line',
		"GET /a.txt HTTP/1.1\r\n${H}X-Foo: bar\r\n baz\r\n\r\n", 400],
	['obs-fold with a tab', "GET /a.txt HTTP/1.1\r\n${H}X-Foo: bar\r\n\tbaz\r\n\r\n", 400],
	['NUL byte in the path', "GET /a.txt\0.html HTTP/1.1\r\n$H\r\n", 400],
	['NUL byte in a header', "GET /a.txt HTTP/1.1\r\n${H}X-Foo: b\0ar\r\n\r\n", 400],
	['%zz in the path', "GET /a%zz.txt HTTP/1.1\r\n$H\r\n", 400],
	['%4 at the end of the path', "GET /a.txt%4 HTTP/1.1\r\n$H\r\n", 400],
	['%4 in the path', "GET /a%4.txt HTTP/1.1\r\n$H\r\n", 400],
	['% at the end of the path', "GET /a.txt% HTTP/1.1\r\n$H\r\n", 400],
	['%00 in the path', "GET /a.txt%00.html HTTP/1.1\r\n$H\r\n", 400],
	['target without slash', "GET a.txt HTTP/1.1\r\n$H\r\n", 400],
	['empty request target', "GET  HTTP/1.1\r\n$H\r\n", 400],
	# RFC 9112 3.2: a Host that is no host[:port] is refused, so that
	# no program gets it for SERVER_NAME
	['Host with a path', "GET /a.txt HTTP/1.1\r\nHost: evil.com/<script>\r\n\r\n", 400],
	['Host with a space', "GET /a.txt HTTP/1.1\r\nHost: a b\r\n\r\n", 400],
	['Host with a quote', "GET /a.txt HTTP/1.1\r\nHost: a\"b\r\n\r\n", 400],
	['Host with userinfo', "GET /a.txt HTTP/1.1\r\nHost: u\@h\r\n\r\n", 400],
	['Host with obs-text', "GET /a.txt HTTP/1.1\r\nHost: x\xff\r\n\r\n", 400],
	['Host with a query', "GET /a.txt HTTP/1.1\r\nHost: h?q\r\n\r\n", 400],
	['Host with a backslash', "GET /a.txt HTTP/1.1\r\nHost: h\\x\r\n\r\n", 400],
);

# ... and every host the RFC allows is taken: names with _ and ~,
# percent-encoding, sub-delims, IP literals, ports, and an empty Host
for my $host ('my_router.lan', 'a-b.example:8080', '[::1]:80', '[fe80::1]',
    '127.0.0.1:8080', 'x%41y', "a!\$&'()*+,;=b", '~h', '') {
	my ($r) = send_raw("GET /a.txt HTTP/1.1\r\nHost: $host\r\n\r\n");
	is($r && $r->{status}, 200, "Host: '$host' is taken");
}

for my $c (@cases) {
	my ($name, $bytes, $want, $must_close) = @$c;
	my ($r, $s) = send_raw($bytes);
	my $re = ref $want ? $want : qr/^$want$/;
	my $label = ref $want ? 'expected status' : $want;
	like($r ? $r->{status} : 'no response', $re, "$name: $label");
	if ($must_close) {
		ok(defined wait_closed($s, 3), "$name: connection closed");
	}
	still_serving($name);
}

# A lone bare LF is tolerated or refused, but never crashes anything.
{
	my $r = send_raw("GET /a.txt HTTP/1.0\n\n");
	like($r ? $r->{status} : 'none', qr/^(?:200|400)$/, 'bare LF line ends: 200 or 400');
	still_serving('bare LF');
}

# A body sent with GET is never parsed as the next request.  A server that
# reads bodies (PUT or CGI) discards it and goes on; one without them
# answers with Connection: close and closes.
my $bodies = $t->version_info->{features}{'request-bodies'} eq 'yes';
for my $body ("GET /c\r\n\r\n",
	"GET /smuggled.txt HTTP/1.1\r\nHost: x\r\n\r\n") {
	my $len = length $body;
	my $closed;
	my $raw = http("GET /a.txt HTTP/1.1\r\n${H}Content-Length: $len\r\n\r\n"
		. $body
		. "GET /b.txt HTTP/1.1\r\n${H}Connection: close\r\n\r\n",
		closed => \$closed);
	my @r = parse_responses($raw);
	unlike($raw, qr/SMUGGLED/, "GET with a $len-byte body: body not served as a request");
	is($r[0] && $r[0]->{body}, "aaa\n", "GET with a $len-byte body: first reply");
	if (!$bodies) {
		is(scalar @r, 1, "GET with a $len-byte body: one response");
		is($r[0] && $r[0]->{headers}{connection}, 'close',
			"GET with a $len-byte body: Connection: close");
		ok($closed, "GET with a $len-byte body: closed after it");
	} else {
		is(join(' ', map { $_->{status} } @r), '200 200',
			"GET with a $len-byte body: exactly two responses");
		is($r[1] && $r[1]->{body}, "bbb\n",
			"GET with a $len-byte body: next request after the body");
	}
}

# Error pages never echo the request path.
for my $path ('/nonexistent<script>alert(1)</script>',
	'/nonexistent%3Cscript%3Ealert(1)%3C/script%3E') {
	my ($raw) = http("GET $path HTTP/1.0\r\n\r\n");
	my ($r) = parse_responses($raw);
	like($r ? $r->{status} : 'none', qr/^40[04]$/, "$path: 400 or 404");
	ok(length($r->{body} // '') > 0, "$path: error reply has a body");
	unlike($raw, qr/nonexistent|script/i, "$path: path not echoed in the reply");
}

ok($t->alive, 'server survived every malformed request');

# With PRIVATE_DIR, error bodies come from PRIVATE_DIR/<code>.html.
my $private = MrhttpdTest::fixed_dir('data-12-malformed');	# compiled in
my $t2 = MrhttpdTest->new(conf => { PRIVATE_DIR => $private });
$t2->write_file("$private/404.html", "<h1>custom not found page</h1>\n");
unlink "$private/400.html";
$t2->run();
{
	my ($r) = parse_responses(http_get('/nonexistent.html'));
	is($r->{status}, 404, 'PRIVATE_DIR: 404 status');
	is($r->{body}, "<h1>custom not found page</h1>\n", 'PRIVATE_DIR: body is 404.html');
	like($r->{headers}{'content-type'} // '', qr{^text/html}, 'PRIVATE_DIR: text/html');
	is($r->{headers}{'content-length'}, 31, 'PRIVATE_DIR: its Content-Length');

	($r) = parse_responses(http("GET /a.txt HTTP/1.1\r\n\r\n"));
	is($r->{status}, 400, 'PRIVATE_DIR without 400.html: 400');
	ok(length($r->{body} // '') > 0, 'PRIVATE_DIR without 400.html: built-in body');
}

$t->done_testing();
