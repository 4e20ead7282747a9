#!/usr/bin/perl
# Validators, conditional requests and ranges where other features choose
# or guard the representation: GZIP_STATIC (each variant its own ETag and
# Last-Modified, Vary on every reply that depends on Accept-Encoding, 304
# included (RFC 9110 15.4.5), ranges and If-Range of the selected variant,
# curl --compressed), AUTH_HEADER (401 comes before any precondition or
# range: RFC 9110 13.2.1) and PATH_PREFIX.  Each part skips when its
# feature is not built.

use strict;
use warnings;

use Digest::MD5 qw(md5);
use IO::Compress::Gzip qw(gzip $GzipError);
use Test::More;
use Time::HiRes ();
use MrhttpdTest;

my $MTIME = 784111777;				# Sun, 06 Nov 1994 08:49:37 GMT
my $LM = 'Sun, 06 Nov 1994 08:49:37 GMT';
my $GZ_MTIME = $MTIME + 60;
my $GZ_LM = 'Sun, 06 Nov 1994 08:50:37 GMT';

# one($method, $path, @header_lines): one request with Connection: close.
sub one {
	my ($method, $path, @h) = @_;
	my $raw = http("$method $path HTTP/1.1\r\nHost: x\r\n"
		. join('', map { "$_\r\n" } @h) . "Connection: close\r\n\r\n");
	my @r = parse_responses($raw, head => $method eq 'HEAD');
	return ($r[0] // { status => 0, headers => {} }, $raw, scalar @r);
}

sub etag_of {
	my @st = stat $_[0] or die "stat $_[0]: $!";
	return sprintf('"%x-%x-%x.%x"', $st[1], $st[7], $st[9], 0);
}

# the whole file is about validators and ranges
MrhttpdTest->new()->has('validators', 'ranges');

my @servers;

# -------------------------------------------------------------------------
# GZIP_STATIC
SKIP: {
	my $tg = MrhttpdTest->new(conf => { GZIP_STATIC => 1, DEFAULT_INDEX => 'index.html' });
	push @servers, $tg;
	skip 'mrhttpd built without gzip-static', 1
		unless ($tg->version_info->{features}{'gzip-static'} // '') eq 'yes';
	my $plain = join('', map { "line $_ of a compressible page\n" } 1 .. 400);
	gzip(\$plain => \my $gz, -Level => 9, Minimal => 1) or die $GzipError;
	utime($MTIME, $MTIME, my $pf = $tg->write_file('page.txt', $plain));
	utime($GZ_MTIME, $GZ_MTIME, my $gf = $tg->write_file('page.txt.gz', $gz));
	$tg->run();
	my ($PE, $GE) = (etag_of($pf), etag_of($gf));
	my @AE = ('Accept-Encoding: gzip');

	my ($r) = one('GET', '/page.txt', @AE);
	is($r->{body}, $gz, 'gzip client: the .gz bytes');
	is($r->{headers}{etag}, $GE, 'gzip variant: the ETag of the .gz file');
	is($r->{headers}{'last-modified'}, $GZ_LM, 'gzip variant: the Last-Modified of the .gz file');
	($r) = one('GET', '/page.txt');
	is($r->{headers}{etag}, $PE, 'plain variant: its own ETag');
	is($r->{headers}{'last-modified'}, $LM, 'plain variant: its own Last-Modified');

	# 304s: per variant, and with Vary (RFC 9110 15.4.5: a 304 carries the
	# Vary a 200 would have carried)
	for my $c (['gzip client, gzip ETag', [@AE, "If-None-Match: $GE"], $GE],
		['plain client, plain ETag', ["If-None-Match: $PE"], $PE],
		['gzip client, If-Modified-Since the .gz date', [@AE, "If-Modified-Since: $GZ_LM"], $GE],
		['gzip client, HEAD', [@AE, "If-None-Match: $GE"], $GE, 'HEAD']) {
		my ($what, $h, $etag, $m) = @$c;
		my ($r, $raw, $n) = one($m // 'GET', '/page.txt', @$h);
		is($r->{status}, 304, "$what: 304");
		is($r->{headers}{etag}, $etag, "$what: the variant's ETag");
		like($r->{headers}{vary} // '', qr/\bAccept-Encoding\b/i,
			"$what: 304 has Vary: Accept-Encoding (RFC 9110 15.4.5)");
		is(length $raw, length($r->{raw_head} // ''), "$what: no body");
	}
	# the other variant's validator does not match this one
	($r) = one('GET', '/page.txt', @AE, "If-None-Match: $PE");
	is($r->{status}, 200, 'gzip client with the plain ETag: 200');
	is($r->{body}, $gz, 'gzip client with the plain ETag: the .gz');
	($r) = one('GET', '/page.txt', "If-None-Match: $GE");
	is($r->{body}, $plain, 'plain client with the gzip ETag: the plain file');
	($r) = one('GET', '/page.txt', "If-Modified-Since: $LM");
	is($r->{status}, 304, 'plain client, If-Modified-Since the plain date: 304');
	($r) = one('GET', '/page.txt', @AE, "If-Modified-Since: $LM");
	is($r->{status}, 200, 'gzip client, the plain date: 200 (the .gz is newer)');
	is($r->{body}, $gz, 'gzip client, the plain date: the .gz');
	($r) = one('GET', '/page.txt', @AE, "If-Match: $PE");
	is($r->{status}, 412, 'gzip client, If-Match with the plain ETag: 412');
	($r) = one('GET', '/page.txt', @AE, "If-Match: $GE");
	is($r->{status}, 200, 'gzip client, If-Match with the gzip ETag: 200');

	# ranges are of the selected representation: the gzip bytes
	($r) = one('GET', '/page.txt', @AE, 'Range: bytes=0-9');
	is($r->{status}, 206, 'gzip client, Range: 206');
	is($r->{body}, substr($gz, 0, 10), 'gzip client, Range: bytes of the .gz');
	is($r->{headers}{'content-range'}, 'bytes 0-9/' . length $gz,
		'gzip client, Range: Content-Range of the .gz');
	is($r->{headers}{'content-encoding'}, 'gzip', 'gzip client, Range: Content-Encoding');
	like($r->{headers}{vary} // '', qr/Accept-Encoding/i, 'gzip client, Range: Vary');
	($r) = one('GET', '/page.txt', 'Range: bytes=0-9');
	is($r->{body}, substr($plain, 0, 10), 'plain client, Range: bytes of the plain file');
	($r) = one('GET', '/page.txt', @AE, 'Range: bytes=' . length($gz) . '-');
	is($r->{status}, 416, 'gzip client, past the .gz: 416');
	is($r->{headers}{'content-range'}, 'bytes */' . length $gz,
		'gzip client, 416: the size of the .gz');
	# If-Range guards against splicing two variants
	($r) = one('GET', '/page.txt', @AE, 'Range: bytes=100-', "If-Range: $PE");
	is($r->{status}, 200, 'gzip client, If-Range with the plain ETag: 200');
	is($r->{body}, $gz, 'gzip client, If-Range with the plain ETag: the whole .gz');
	($r) = one('GET', '/page.txt', @AE, 'Range: bytes=100-', "If-Range: $GE");
	is($r->{status}, 206, 'gzip client, If-Range with the gzip ETag: 206');
	is($r->{body}, substr($gz, 100), 'gzip client, If-Range: the rest of the .gz');
	($r) = one('GET', '/page.txt', 'Range: bytes=100-', "If-Range: $GE");
	is($r->{body}, $plain, 'plain client, If-Range with the gzip ETag: the whole plain file');
	($r) = one('GET', '/page.txt', @AE, 'Range: bytes=100-', "If-Range: $LM");
	is($r->{status}, 200, 'gzip client, If-Range with the plain date: 200');

	# a changed .gz: a new ETag on a new connection
	utime($GZ_MTIME + 5, $GZ_MTIME + 5, $gf);
	($r) = one('GET', '/page.txt', @AE, "If-None-Match: $GE");
	is($r->{status}, 200, 'touched .gz: the old gzip ETag gets 200');
	isnt($r->{headers}{etag}, $GE, 'touched .gz: new ETag');
	$GE = $r->{headers}{etag};

	SKIP: {
		my $curl = MrhttpdTest::find_prog('curl');
		skip 'curl not installed', 3 unless $curl;
		my $out = $tg->testdir . '/c.out';
		my $url = 'http://127.0.0.1:' . $tg->port . '/page.txt';
		my ($rc, $code) = run_cmd($curl, '-s', '--compressed', '--max-time', '10',
			'-o', $out, '-w', '%{http_code} %{size_download}', $url);
		is($code, '200 ' . length($gz), 'curl --compressed: the .gz went over the wire');
		my $got = do { local $/; open my $f, '<:raw', $out; <$f> } // '';
		ok($got eq $plain, 'curl --compressed: decodes to the plain file');
		($rc, $code) = run_cmd($curl, '-s', '--compressed', '--max-time', '10',
			'-o', $out, '-w', '%{http_code}', '-H', "If-None-Match: $GE", $url);
		is($code, '304', 'curl --compressed with the gzip ETag: 304');
	}
}

# -------------------------------------------------------------------------
# AUTH_HEADER: no 304, 412, 206 or 416 without the credentials (the conf
# of 43-auth-prefix-gzip.t, to share its build).
SKIP: {
	my $auth = 'Basic dGVzdDp0ZXN0';
	my $ta = MrhttpdTest->new(conf => { AUTH_HEADER => $auth,
		DEFAULT_INDEX => 'index.html' });
	push @servers, $ta;
	skip 'mrhttpd built without auth', 1
		unless ($ta->version_info->{features}{auth} // '') eq 'yes';
	utime($MTIME, $MTIME, my $f = $ta->write_file('s.txt', '0123456789'));
	$ta->run();
	my $E = etag_of($f);
	for my $c (['If-None-Match: *'], ["If-None-Match: $E"],
		["If-Modified-Since: $LM"], ['If-Match: "other"'],
		['If-Unmodified-Since: Sat, 05 Nov 1994 00:00:00 GMT'],
		['Range: bytes=0-4'], ['Range: bytes=50-'],
		['Range: bytes=0-4', "If-Range: $E"]) {
		my $what = join(', ', @$c);
		my ($r) = one('GET', '/s.txt', @$c);
		is($r->{status}, 401, "no credentials, $what: 401");
		ok(!defined $r->{headers}{etag} && !defined $r->{headers}{'last-modified'},
			"no credentials, $what: no validators leak");
		unlike($r->{body} // '', qr/01234/, "no credentials, $what: no content");
		my ($ok) = one('GET', '/s.txt', @$c, "Authorization: $auth");
		like($ok->{status}, qr/^(?:304|412|206|416)$/,
			"with credentials, $what: $ok->{status}");
	}
	my ($r) = one('HEAD', '/s.txt', "If-None-Match: $E");
	is($r->{status}, 401, 'HEAD, no credentials, If-None-Match: 401');
	# on one connection: 401, then 304 and 206 with credentials
	my $s = http_connect();
	http_send($s, "GET /s.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: $E\r\n\r\n"
		. "GET /s.txt HTTP/1.1\r\nHost: x\r\nAuthorization: $auth\r\nIf-None-Match: $E\r\n\r\n"
		. "GET /s.txt HTTP/1.1\r\nHost: x\r\nAuthorization: $auth\r\nRange: bytes=2-3\r\n\r\n");
	my @st = map { my $x = read_response($s); $x ? "$x->{status}:" . ($x->{body} // '') : 'none' }
		1 .. 3;
	like($st[0], qr/^401:/, 'pipelined: 401 first');
	is($st[1], '304:', 'pipelined: then 304 with credentials');
	is($st[2], '206:23', 'pipelined: then 206 with credentials');
	$ta->stop();
}

# -------------------------------------------------------------------------
# PATH_PREFIX: validators and ranges below it; nothing outside it (the conf
# of 43-auth-prefix-gzip.t).
SKIP: {
	my $tp = MrhttpdTest->new(conf => { PATH_PREFIX => '/app', DEFAULT_INDEX => 'index.html' });
	push @servers, $tp;
	skip 'mrhttpd built without path-prefix', 1
		unless ($tp->version_info->{features}{'path-prefix'} // '') eq 'yes';
	utime($MTIME, $MTIME, my $f = $tp->write_file('s.txt', '0123456789'));
	$tp->run();
	my $E = etag_of($f);
	my ($r) = one('GET', '/app/s.txt');
	is($r->{headers}{etag}, $E, 'PATH_PREFIX: ETag of the file');
	($r) = one('GET', '/app/s.txt', "If-None-Match: $E");
	is($r->{status}, 304, 'PATH_PREFIX: 304');
	($r) = one('GET', '/app/s.txt', 'Range: bytes=-3');
	is($r->{body}, '789', 'PATH_PREFIX: 206 body');
	is($r->{headers}{'content-range'}, 'bytes 7-9/10', 'PATH_PREFIX: Content-Range');
	($r) = one('GET', '/s.txt', "If-None-Match: $E");
	is($r->{status}, 404, 'outside PATH_PREFIX, matching If-None-Match: 404');
	($r) = one('GET', '/s.txt', 'Range: bytes=0-1');
	is($r->{status}, 404, 'outside PATH_PREFIX, Range: 404');
	($r) = one('GET', 'http://x/app/s.txt', 'Range: bytes=0-1');
	is($r->{body}, '01', 'PATH_PREFIX, absolute-form with a Range: 206');
	$tp->stop();
}

$servers[0]->done_testing();
