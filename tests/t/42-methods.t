#!/usr/bin/perl
# Methods (RFC 9110 9 and 15.5.6, 15.6.2): OPTIONS * and OPTIONS /path get
# 204 with Allow and nothing else; methods we know but do not serve get 405
# with the same Allow, and their bodies never become requests; unknown
# (and lower-case) methods get 501; keep-alive and pipelining go on after
# each.  Absolute-form targets (RFC 9112 3.2.2); curl -X.

use strict;
use warnings;

use Test::More;
use MrhttpdTest;

my $t = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html' });
my $features = $t->version_info->{features};
my $bodies = $t->feature('request-bodies');
$t->write_file('a.txt', "aaa\n");
$t->write_file('b.txt', "bbb\n");
$t->write_file('smuggled.txt', "SMUGGLED\n");
$t->write_file('index.html', "<p>index</p>\n");
$t->write_file('dir/index.html', "<p>dir</p>\n");
$t->run();

my $ALLOW = 'GET, HEAD, OPTIONS';

# one($request_bytes): (first response, raw, number of responses, closed).
sub one {
	my ($req, %o) = @_;
	my $closed;
	my $raw = http($req, closed => \$closed, timeout => $o{timeout} // 5);
	my @r = parse_responses($raw, head => $o{head});
	return ($r[0] // { status => 0, headers => {} }, $raw, scalar @r, $closed);
}

sub still_serving {
	my ($what) = @_;
	my ($r) = parse_responses(http_get('/a.txt'));
	is($r && $r->{body}, "aaa\n", "$what: server still serves");
}

# -------------------------------------------------------------------------
# OPTIONS: 204, Allow, no Content-Length, no body (RFC 9110 9.3.7, 8.6).
for my $c (
	['OPTIONS *', "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
	['OPTIONS /a.txt', "OPTIONS /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
	['OPTIONS /', "OPTIONS / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
	['OPTIONS of a missing path', "OPTIONS /missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
	['OPTIONS * over HTTP/1.0', "OPTIONS * HTTP/1.0\r\n\r\n"],
	['OPTIONS absolute-form', "OPTIONS http://x/a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
	['OPTIONS absolute-form without a path',
		"OPTIONS http://x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
	['OPTIONS * with Max-Forwards',
		"OPTIONS * HTTP/1.1\r\nHost: x\r\nMax-Forwards: 0\r\nConnection: close\r\n\r\n"],
) {
	my ($what, $req) = @$c;
	my ($r, $raw, $n) = one($req);
	is($r->{status}, 204, "$what: 204");
	like($raw, qr{^HTTP/1\.1 204 No Content\r\n}, "$what: status line");
	is($r->{headers}{allow}, $ALLOW, "$what: Allow: $ALLOW");
	is($r->{header_count}{allow}, 1, "$what: one Allow");
	ok(!exists $r->{headers}{'content-length'}, "$what: no Content-Length");
	ok(!exists $r->{headers}{'transfer-encoding'}, "$what: no Transfer-Encoding");
	like($r->{headers}{date} // '', qr/ GMT$/, "$what: Date");
	is(length $raw, length($r->{raw_head} // ''), "$what: no body");
	is($n, 1, "$what: one response");
}

# OPTIONS on a kept-alive connection, with a body, pipelined.
{
	my $s = http_connect();
	http_send($s, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r = read_response($s);
	is($r && $r->{status}, 204, 'keep-alive: OPTIONS *');
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	$r = read_response($s);
	is($r && $r->{body}, "aaa\n", 'keep-alive: GET right after the 204');
	ok(!defined wait_closed($s, 0.3), 'keep-alive: open after OPTIONS');

	# OPTIONS with content: it is read and dropped, never parsed
	my $body = "GET /smuggled.txt HTTP/1.1\r\nHost: x\r\n\r\n";
	my $raw = http("OPTIONS /a.txt HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
		. "Content-Length: " . length($body) . "\r\n\r\n$body"
		. "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET /b.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	my @r = parse_responses($raw);
	unlike($raw, qr/SMUGGLED/, 'OPTIONS with content: content not served as a request');
	if (!$bodies) {
		is(join(' ', map { $_->{status} } @r), '204',
			'OPTIONS with content, no body reader: 204, then closed');
	} else {
		is(join(' ', map { $_->{status} } @r), '204 204 200',
			'OPTIONS with content, pipelined: 204 204 200');
		is($r[2] && $r[2]->{body}, "bbb\n",
			'OPTIONS with content, pipelined: GET body');
	}
}

# -------------------------------------------------------------------------
# 405 with Allow for the methods we know (RFC 9110 15.5.6): PUT and DELETE
# only while this build has no PUT_PATH.
my @known = qw(POST PATCH TRACE);
push @known, qw(PUT DELETE) unless ($features->{put} // 'no') eq 'yes';
for my $m (@known) {
	my ($r, $raw, $n) = one("$m /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	is($r->{status}, 405, "$m: 405");
	like($raw, qr{^HTTP/1\.1 405 Method Not Allowed\r\n}, "$m: status line");
	is($r->{headers}{allow}, $ALLOW, "$m: Allow: $ALLOW");
	is($r->{headers}{'content-length'}, length($r->{body} // ''),
		"$m: Content-Length matches the body");
	unlike($r->{body} // '', qr/aaa/, "$m: not the file");
	is($n, 1, "$m: one response");

	($r) = one("$m /missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	like($r->{status}, qr/^40[45]$/, "$m on a missing path: 404 or 405");
}
{
	my ($r) = one("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n"
		. "Connection: close\r\n\r\n");
	is($r->{status}, 405, 'CONNECT host:port: 405');
	is($r->{headers}{allow}, $ALLOW, 'CONNECT: Allow');
	still_serving('CONNECT');
}

# 405 bodies are read and dropped, and the connection goes on; a build
# that reads no bodies (no PUT, no CGI) closes it instead.
{
	my $body = "GET /smuggled.txt HTTP/1.1\r\nHost: x\r\n\r\n";
	my $len = length $body;
	my $closed;
	my $raw = http("POST /a.txt HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
		. "Content-Length: $len\r\n\r\n$body"
		. "GET /b.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		closed => \$closed);
	my @r = parse_responses($raw);
	unlike($raw, qr/SMUGGLED/, 'POST body never parsed as a request');
	is($r[0] && $r[0]->{status}, 405, 'POST with a body: 405');
	if (!$bodies) {
		is(join(' ', map { $_->{status} } @r), '405',
			'POST with a body, no body reader: 405 alone');
		is($r[0] && $r[0]->{headers}{connection}, 'close',
			'POST with a body, no body reader: Connection: close');
		ok($closed, 'POST with a body, no body reader: closed');
	} else {
		is(join(' ', map { $_->{status} } @r), '405 200',
			'POST with a body, then GET: 405 200');
		is($r[1] && $r[1]->{body}, "bbb\n",
			'POST with a body, then GET: GET answered');
	}

	# the body arriving after the 405 went out
	my $s = http_connect();
	http_send($s, "POST /a.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n");
	my $r = read_response($s);
	is($r && $r->{status}, 405, 'POST, body still to come: 405 at once');
	http_send($s, "0123456789GET /b.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	if (!$bodies) {
		ok(defined wait_closed($s, 3), 'POST body sent late: closed');
	} else {
		$r = read_response($s);
		is($r && $r->{body}, "bbb\n",
			'POST body sent late: dropped, next request served');
	}
}

# Keep-alive across 405 and 501, then the same pipelined.
{
	my $s = http_connect();
	for my $m (@known, 'BREW') {
		http_send($s, "$m /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
		my $r = read_response($s);
		is($r && $r->{status}, $m eq 'BREW' ? 501 : 405, "keep-alive: $m answered");
		http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
		$r = read_response($s);
		is($r && $r->{body}, "aaa\n", "keep-alive: GET after $m");
	}
	ok(!defined wait_closed($s, 0.3), 'keep-alive: open after 405s and a 501');

	my @seq = (['DELETE', 405], ['GET', 200], ['OPTIONS', 204], ['HEAD', 200],
		['TRACE', 405], ['PATCH', 405], ['GET', 200], ['OPTIONS', 204]);
	@seq = grep { $_->[0] ne 'DELETE' } @seq if ($features->{put} // 'no') eq 'yes';
	$s = http_connect();
	http_send($s, join '', map { "$_->[0] /a.txt HTTP/1.1\r\nHost: x\r\n\r\n" } @seq);
	my $i = 0;
	for my $q (@seq) {
		$i++;
		my $r = read_response($s, head => $q->[0] eq 'HEAD');
		is($r && $r->{status}, $q->[1], "pipelined #$i $q->[0]: $q->[1]");
		is($r && $r->{body}, "aaa\n", "pipelined #$i: body") if $q->[1] == 200
			&& $q->[0] eq 'GET';
	}
	http_send($s, "GET /b.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	my @rest = parse_responses(http(undef, sock => $s));
	is(scalar @rest, 1, 'pipelined: one last response, no stray bytes');
	is($rest[0] && $rest[0]->{body}, "bbb\n", 'pipelined: last response intact');
}

# -------------------------------------------------------------------------
# 501 for what we do not know; method names are case-sensitive (RFC 9110 9.1).
for my $m (qw(FOO PROPFIND MKCOL BREW GETS options get Get post QUERY)) {
	my ($r, $raw, $n) = one("$m /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	is($r->{status}, 501, "$m: 501");
	is($r->{headers}{'content-length'}, length($r->{body} // ''),
		"$m: Content-Length matches the body");
	is($n, 1, "$m: one response");
}
still_serving('after 501s');

# The asterisk-form is for OPTIONS only (RFC 9112 3.2.4).
{
	my ($r) = one("GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	is($r->{status}, 400, 'GET *: 400');
	($r) = one("HEAD * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", head => 1);
	is($r->{status}, 400, 'HEAD *: 400');
	still_serving('GET *');
}

# -------------------------------------------------------------------------
# Absolute-form targets (RFC 9112 3.2.2): the path is what counts.
for my $c (
	['GET http://localhost/a.txt', "aaa\n"],
	['GET http://LOCALHOST/a.txt', "aaa\n"],
	['GET HTTP://localhost/a.txt', "aaa\n"],
	['GET https://localhost/a.txt', "aaa\n"],
	['GET http://localhost:8080/a.txt', "aaa\n"],
	['GET http://user@localhost/a.txt', "aaa\n"],
	['GET http://localhost/a.txt?x=1', "aaa\n"],
	['GET http://localhost/', "<p>index</p>\n"],
	['GET http://localhost', "<p>index</p>\n"],
	['GET http://localhost?x', "<p>index</p>\n"],
	['GET http://localhost/dir/', "<p>dir</p>\n"],
	['GET http://127.0.0.1/%61.txt', "aaa\n"],
	['GET http://localhost/x/../a.txt', "aaa\n"],
) {
	my ($line, $want) = @$c;
	my ($r) = one("$line HTTP/1.1\r\nHost: other.example\r\nConnection: close\r\n\r\n");
	is($r->{status}, 200, "$line: 200");
	is($r->{body}, $want, "$line: the right file");
}
{
	my ($r) = one("HEAD http://localhost/a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		head => 1);
	is($r->{status}, 200, 'HEAD absolute-form: 200');
	is($r->{headers}{'content-length'}, 4, 'HEAD absolute-form: Content-Length');
	($r) = one("GET http://localhost/a.txt HTTP/1.0\r\n\r\n");
	is($r->{body}, "aaa\n", 'absolute-form over HTTP/1.0 without Host');
	($r) = one("GET http://localhost/missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	is($r->{status}, 404, 'absolute-form, missing file: 404');
	($r) = one("GET http://localhost/dir HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	is($r->{status}, 301, 'absolute-form, directory without slash: 301');
	like($r->{headers}{location} // '', qr{^(?:http://[^/]+)?/dir/$},
		'absolute-form, directory: Location /dir/');
	($r) = one("GET http://localhost/../a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	like($r->{status}, qr/^40[034]$/, 'absolute-form climbing above the root: refused');
	($r) = one("GET http:///a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	is($r->{status}, 400, 'absolute-form without authority: 400');
	still_serving('absolute-form');

	# kept alive and pipelined
	my $s = http_connect();
	http_send($s, "GET http://x/a.txt HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET http://x/b.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r1 = read_response($s);
	my $r2 = read_response($s);
	is($r1 && $r1->{body}, "aaa\n", 'absolute-form pipelined #1');
	is($r2 && $r2->{body}, "bbb\n", 'absolute-form pipelined #2');
}

# -------------------------------------------------------------------------
# curl: -X OPTIONS, -X DELETE, -I, the absolute form through a "proxy".
SKIP: {
	my $curl = MrhttpdTest::find_prog('curl');
	skip 'curl not installed (apt-get install curl)', 7 unless $curl;
	my $url = 'http://127.0.0.1:' . $t->port;
	my ($rc, $out) = run_cmd($curl, '-s', '-i', '-X', 'OPTIONS', '--max-time', '10',
		"$url/a.txt");
	like($out, qr{^HTTP/1\.1 204 }, 'curl -X OPTIONS: 204');
	like($out, qr{^Allow: GET, HEAD, OPTIONS\r$}mi, 'curl -X OPTIONS: Allow');
	($rc, $out) = run_cmd($curl, '-s', '-i', '--request-target', '*', '-X', 'OPTIONS',
		'--max-time', '10', $url);
	like($out, qr{^HTTP/1\.1 204 }, 'curl --request-target "*" -X OPTIONS: 204');
	SKIP: {
		skip 'this build has PUT_PATH: DELETE is served', 2
			if ($features->{put} // 'no') eq 'yes';
		($rc, $out) = run_cmd($curl, '-s', '-i', '-X', 'DELETE', '--max-time', '10',
			"$url/a.txt");
		like($out, qr{^HTTP/1\.1 405 }, 'curl -X DELETE: 405');
		like($out, qr{^Allow: GET, HEAD, OPTIONS\r$}mi, 'curl -X DELETE: Allow');
	}
	($rc, $out) = run_cmd($curl, '-s', '-I', '--max-time', '10', "$url/a.txt");
	like($out, qr{^HTTP/1\.1 200 }, 'curl -I: 200');
	is($out =~ /^Accept-Ranges: bytes\r$/mi ? 1 : 0, $t->feature('ranges') ? 1 : 0,
		'curl -I: Accept-Ranges as built');
	# curl through the server as an HTTP proxy sends the absolute form
	($rc, $out) = run_cmd($curl, '-s', '--max-time', '10', '-x', $url,
		'http://example.invalid/a.txt');
	is($out, "aaa\n", 'curl -x (absolute-form request): the file');
}

ok($t->alive, 'server still running');
$t->done_testing();
