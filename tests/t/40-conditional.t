#!/usr/bin/perl
# Validators and conditional requests (RFC 9110 8.8 and 13): the strong
# ETag and Last-Modified on every file reply, If-None-Match, If-Modified-
# Since, If-Match and If-Unmodified-Since in the order of 13.2.2, the three
# HTTP-date forms, a future mtime clamped to Date, the file cache seeing a
# changed file, keep-alive and pipelining across 304 and 412, the cached
# Date; then curl -z, curl --etag-compare and, when Debian's chromium is
# installed, a browser reload.

use strict;
use warnings;

use Time::Local qw(timegm);
use Test::More;
use Time::HiRes ();
use MrhttpdTest qw(:DEFAULT http_date);

my $t = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html' })
	->has('validators');

my $MTIME = 784111777;				# Sun, 06 Nov 1994 08:49:37 GMT
my $LM = 'Sun, 06 Nov 1994 08:49:37 GMT';
my $txt = "0123456789abcdefghij\n";
my $afile = $t->write_file('a.txt', $txt);
utime($MTIME, $MTIME, $afile);
# a fractional mtime: the ETag carries its nanoseconds
my $frac = $t->write_file('frac.txt', "frac\n");
Time::HiRes::utime($MTIME + 0.5, $MTIME + 0.5, $frac);
my $future_mtime = time + 30 * 86400;
my $future = $t->write_file('future.txt', "from the future\n");
utime($future_mtime, $future_mtime, $future);
my $change = $t->write_file('change.txt', "version one\n");
utime($MTIME, $MTIME, $change);
$t->write_file('index.html', "<!DOCTYPE html>\n<title>t</title><p>index</p>\n");
$t->run();

my $date_re = qr/^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/;
my %MON = (Jan => 0, Feb => 1, Mar => 2, Apr => 3, May => 4, Jun => 5,
	Jul => 6, Aug => 7, Sep => 8, Oct => 9, Nov => 10, Dec => 11);

# parse_date("Sun, 06 Nov 1994 08:49:37 GMT"): seconds since the epoch.
sub parse_date {
	my ($d) = @_;
	return undef unless defined $d && $d =~
		/^\w{3}, (\d\d) (\w{3}) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/;
	my ($day, $mon, $y, $h, $m, $s) = ($1, $MON{$2}, $3, $4, $5, $6);
	return timegm($s, $m, $h, $day, $mon, $y);
}

# http_date(TIME): an IMF-fixdate, without the locale's help.

# The ETag the server documents: "<inode>-<size>-<mtime sec>.<nsec>" in hex.
sub expected_etag {
	my ($file, $nsec) = @_;
	my @st = stat $file or die "stat $file: $!";
	return sprintf('"%x-%x-%x.%x"', $st[1], $st[7], $st[9], $nsec // 0);
}

# one($method, $path, @header_lines): one request on its own connection
# (Connection: close); returns (first response, raw bytes, number of
# responses parsed).
sub one {
	my ($method, $path, @h) = @_;
	my $req = "$method $path HTTP/1.1\r\nHost: x\r\n"
		. join('', map { "$_\r\n" } @h) . "Connection: close\r\n\r\n";
	my $raw = http($req);
	my @r = parse_responses($raw, head => $method eq 'HEAD');
	return ($r[0] // { status => 0, headers => {} }, $raw, scalar @r);
}

my $ETAG = expected_etag($afile);

# -------------------------------------------------------------------------
# The validators on every file reply.
{
	my ($r) = one('GET', '/a.txt');
	is($r->{status}, 200, 'plain GET: 200');
	is($r->{headers}{etag}, $ETAG, 'ETag is "ino-size-mtime.nsec" in hex');
	unlike($r->{headers}{etag} // 'W/', qr{^W/}, 'ETag is strong');
	like($r->{headers}{etag} // '', qr/^"[\x21\x23-\x7e]+"$/,
		'ETag is a valid entity-tag (RFC 9110 8.8.3)');
	is($r->{headers}{'last-modified'}, $LM, 'Last-Modified is the mtime');
	is($r->{headers}{'accept-ranges'}, 'bytes', 'Accept-Ranges: bytes');
	is($r->{header_count}{etag}, 1, 'exactly one ETag');
	is($r->{header_count}{'last-modified'}, 1, 'exactly one Last-Modified');
	is($r->{body}, $txt, 'plain GET: body');

	my ($h) = one('HEAD', '/a.txt');
	is($h->{headers}{etag}, $ETAG, 'HEAD: same ETag');
	is($h->{headers}{'last-modified'}, $LM, 'HEAD: same Last-Modified');
	is($h->{headers}{'accept-ranges'}, 'bytes', 'HEAD: Accept-Ranges');

	# a second connection may land on another worker thread and cache
	my %seen;
	$seen{ (one('GET', '/a.txt'))[0]{headers}{etag} // '' }++ for 1 .. 6;
	is_deeply([keys %seen], [$ETAG], 'ETag stable across connections');

	my ($f) = one('GET', '/frac.txt');
	is($f->{headers}{etag}, expected_etag($frac, 500_000_000),
		'ETag carries the mtime nanoseconds');
	is($f->{headers}{'last-modified'}, $LM, 'Last-Modified drops the fraction');

	my ($i) = one('GET', '/');
	like($i->{headers}{etag} // '', qr/^"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+\.[0-9a-f]+"$/,
		'DEFAULT_INDEX reply has an ETag too');
	is($i->{headers}{etag}, (one('GET', '/index.html'))[0]{headers}{etag},
		'/ and /index.html have the same ETag');
}

# A Last-Modified in the future is clamped to Date (RFC 9110 8.8.2.1).
{
	my ($r) = one('GET', '/future.txt');
	my $lm = parse_date($r->{headers}{'last-modified'});
	my $date = parse_date($r->{headers}{date});
	ok(defined $lm && defined $date && $lm <= $date,
		'future mtime: Last-Modified is not after Date')
		or diag("Date $r->{headers}{date}, Last-Modified "
			. ($r->{headers}{'last-modified'} // 'none'));
	ok(defined $lm && abs($lm - time) < 5, 'future mtime: Last-Modified is now');
	is($r->{headers}{etag}, expected_etag($future),
		'future mtime: the ETag still has the real mtime');

	# with the clamped date as If-Modified-Since: not modified since
	my $s = http_connect();
	http_send($s, "GET /future.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r1 = read_response($s);
	http_send($s, "GET /future.txt HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: "
		. ($r1->{headers}{'last-modified'} // '') . "\r\n\r\n");
	my $r2 = read_response($s);
	is($r2 && $r2->{status}, 304,
		'future mtime: If-Modified-Since with the clamped Last-Modified: 304');
}

# The Date header: IMF-fixdate, the right time, and it moves on.
{
	my $s = http_connect();
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r1 = read_response($s);
	like($r1->{headers}{date} // '', $date_re, 'Date is an IMF-fixdate');
	my $d1 = parse_date($r1->{headers}{date});
	ok(defined $d1 && abs($d1 - time) <= 2, 'Date is the current time')
		or diag($r1->{headers}{date});
	Time::HiRes::sleep(1.2);
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r2 = read_response($s);
	my $d2 = parse_date($r2 && $r2->{headers}{date});
	ok(defined $d2 && defined $d1 && $d2 > $d1,
		'Date moves on between requests on one connection (cached per second)');
	is(scalar(() = $r2->{raw_head} =~ /^Date:/mg), 1, 'exactly one Date');
}

# -------------------------------------------------------------------------
# 304: exact head, no body, the fields a 200 would have had (RFC 9110 15.4.5).
sub check_304 {
	my ($what, $method, @h) = @_;
	my ($r, $raw, $n) = one($method, '/a.txt', @h);
	is($r->{status}, 304, "$what: 304");
	like($raw, qr{^HTTP/1\.1 304 Not Modified\r\n}, "$what: status line");
	is($n, 1, "$what: a single response");
	is(length $raw, length($r->{raw_head} // ''), "$what: nothing after the head");
	is($r->{headers}{etag}, $ETAG, "$what: ETag");
	is($r->{headers}{'last-modified'}, $LM, "$what: Last-Modified");
	like($r->{headers}{date} // '', $date_re, "$what: Date");
	ok(!defined $r->{headers}{'content-length'}
		|| $r->{headers}{'content-length'} == length $txt,
		"$what: no Content-Length other than the 200's");
	ok(!defined $r->{headers}{'transfer-encoding'}, "$what: no Transfer-Encoding");
	ok(!defined $r->{headers}{'content-range'}, "$what: no Content-Range");
}

sub status_of {
	my ($method, $path, @h) = @_;
	return (one($method, $path, @h))[0]{status};
}

check_304('If-None-Match with the ETag', 'GET', "If-None-Match: $ETAG");
check_304('HEAD with If-None-Match', 'HEAD', "If-None-Match: $ETAG");
check_304('If-None-Match with W/ (weak comparison)', 'GET', "If-None-Match: W/$ETAG");
check_304('If-None-Match list', 'GET', qq{If-None-Match: "x", W/"y",$ETAG , "z"});
check_304('If-None-Match: *', 'GET', 'If-None-Match: *');
check_304('If-Modified-Since = Last-Modified', 'GET', "If-Modified-Since: $LM");
check_304('HEAD with If-Modified-Since', 'HEAD', "If-Modified-Since: $LM");
check_304('If-Modified-Since later', 'GET', 'If-Modified-Since: ' . http_date($MTIME + 86400));
check_304('If-Modified-Since in RFC 850 form', 'GET',
	'If-Modified-Since: Sunday, 06-Nov-94 08:49:37 GMT');
check_304('If-Modified-Since in asctime form', 'GET',
	'If-Modified-Since: Sun Nov  6 08:49:37 1994');
check_304('If-None-Match takes precedence over a failing If-Modified-Since', 'GET',
	"If-None-Match: $ETAG", 'If-Modified-Since: ' . http_date($MTIME - 86400));
check_304('If-Match and If-None-Match both match', 'GET',
	"If-Match: $ETAG", "If-None-Match: $ETAG");

# RFC 850 two-digit years (RFC 9110 5.6.7): "26" is 2026, after the mtime.
is(status_of('GET', '/a.txt', 'If-Modified-Since: Sunday, 01-Nov-26 00:00:00 GMT'),
	304, 'RFC 850 year 26 read as 2026');

# Conditions that do not hold: the whole file.
for my $c (
	['If-None-Match with another tag', qq{If-None-Match: "other"}],
	['If-None-Match with a changed tag', 'If-None-Match: '
		. expected_etag($afile, 1)],
	['If-None-Match with the tag unquoted', 'If-None-Match: ' . substr($ETAG, 1, -1)],
	['If-Modified-Since a second early', 'If-Modified-Since: ' . http_date($MTIME - 1)],
	['If-Modified-Since RFC 850 a second early',
		'If-Modified-Since: Sunday, 06-Nov-94 08:49:36 GMT'],
	['If-Modified-Since asctime a second early',
		'If-Modified-Since: Sun Nov  6 08:49:36 1994'],
	['invalid If-Modified-Since (ignored)', 'If-Modified-Since: yesterday'],
	['If-Modified-Since with a lower-case month (invalid, ignored)',
		'If-Modified-Since: Sun, 06 nov 1994 08:49:37 GMT'],
	['If-Modified-Since with two dates (invalid, ignored)',
		"If-Modified-Since: $LM, $LM"],
	['If-Modified-Since with hour 25 (invalid, ignored)',
		'If-Modified-Since: Sun, 06 Nov 1994 25:49:37 GMT'],
	['If-None-Match fails, If-Modified-Since would match (ignored)',
		qq{If-None-Match: "other"}, "If-Modified-Since: $LM"],
	['If-Match matches, nothing else', "If-Match: $ETAG"],
	['If-Match: *', 'If-Match: *'],
	['If-Match list with the tag', qq{If-Match: "x", $ETAG}],
	['If-Unmodified-Since = Last-Modified', "If-Unmodified-Since: $LM"],
	['If-Unmodified-Since later', 'If-Unmodified-Since: ' . http_date(time)],
	['invalid If-Unmodified-Since (ignored)', 'If-Unmodified-Since: soon'],
	['If-Match matches: If-Unmodified-Since ignored',
		"If-Match: $ETAG", 'If-Unmodified-Since: ' . http_date($MTIME - 86400)],
) {
	my ($what, @h) = @$c;
	my ($r) = one('GET', '/a.txt', @h);
	is($r->{status}, 200, "$what: 200");
	is($r->{body}, $txt, "$what: whole body");
	is($r->{headers}{etag}, $ETAG, "$what: ETag");
}

# 412 (RFC 9110 13.1.1, 13.1.4, 15.5.13).
for my $c (
	['If-Match with another tag', qq{If-Match: "other"}],
	['If-Match with the weak tag (strong comparison)', "If-Match: W/$ETAG"],
	['If-Match list without the tag', qq{If-Match: "x", "y"}],
	['If-Unmodified-Since before the mtime',
		'If-Unmodified-Since: ' . http_date($MTIME - 1)],
	['If-Unmodified-Since in RFC 850 form, before',
		'If-Unmodified-Since: Sunday, 06-Nov-94 08:49:36 GMT'],
	['If-Match fails, If-None-Match would give 304 (If-Match first)',
		qq{If-Match: "other"}, "If-None-Match: $ETAG"],
	['If-Unmodified-Since fails, If-None-Match would give 304',
		'If-Unmodified-Since: ' . http_date($MTIME - 1), "If-None-Match: $ETAG"],
	['If-Match fails, If-Unmodified-Since would pass',
		qq{If-Match: "other"}, "If-Unmodified-Since: $LM"],
	['If-Match fails with a Range', qq{If-Match: "other"}, 'Range: bytes=0-1'],
) {
	my ($what, @h) = @$c;
	my ($r, $raw, $n) = one('GET', '/a.txt', @h);
	is($r->{status}, 412, "$what: 412");
	like($raw, qr{^HTTP/1\.1 412 Precondition Failed\r\n}, "$what: status line");
	is($r->{headers}{'content-length'}, length($r->{body} // ''),
		"$what: Content-Length matches the body");
	unlike($r->{body} // '', qr/0123456789/, "$what: not the file");
	is($n, 1, "$what: nothing after the body");
}
{
	my ($r, $raw, $n) = one('HEAD', '/a.txt', qq{If-Match: "other"});
	is($r->{status}, 412, 'HEAD with a failing If-Match: 412');
	is(length $raw, length($r->{raw_head} // ''), 'HEAD 412: no body');
}

# A list field may come in several field lines; they mean the one list,
# in order (RFC 9110 5.3).
is(status_of('GET', '/a.txt', "If-Match: $ETAG", 'If-Match: "x"'), 200,
	'If-Match over two field lines, the tag in the first: 200');
is(status_of('GET', '/a.txt', "If-None-Match: $ETAG", 'If-None-Match: "x"'), 304,
	'If-None-Match over two field lines, the tag in the first: 304');
is(status_of('GET', '/a.txt', 'If-Match: "x"', "If-Match: $ETAG"), 200,
	'If-Match over two field lines, the tag in the last: 200');
is(status_of('GET', '/a.txt', 'If-None-Match: "x"', "If-None-Match: $ETAG"), 304,
	'If-None-Match over two field lines, the tag in the last: 304');

# Preconditions only apply to what exists (RFC 9110 13.2.1).
is(status_of('GET', '/missing.txt', "If-Match: $ETAG"), 404,
	'If-Match on a missing file: 404');
is(status_of('GET', '/missing.txt', 'If-Match: *'), 404, 'If-Match: * on a missing file: 404');
is(status_of('GET', '/missing.txt', 'If-None-Match: *'), 404,
	'If-None-Match: * on a missing file: 404');
is(status_of('GET', '/missing.txt', "If-Modified-Since: $LM"), 404,
	'If-Modified-Since on a missing file: 404');

# -------------------------------------------------------------------------
# Keep-alive goes on after 304 and 412; pipelined conditional requests are
# answered in order with exact framing.
{
	my $s = http_connect();
	for my $i (1 .. 3) {
		http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: $ETAG\r\n\r\n");
		my $r = read_response($s);
		is($r && $r->{status}, 304, "keep-alive: 304 #$i");
		http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\nIf-Match: \"no\"\r\n\r\n");
		$r = read_response($s);
		is($r && $r->{status}, 412, "keep-alive: 412 #$i");
		http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n");
		$r = read_response($s);
		is($r && $r->{body}, $txt, "keep-alive: 200 after 304 and 412 #$i");
	}
	ok(!defined wait_closed($s, 0.3), 'keep-alive: connection still open');

	# HTTP/1.0 with keep-alive
	$s = http_connect();
	http_send($s, "GET /a.txt HTTP/1.0\r\nConnection: keep-alive\r\n"
		. "If-Modified-Since: $LM\r\n\r\n");
	my $r = read_response($s);
	is($r && $r->{status}, 304, 'HTTP/1.0 keep-alive: 304');
	like($r ? $r->{headers}{connection} // '' : '', qr/keep-alive/i,
		'HTTP/1.0 keep-alive: Connection: keep-alive on the 304');
	http_send($s, "GET /a.txt HTTP/1.0\r\n\r\n");
	$r = read_response($s);
	is($r && $r->{body}, $txt, 'HTTP/1.0 keep-alive: next request after the 304');
}
{
	my @reqs = (
		["GET", "If-None-Match: $ETAG", 304, ''],
		["GET", '', 200, $txt],
		["HEAD", "If-Modified-Since: $LM", 304, ''],
		["GET", 'If-Match: "x"', 412, undef],
		["HEAD", '', 200, ''],
		["GET", "If-Modified-Since: $LM", 304, ''],
		["GET", 'If-Unmodified-Since: ' . http_date($MTIME - 5), 412, undef],
		["GET", "If-None-Match: \"x\"\r\nIf-Modified-Since: $LM", 200, $txt],
	);
	my $s = http_connect();
	http_send($s, join '', map {
		"$_->[0] /a.txt HTTP/1.1\r\nHost: x\r\n"
			. (length $_->[1] ? "$_->[1]\r\n" : '') . "\r\n"
	} @reqs);
	my $i = 0;
	for my $q (@reqs) {
		$i++;
		my $r = read_response($s, head => $q->[0] eq 'HEAD');
		is($r && $r->{status}, $q->[2], "pipelined #$i ($q->[0]): $q->[2]");
		is($r && $r->{body}, $q->[3], "pipelined #$i: body") if defined $q->[3];
	}
	http_send($s, "GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	my $raw = http(undef, sock => $s);
	my @r = parse_responses($raw);
	is(scalar @r, 1, 'pipelined: exactly one more response, no stray bytes');
	is($r[0] && $r[0]->{body}, $txt, 'pipelined: last response intact');
}

# -------------------------------------------------------------------------
# A changed file: new validators.  A new connection sees the change at once;
# a kept-alive one within a second (the per-thread cache revalidates).
{
	my ($r) = one('GET', '/change.txt');
	my $old = $r->{headers}{etag};
	is($old, expected_etag($change), 'change.txt: ETag before');

	my $s = http_connect();
	http_send($s, "GET /change.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: $old\r\n\r\n");
	my $k = read_response($s);
	is($k && $k->{status}, 304, 'kept-alive: 304 before the change');

	open my $fh, '>', $change or die;
	print $fh "version two, longer\n";
	close $fh;
	utime($MTIME + 3600, $MTIME + 3600, $change);
	my $new = expected_etag($change);
	isnt($new, $old, 'the file changed: the expected ETag differs');

	($r) = one('GET', '/change.txt', "If-None-Match: $old");
	is($r->{status}, 200, 'changed file, old ETag, new connection: 200');
	is($r->{body}, "version two, longer\n", 'changed file: new body');
	is($r->{headers}{etag}, $new, 'changed file: new ETag');
	is($r->{headers}{'last-modified'}, http_date($MTIME + 3600), 'changed file: new Last-Modified');
	is(status_of('GET', '/change.txt', "If-Modified-Since: $LM"), 200,
		'changed file: If-Modified-Since the old date: 200');
	is(status_of('GET', '/change.txt', "If-None-Match: $new"), 304,
		'changed file: new ETag: 304');
	is(status_of('GET', '/change.txt', "If-Match: $old"), 412,
		'changed file: If-Match with the old ETag: 412');

	Time::HiRes::sleep(1.2);
	http_send($s, "GET /change.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: $old\r\n\r\n");
	$k = read_response($s);
	is($k && $k->{status}, 200, 'kept-alive, a second later: old ETag gets 200');
	is($k && $k->{headers}{etag}, $new, 'kept-alive, a second later: new ETag');
	is($k && $k->{body}, "version two, longer\n", 'kept-alive, a second later: new body');

	# touched only (same size, same content, new mtime): a new ETag too
	utime($MTIME + 7200, $MTIME + 7200, $change);
	($r) = one('GET', '/change.txt', "If-None-Match: $new");
	is($r->{status}, 200, 'touched file: previous ETag gets 200');
	isnt($r->{headers}{etag}, $new, 'touched file: ETag changed with the mtime');
}

# -------------------------------------------------------------------------
# curl: -z (If-Modified-Since, and If-Unmodified-Since with "-"),
# --etag-save / --etag-compare.
SKIP: {
	my $curl = MrhttpdTest::find_prog('curl');
	skip 'curl not installed (apt-get install curl)', 14 unless $curl;
	my $url = 'http://127.0.0.1:' . $t->port;
	my $dir = $t->testdir;
	my $srv = $t->write_file('z.txt', "zzz\n");
	utime($MTIME, $MTIME, $srv);
	my $ref = "$dir/z.ref";
	open my $fh, '>', $ref or die;
	close $fh;
	utime($MTIME, $MTIME, $ref);

	my $curl_code = sub {
		my ($out, @args) = @_;
		unlink $out;
		my ($rc, $code) = run_cmd($curl, '-s', '--max-time', '20', '-o', $out,
			'-w', '%{http_code}', @args);
		my $body = -e $out ? do { local $/; open my $f, '<', $out; <$f> } : '';
		return ($code, $body // '', $rc);
	};

	my ($code, $body) = $curl_code->("$dir/z1", '-z', $ref, "$url/z.txt");
	is($code, '304', 'curl -z FILE with the same mtime: 304');
	is($body, '', 'curl -z: nothing downloaded');
	($code) = $curl_code->("$dir/z1", '-z', $LM, "$url/z.txt");
	is($code, '304', 'curl -z DATE: 304');

	# the file changes after the reference date: 200
	utime($MTIME + 86400, $MTIME + 86400, $srv);
	($code, $body) = $curl_code->("$dir/z2", '-z', $ref, "$url/z.txt");
	is($code, '200', 'curl -z after the server file was modified: 200');
	is($body, "zzz\n", 'curl -z: body downloaded');

	# the reference moves past it again: 304
	utime($MTIME + 2 * 86400, $MTIME + 2 * 86400, $ref);
	($code) = $curl_code->("$dir/z3", '-z', $ref, "$url/z.txt");
	is($code, '304', 'curl -z with a newer reference: 304');

	# -z -FILE: If-Unmodified-Since
	($code, $body) = $curl_code->("$dir/z4", '-z', "-$ref", "$url/z.txt");
	is($code, '200', 'curl -z -FILE, not modified since: 200');
	is($body, "zzz\n", 'curl -z -FILE: body');
	utime($MTIME, $MTIME, $ref);
	($code, $body) = $curl_code->("$dir/z5", '-z', "-$ref", "$url/z.txt");
	is($code, '412', 'curl -z -FILE, modified since: 412');

	# --etag-save, then --etag-compare
	my $etagf = "$dir/etag.txt";
	($code, $body) = $curl_code->("$dir/e1", '--etag-save', $etagf, "$url/z.txt");
	is($code, '200', 'curl --etag-save: 200');
	my $saved = do { local $/; open my $f, '<', $etagf; <$f> } // '';
	$saved =~ s/\s+\z//;
	is($saved, expected_etag($srv), 'curl --etag-save: saved the ETag');
	($code, $body) = $curl_code->("$dir/e2", '--etag-compare', $etagf, "$url/z.txt");
	is($code, '304', 'curl --etag-compare: 304');
	is($body, '', 'curl --etag-compare: nothing downloaded');
	utime($MTIME + 5, $MTIME + 5, $srv);
	($code) = $curl_code->("$dir/e3", '--etag-compare', $etagf, "$url/z.txt");
	is($code, '200', 'curl --etag-compare after a change: 200');
}

# -------------------------------------------------------------------------
# A browser reload revalidates and gets a 304 (only with Debian's chromium).
SKIP: {
	my $chromium = MrhttpdTest::find_prog('chromium');
	skip "chromium is not installed (Debian's chromium package; not installed "
		. 'just for this test)', 3 unless $chromium;
	$t->write_file('reload.html', <<'HTML');
<!DOCTYPE html>
<html><head><title>first</title>
<script>
if (sessionStorage.getItem('reloaded') === null) {
	sessionStorage.setItem('reloaded', '1');
	location.reload();
} else {
	document.title = 'reloaded';
}
</script></head><body><p>reload test</p></body></html>
HTML
	utime($MTIME, $MTIME, $t->htdocs . '/reload.html');
	my $profile = $t->testdir . '/chromium-profile';
	my ($rc, $out) = run_cmd('timeout', '60', $chromium, '--headless',
		'--no-sandbox', '--disable-gpu', '--no-first-run',
		"--user-data-dir=$profile", '--virtual-time-budget=5000',
		'--dump-dom', 'http://127.0.0.1:' . $t->port . '/reload.html');
	my @st;
	for (1 .. 50) {		# the log is written after each reply
		@st = $t->log =~ m{"GET /reload\.html HTTP/1\.1" (\d{3}) }g;
		last if @st >= 2;
		Time::HiRes::sleep(0.1);
	}
	skip "chromium did not reload the page (exit $rc, requests: @st): "
		. substr($out, 0, 300), 3 unless @st >= 2;
	is($st[0], 200, 'chromium: first load 200');
	is($st[-1], 304, 'chromium: reload revalidated with a 304')
		or diag("statuses: @st");
	like($out, qr{<title>reloaded</title>}, 'chromium: the reloaded page rendered from its cache')
		or diag(substr($out, 0, 500));
}

# Dates past 2038, as every file's will be then: with a 32-bit time_t
# (glibc on ARM and MIPS) fstat failed with EOVERFLOW, so such a file was
# a 500 and left out of listings; and a date in a field far from 1970
# wrapped to another (helper-67)
{
	my $y2040 = timegm(0, 0, 12, 1, 5, 2040);
	my $f = $t->write_file('y2040.txt', "late\n");
	utime($y2040, $y2040, $f);
	my ($r) = one('GET', '/y2040.txt');
	ok($r->{status} == 200 && $r->{body} eq "late\n", 'a file dated 2040: 200');
	# Last-Modified is never after the Date (RFC 9110 8.8.2.1)
	is((one('GET', '/y2040.txt', "If-Modified-Since: $r->{headers}{'last-modified'}"))[0]{status},
		304, '... If-Modified-Since its Last-Modified: 304');
	for (['If-Modified-Since: Sun, 01 Nov 0252 12:00:00 GMT', 200],
	    ['If-Unmodified-Since: Sun, 01 Mar 3240 12:00:00 GMT', 200],
	    ['If-Unmodified-Since: Mon, 01 Jan 1900 00:00:00 GMT', 412]) {
		is((one('GET', '/a.txt', $_->[0]))[0]{status}, $_->[1],
			"a.txt (1994), $_->[0]: $_->[1]");
	}
}

ok($t->alive, 'server still running');
$t->done_testing();
