#!/usr/bin/perl
# Range requests (RFC 9110 14): single ranges of every form get 206 with
# Content-Range; unsatisfiable ones 416 with "bytes */size"; huge numbers
# saturate instead of overflowing; invalid syntax and several ranges get
# the whole file (the documented choice: no multipart/byteranges); Range
# is for GET only; If-Range with an entity-tag or a date; preconditions
# before Range; bodies from an offset with and without sendfile; exact
# framing on kept-alive and pipelined connections.  Then real clients:
# curl -r, curl -C - (after a partial file and after a real interruption)
# and wget -c.

use strict;
use warnings;

use Digest::MD5 qw(md5 md5_hex);
use IO::Select;
use IO::Socket::IP;
use POSIX ();
use Test::More;
use Time::HiRes ();
use MrhttpdTest qw(:DEFAULT slurp spew);
use MrhttpdH2;

# The same conf as 10-static.t, so the builds are shared.
my $t = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html' })
	->has('ranges', 'validators');

my $MTIME = 784111777;				# Sun, 06 Nov 1994 08:49:37 GMT
my $LM = 'Sun, 06 Nov 1994 08:49:37 GMT';
my $small = '0123456789abcdefghij';		# 20 bytes
my $sfile = $t->write_file('s.txt', $small);
utime($MTIME, $MTIME, $sfile);
$t->write_file('empty.txt', '');
my $BIG = 5 * 1024 * 1024 + 123;		# not a multiple of anything
my $big = big_data($BIG);
my $bfile = $t->write_file('big.bin', $big);
$t->run();

sub etag_of {
	my @st = stat $_[0] or die "stat $_[0]: $!";
	return sprintf('"%x-%x-%x.%x"', $st[1], $st[7], $st[9], 0);
}
my $SETAG = etag_of($sfile);

# one($method, $path, @header_lines): one request with Connection: close;
# returns (first response, raw bytes, number of responses).
sub one {
	my ($method, $path, @h) = @_;
	my $req = "$method $path HTTP/1.1\r\nHost: x\r\n"
		. join('', map { "$_\r\n" } @h) . "Connection: close\r\n\r\n";
	my $raw = http($req, timeout => 10);
	my @r = parse_responses($raw, head => $method eq 'HEAD');
	return ($r[0] // { status => 0, headers => {} }, $raw, scalar @r);
}

# check_206($what, $r, $data, $off, $len): a 206 for $data[$off, $len].
sub check_206 {
	my ($what, $r, $data, $off, $len) = @_;
	my $total = length $data;
	is($r->{status}, 206, "$what: 206");
	like($r->{raw_head} // '', qr{^HTTP/1\.1 206 Partial Content\r\n}, "$what: status line");
	is($r->{headers}{'content-range'},
		sprintf('bytes %d-%d/%d', $off, $off + $len - 1, $total),
		"$what: Content-Range");
	is($r->{headers}{'content-length'}, $len, "$what: Content-Length");
	my $want = substr($data, $off, $len);
	if ($len > 100) {
		ok(defined $r->{body} && length $r->{body} == $len
			&& md5($r->{body}) eq md5($want), "$what: body from offset $off")
			or diag('got ' . length($r->{body} // '') . " bytes");
	} else {
		is($r->{body}, $want, "$what: body");
	}
	is($r->{headers}{'accept-ranges'}, 'bytes', "$what: Accept-Ranges");
	like($r->{headers}{etag} // '', qr/^"[^"]+"$/, "$what: ETag");
	like($r->{headers}{'last-modified'} // '', qr/ GMT$/, "$what: Last-Modified");
	ok($r->{headers}{'content-type'}, "$what: Content-Type");
	is($r->{header_count}{'content-range'}, 1, "$what: one Content-Range");
}

sub check_416 {
	my ($what, $r, $n, $size) = @_;
	is($r->{status}, 416, "$what: 416");
	like($r->{raw_head} // '', qr{^HTTP/1\.1 416 Range Not Satisfiable\r\n},
		"$what: status line");
	is($r->{headers}{'content-range'}, "bytes */$size", "$what: Content-Range: bytes */$size");
	is($r->{headers}{'content-length'}, length($r->{body} // ''),
		"$what: Content-Length matches the body");
	is($n, 1, "$what: nothing after the body");
}

sub check_whole {
	my ($what, $r, $data) = @_;
	is($r->{status}, 200, "$what: 200");
	ok(!defined $r->{headers}{'content-range'}, "$what: no Content-Range");
	is($r->{headers}{'content-length'}, length $data, "$what: full Content-Length");
	ok(defined $r->{body} && $r->{body} eq $data, "$what: whole body")
		or diag('got ' . length($r->{body} // '') . ' bytes');
	is($r->{headers}{'accept-ranges'}, 'bytes', "$what: Accept-Ranges");
}

# -------------------------------------------------------------------------
# Satisfiable single ranges of a 20-byte file.
for my $c (
	['bytes=0-4', 0, 5],
	['bytes=5-9', 5, 5],
	['bytes=0-0', 0, 1],
	['bytes=19-19', 19, 1],
	['bytes=5-', 5, 15],
	['bytes=0-', 0, 20],
	['bytes=19-', 19, 1],
	['bytes=-3', 17, 3],
	['bytes=-1', 19, 1],
	['bytes=-20', 0, 20],
	['bytes=-21 (suffix longer than the file)', 0, 20],
	['bytes=15-100 (last-pos past the end)', 15, 5],
	['bytes=0-19', 0, 20],
	['Bytes=2-3 (unit is case-insensitive)', 2, 2],
	['bytes=0-18446744073709551615 (2^64-1)', 0, 20],
	['bytes=0-18446744073709551616 (2^64)', 0, 20],
	['bytes=0-9223372036854775807 (2^63-1)', 0, 20],
	['bytes=0-9223372036854775808 (2^63)', 0, 20],
	['bytes=3-99999999999999999999999999999999', 3, 17],
	['bytes=-18446744073709551615', 0, 20],
	['bytes=-18446744073709551616', 0, 20],
	['bytes=-99999999999999999999999999999999', 0, 20],
	['bytes=00000000000000000000000000000005-6 (leading zeros)', 5, 2],
	# where a 32-bit off_t would wrap
	['bytes=0-2147483647 (2^31-1)', 0, 20],
	['bytes=0-2147483648 (2^31)', 0, 20],
	['bytes=0-4294967295 (2^32-1)', 0, 20],
	['bytes=0-4294967296 (2^32)', 0, 20],
	['bytes=3-4294967300 (2^32+4)', 3, 17],
	['bytes=-4294967296 (2^32)', 0, 20],
	['bytes=-4294967297 (2^32+1)', 0, 20],
) {
	my ($spec, $off, $len) = @$c;
	(my $hv = $spec) =~ s/ .*//;
	my ($r, $raw, $n) = one('GET', '/s.txt', "Range: $hv");
	check_206("Range: $spec", $r, $small, $off, $len);
	is($r->{headers}{etag}, $SETAG, "Range: $spec: ETag of the file");
	is($n, 1, "Range: $spec: nothing after the body");
}

# Unsatisfiable: 416 with bytes */size (RFC 9110 14.1.1, 15.5.17).
for my $spec ('bytes=20-', 'bytes=20-20', 'bytes=20-30', 'bytes=100-200',
	'bytes=-0', 'bytes=18446744073709551615-', 'bytes=18446744073709551616-',
	'bytes=9223372036854775807-9223372036854775807',
	'bytes=99999999999999999999999999-99999999999999999999999999999',
	'bytes=2147483648-', 'bytes=4294967295-', 'bytes=4294967296-',
	'bytes=4294967300-4294967305', 'bytes=18446744073709551620-18446744073709551625',
	'bytes=' . ('9' x 4000) . '-') {
	my ($r, $raw, $n) = one('GET', '/s.txt', "Range: $spec");
	check_416('Range: ' . (length $spec > 80 ? substr($spec, 0, 20) . '...(' . length($spec)
		. ' bytes)' : $spec), $r, $n, 20);
}
# A file of length zero has no satisfiable int-range.
{
	my ($r, $raw, $n) = one('GET', '/empty.txt', 'Range: bytes=0-');
	check_416('empty file, bytes=0-', $r, $n, 0);
	($r, $raw, $n) = one('GET', '/empty.txt', 'Range: bytes=0-0');
	check_416('empty file, bytes=0-0', $r, $n, 0);
	# a non-zero suffix range of an empty file is satisfiable (RFC 9110
	# 14.1.2), so no 416; no 206 can say "nothing", so the Range is
	# ignored (14.2 allows it for a representation without content)
	($r, $raw, $n) = one('GET', '/empty.txt', 'Range: bytes=-5');
	is($r->{status}, 200, 'empty file, bytes=-5: 200, the empty file');
	is($n, 1, 'empty file, bytes=-5: one response');
	($r) = one('GET', '/empty.txt');
	is($r->{status}, 200, 'empty file without Range: 200');
	is($r->{headers}{'content-length'}, 0, 'empty file: Content-Length: 0');
}

# Invalid syntax is ignored (RFC 9110 14.2): the whole file with 200.
for my $spec ('bytes=5-3', 'bytes=abc', 'bytes=', 'bytes=-', 'bytes=--5',
	'bytes=5--1', 'bytes=-5-', 'bytes=1-2-3', 'bytes=0x10-', 'bytes=+1-2',
	'bytes=1 -2', 'bytes= 1-2', 'bytes 0-5', 'bytes:0-5', 'items=0-5',
	'0-5', 'bytes=-1.5', 'bytes=1-2;x', '=0-1', 'bytesx=0-1') {
	my ($r) = one('GET', '/s.txt', "Range: $spec");
	check_whole("Range: $spec (invalid)", $r, $small);
}

# Several ranges: the whole file, once (the documented choice), however
# many, overlapping or absurd they are: no amplification.
for my $c (
	['bytes=0-1,5-6'],
	['bytes=0-1, 5-6'],
	['bytes=0-0,-1'],
	['bytes=0-,0-'],
	['bytes=5-6,0-1 (out of order)'],
	['bytes=0-1,100-200 (one unsatisfiable)'],
	['bytes=100-200,300-400 (none satisfiable)'],
	['1500 overlapping ranges', 'bytes=' . join(',', ('0-') x 1500)],
	['1000 one-byte ranges', 'bytes=' . join(',', map { "$_-$_" } 0 .. 999)],
) {
	my ($what, $hv) = @$c;
	($hv //= $what) =~ s/ \(.*//;
	my ($r, $raw, $n) = one('GET', '/s.txt', "Range: $hv");
	check_whole("$what", $r, $small);
	is($n, 1, "$what: nothing after the body");
	ok(length($raw) < 1000, "$what: reply not amplified");
}
{
	my $t0 = Time::HiRes::time();
	my ($r, $raw) = one('GET', '/big.bin',
		'Range: bytes=' . join(',', ('0-') x 1500));
	is($r->{status}, 200, '1500 ranges of a 5 MB file: 200');
	is(length($raw) - length($r->{raw_head} // ''), $BIG,
		'1500 ranges of a 5 MB file: the file once, not 1500 times');
	ok(Time::HiRes::time() - $t0 < 10, '1500 ranges of a 5 MB file: quick');
}

# Range is defined for GET only (RFC 9110 14.2): HEAD gets the 200 head.
{
	my ($r, $raw, $n) = one('HEAD', '/s.txt', 'Range: bytes=0-4');
	is($r->{status}, 200, 'HEAD with Range: 200');
	is($r->{headers}{'content-length'}, 20, 'HEAD with Range: full Content-Length');
	ok(!defined $r->{headers}{'content-range'}, 'HEAD with Range: no Content-Range');
	is(length $raw, length($r->{raw_head} // ''), 'HEAD with Range: no body');
	($r) = one('HEAD', '/s.txt', 'Range: bytes=50-');
	is($r->{status}, 200, 'HEAD with an unsatisfiable Range: 200');
}

# Range on what is not a file.
is((one('GET', '/missing.txt', 'Range: bytes=0-1'))[0]{status}, 404,
	'Range on a missing file: 404');

# -------------------------------------------------------------------------
# If-Range (RFC 9110 13.1.5): when it holds, the range; else the whole file.
for my $c (
	['the current ETag', "If-Range: $SETAG", 206],
	['another ETag', 'If-Range: "other"', 200],
	['the weak form of the ETag (needs strong)', "If-Range: W/$SETAG", 200],
	['the exact Last-Modified', "If-Range: $LM", 206],
	['a date a second later', 'If-Range: Sun, 06 Nov 1994 08:49:38 GMT', 200],
	['a date a second earlier', 'If-Range: Sun, 06 Nov 1994 08:49:36 GMT', 200],
	['the Last-Modified in RFC 850 form', 'If-Range: Sunday, 06-Nov-94 08:49:37 GMT', 206],
	['the Last-Modified in asctime form', 'If-Range: Sun Nov  6 08:49:37 1994', 206],
	['garbage', 'If-Range: garbage', 200],
	['an empty value', 'If-Range:', 200],
	# one entity-tag, not a list: If-Match's syntax is no match here
	['a list ending in the current ETag', qq{If-Range: "other", $SETAG}, 200],
	['the current ETag and more', "If-Range: $SETAG, \"other\"", 200],
) {
	my ($what, $h, $want) = @$c;
	my ($r) = one('GET', '/s.txt', 'Range: bytes=2-5', $h);
	if ($want == 206) {
		check_206("If-Range with $what", $r, $small, 2, 4);
	} else {
		check_whole("If-Range with $what", $r, $small);
	}
}
# Range is no list (RFC 9110 14.2): two fields are a malformed request,
# not the last one's range (a cache that took the first would store
# another part of the file under it)
{
	my ($r) = one('GET', '/s.txt', 'Range: bytes=0-1', 'Range: bytes=10-12');
	is($r->{status}, 400, 'two Range fields: 400');
}
{
	my ($r) = one('GET', '/s.txt', "If-Range: $SETAG");
	check_whole('If-Range without Range', $r, $small);
	($r) = one('GET', '/s.txt', 'Range: bytes=50-', 'If-Range: "other"');
	check_whole('If-Range fails, Range unsatisfiable: the file', $r, $small);
	my $n;
	($r, undef, $n) = one('GET', '/s.txt', 'Range: bytes=50-', "If-Range: $SETAG");
	check_416('If-Range holds, Range unsatisfiable', $r, $n, 20);
}

# Preconditions come before Range (RFC 9110 13.2.2).
{
	my ($r, $raw) = one('GET', '/s.txt', 'Range: bytes=0-4', "If-None-Match: $SETAG");
	is($r->{status}, 304, 'Range with a matching If-None-Match: 304');
	is(length $raw, length($r->{raw_head} // ''), 'Range with If-None-Match: no body');
	($r) = one('GET', '/s.txt', 'Range: bytes=0-4', "If-Modified-Since: $LM");
	is($r->{status}, 304, 'Range with If-Modified-Since not modified: 304');
	($r) = one('GET', '/s.txt', 'Range: bytes=0-4', 'If-None-Match: "other"');
	check_206('Range with a failing If-None-Match', $r, $small, 0, 5);
	($r) = one('GET', '/s.txt', 'Range: bytes=0-4', "If-Match: $SETAG");
	check_206('Range with a matching If-Match', $r, $small, 0, 5);
	($r) = one('GET', '/s.txt', 'Range: bytes=0-4', 'If-Match: "other"');
	is($r->{status}, 412, 'Range with a failing If-Match: 412');
	($r) = one('GET', '/s.txt', 'Range: bytes=50-', 'If-Match: "other"');
	is($r->{status}, 412, 'unsatisfiable Range with a failing If-Match: 412');
	($r) = one('GET', '/s.txt', 'Range: bytes=0-4',
		'If-Unmodified-Since: Sat, 05 Nov 1994 08:49:37 GMT');
	is($r->{status}, 412, 'Range with a failing If-Unmodified-Since: 412');
}

# -------------------------------------------------------------------------
# Bodies from an offset of a 5 MB file: small ones from the head buffer,
# larger ones after it with sendfile (or read/write), around the switch.
sub big_ranges {
	my ($what) = @_;
	for my $c ([1_000_000, 1_000_000], [4096, 4096], [$BIG - 1, 1],
		[$BIG - 100_000, 100_000], [0, $BIG], [100, 1401],
		(map { [12345, $_] } 1500, 1600, 1650, 1700, 1750, 1800, 1900,
			2047, 2048, 2049, 4095)) {
		my ($off, $len) = @$c;
		my ($r) = one('GET', '/big.bin',
			'Range: bytes=' . $off . '-' . ($off + $len - 1));
		check_206("$what: $len bytes at $off", $r, $big, $off, $len);
	}
	my ($r) = one('GET', '/big.bin', 'Range: bytes=-777777');
	check_206("$what: suffix of 777777", $r, $big, $BIG - 777777, 777777);
	($r) = one('GET', '/big.bin', 'Range: bytes=5000000-');
	check_206("$what: from 5000000 to the end", $r, $big, 5000000, $BIG - 5000000);
	my $n;
	($r, undef, $n) = one('GET', '/big.bin', "Range: bytes=$BIG-");
	check_416("$what: bytes=$BIG-", $r, $n, $BIG);
}
big_ranges('sendfile');

# Past 4 GiB: 64-bit sizes and offsets in the head, in pread and in
# sendfile.  The file is sparse: nothing is written but two marks.
my $HUGE = 5 * 1024 * 1024 * 1024 + 7;
my $MID = 4 * 1024 * 1024 * 1024 + 512 * 1024 * 1024 + 3;
sub huge_ranges {
	my ($tt, $what) = @_;
	SKIP: {
		my $hf = $tt->write_file('huge.bin', '');
		open my $fh, '+<:raw', $hf or die "$hf: $!";
		seek($fh, $MID, 0) && print $fh 'MIDDLE-MARK';
		seek($fh, $HUGE - 8, 0) && print $fh 'END-MARK';
		close $fh or die "$hf: $!";
		my @st = stat $hf;
		if (!@st || $st[7] != $HUGE || $st[12] * 512 > 64 * 1024 * 1024) {
			unlink $hf;
			skip "$what: no sparse 5 GiB file here", 16;
		}
		my ($r, $raw) = one('HEAD', '/huge.bin');
		is($r->{status}, 200, "$what: 5 GiB file: HEAD 200");
		is($r->{headers}{'content-length'}, $HUGE, "$what: 5 GiB file: Content-Length");
		like($r->{headers}{etag} // '', qr/^"[0-9a-f]+-140000007-/,
			"$what: 5 GiB file: the size in the ETag");
		($r) = one('GET', '/huge.bin', "Range: bytes=$MID-" . ($MID + 10));
		check_206_huge("$what: 11 bytes past 4 GiB", $r, $MID, 11);
		is($r->{body}, 'MIDDLE-MARK', "$what: 11 bytes past 4 GiB: the mark");
		($r) = one('GET', '/huge.bin', 'Range: bytes=-8');
		check_206_huge("$what: the last 8 bytes", $r, $HUGE - 8, 8);
		is($r->{body}, 'END-MARK', "$what: the last 8 bytes: the mark");
		($r) = one('GET', '/huge.bin', "Range: bytes=$MID-" . ($MID + 199_999));
		check_206_huge("$what: 200000 bytes past 4 GiB", $r, $MID, 200_000);
		is($r->{body}, 'MIDDLE-MARK' . ("\0" x (200_000 - 11)),
			"$what: 200000 bytes past 4 GiB: the mark, then zeros");
		($r) = one('GET', '/huge.bin', 'Range: bytes=4294967296-4294967300');
		check_206_huge("$what: 5 bytes at 2^32", $r, 4294967296, 5);
		my $n;
		($r, undef, $n) = one('GET', '/huge.bin', "Range: bytes=$HUGE-");
		is($r->{status}, 416, "$what: 5 GiB file: 416 past its end");
		is($r->{headers}{'content-range'}, "bytes */$HUGE", "$what: 5 GiB file: bytes */size");
		unlink $hf;
	}
}
sub check_206_huge {
	my ($what, $r, $off, $len) = @_;
	is($r->{status}, 206, "$what: 206");
	is($r->{headers}{'content-range'}, sprintf('bytes %d-%d/%d', $off, $off + $len - 1, $HUGE),
		"$what: Content-Range");
}
huge_ranges($t, 'sendfile');

# Kept alive: 206, 416 and the rest one after the other, then pipelined.
{
	my $s = http_connect();
	my @seq = (
		['GET', 'Range: bytes=0-4', 206, '01234'],
		['GET', 'Range: bytes=1000-', 416, undef],
		['GET', 'Range: bytes=-2', 206, 'ij'],
		['GET', '', 200, $small],
		['HEAD', 'Range: bytes=0-4', 200, ''],
		['GET', 'Range: bytes=0-1,3-4', 200, $small],
		['GET', 'Range: bytes=5-9', 206, '56789'],
	);
	my $i = 0;
	for my $q (@seq) {
		$i++;
		http_send($s, "$q->[0] /s.txt HTTP/1.1\r\nHost: x\r\n"
			. (length $q->[1] ? "$q->[1]\r\n" : '') . "\r\n");
		my $r = read_response($s, head => $q->[0] eq 'HEAD');
		is($r && $r->{status}, $q->[2], "keep-alive #$i ($q->[1]): $q->[2]");
		is($r && $r->{body}, $q->[3], "keep-alive #$i: body") if defined $q->[3];
	}
	ok(!defined wait_closed($s, 0.3), 'keep-alive: still open after 206 and 416');

	# the same, pipelined in one write, with big ranges among them
	$s = http_connect();
	push @seq, ['GET', 'Range: bytes=1000000-1999999', 206, substr($big, 1_000_000, 1_000_000)],
		['GET', 'Range: bytes=9999999-', 416, undef],
		['GET', 'Range: bytes=-3000', 206, substr($big, -3000)];
	my $req = '';
	for my $q (@seq) {
		my $path = length($q->[3] // '') > 100 || ($q->[1] =~ /9999999/)
			? '/big.bin' : '/s.txt';
		$req .= "$q->[0] $path HTTP/1.1\r\nHost: x\r\n"
			. (length $q->[1] ? "$q->[1]\r\n" : '') . "\r\n";
	}
	http_send($s, $req . "GET /s.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	$i = 0;
	for my $q (@seq) {
		$i++;
		my $r = read_response($s, head => $q->[0] eq 'HEAD', timeout => 10);
		is($r && $r->{status}, $q->[2], "pipelined #$i ($q->[1]): $q->[2]");
		ok($r && defined $r->{body} && $r->{body} eq $q->[3], "pipelined #$i: body")
			if defined $q->[3];
	}
	my @rest = parse_responses(http(undef, sock => $s));
	is(scalar @rest, 1, 'pipelined: one last response, no stray bytes');
	is($rest[0] && $rest[0]->{body}, $small, 'pipelined: last response intact');
}

# Clients that hang up in the middle of a ranged body do no harm.
{
	for (1 .. 10) {
		my $s = http_connect();
		http_send($s, "GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=1000-\r\n\r\n");
		sysread($s, my $buf, 1000) if $_ % 2;
		close $s;
	}
	my ($r) = one('GET', '/s.txt', 'Range: bytes=0-4');
	is($r->{body}, '01234', 'clients hanging up mid-range: still serving');
}

# -------------------------------------------------------------------------
# Real clients.
my $url = 'http://127.0.0.1:' . $t->port;
my $dir = $t->testdir;

sub same_as_big {
	my ($file, $what) = @_;
	my $got = slurp($file);
	ok(length($got) == $BIG && md5_hex($got) eq md5_hex($big), $what)
		or diag("got " . length($got) . " of $BIG bytes");
}
# count_log(qr//, $min): how many access log lines match, waiting a little
# for at least $min (a reply is logged right after it is sent).
sub count_log {
	my ($re, $min) = @_;
	my $n = 0;
	for (1 .. 40) {
		$n = () = $t->log =~ /$re/g;
		last if $n >= ($min // 1);
		Time::HiRes::sleep(0.05);
	}
	return $n;
}
my $LOG206 = qr{"GET /big\.bin HTTP/1\.[01]" 206 };
my $LOG416 = qr{"GET /big\.bin HTTP/1\.[01]" 416 };

SKIP: {
	my $curl = MrhttpdTest::find_prog('curl');
	skip 'curl not installed (apt-get install curl)', 17 unless $curl;
	my @curl = ($curl, '-s', '-S', '--max-time', '60');

	# -r ranges
	for my $c (['0-99', 0, 100], ['-500', $BIG - 500, 500],
		['5000000-', 5000000, $BIG - 5000000], ['123456-1234567', 123456, 1111112]) {
		my ($spec, $off, $len) = @$c;
		my ($rc, $out) = run_cmd(@curl, '-r', $spec, '-o', "$dir/r.out",
			'-w', '%{http_code}', "$url/big.bin");
		my $got = slurp("$dir/r.out");
		ok($out eq '206' && $got eq substr($big, $off, $len),
			"curl -r $spec: 206 and the right $len bytes")
			or diag("curl: $out, " . length($got) . ' bytes');
	}

	# -C - after a partial file: the first 40%
	my $part = int($BIG * 0.4);
	spew("$dir/resume.bin", substr($big, 0, $part));
	my $before = count_log($LOG206, 0);
	my ($rc, $out) = run_cmd(@curl, '-C', '-', '-o', "$dir/resume.bin",
		'-w', '%{http_code} %{size_download}', "$url/big.bin");
	is($rc, 0, 'curl -C -: exit 0') or diag($out);
	is($out, '206 ' . ($BIG - $part), 'curl -C -: 206, only the rest downloaded');
	same_as_big("$dir/resume.bin", 'curl -C -: resumed file is byte-identical');

	# -C - on a complete file: the server says 416, curl is done
	($rc, $out) = run_cmd(@curl, '-C', '-', '-o', "$dir/resume.bin",
		'-w', '%{http_code}', "$url/big.bin");
	is($out, '416', 'curl -C - on a complete file: 416');
	is($rc, 0, 'curl -C - on a complete file: curl is content (exit 0)')
		or diag($out);
	same_as_big("$dir/resume.bin", 'curl -C - on a complete file: file untouched');

	# a real interruption: the connection drops after 40% of the body
	my ($ppid, $pport) = cutting_proxy($t->port, $part);
	unlink "$dir/cut.bin";
	($rc, $out) = run_cmd(@curl, '-o', "$dir/cut.bin", "http://127.0.0.1:$pport/big.bin");
	stop_proxy($ppid);
	my $have = -s "$dir/cut.bin" // 0;
	ok($rc != 0 && $have > 0 && $have < $BIG,
		"curl interrupted after $have bytes (exit " . ($rc >> 8) . ')') or diag($out);
	($rc, $out) = run_cmd(@curl, '-C', '-', '-o', "$dir/cut.bin",
		'-w', '%{http_code} %{size_download}', "$url/big.bin");
	is($out, '206 ' . ($BIG - $have), 'curl -C - after an interruption: 206, the rest');
	same_as_big("$dir/cut.bin", 'curl -C - after an interruption: byte-identical');

	# -C with an explicit offset and -r with several ranges
	spew("$dir/off.bin", substr($big, 0, 1000));
	($rc, $out) = run_cmd(@curl, '-C', '1000', '-o', "$dir/off.bin",
		'-w', '%{http_code}', "$url/big.bin");
	is($out, '206', 'curl -C 1000: 206');
	same_as_big("$dir/off.bin", 'curl -C 1000: byte-identical');
	($rc, $out) = run_cmd(@curl, '-r', '0-9,20-29', '-o', "$dir/multi.out",
		'-w', '%{http_code}', "$url/s.txt");
	is($out, '200', 'curl -r 0-9,20-29: 200 (no multipart)');
	is(slurp("$dir/multi.out"), $small, 'curl -r 0-9,20-29: the whole file');
	ok(count_log($LOG206, $before + 3) >= $before + 3,
		'the access log shows the 206 replies');
}

SKIP: {
	my $wget = MrhttpdTest::find_prog('wget');
	skip 'wget not installed (apt-get install wget; tests/install-deps.sh)', 11
		unless $wget;
	my @wget = ($wget, '--no-config', '-nv', '-T', '30', '-t', '1', '-P', "$dir/w");
	mkdir "$dir/w";
	my $part = int($BIG * 0.4);
	spew("$dir/w/big.bin", substr($big, 0, $part));
	my $n206 = count_log($LOG206, 0);
	my ($rc, $out) = run_cmd(@wget, '-c', "$url/big.bin");
	is($rc, 0, 'wget -c: exit 0') or diag($out);
	is(count_log($LOG206, $n206 + 1), $n206 + 1, 'wget -c: asked for the rest, got a 206');
	same_as_big("$dir/w/big.bin", 'wget -c: resumed file is byte-identical');
	like($out, qr/\[\Q$BIG\E\/\Q$BIG\E\]|\Q$BIG\E/, 'wget -c: reports the full size')
		or diag($out);

	# already complete: wget sees the 416 and leaves the file alone
	my $n416 = count_log($LOG416, 0);
	($rc, $out) = run_cmd(@wget, '-c', "$url/big.bin");
	is(count_log($LOG416, $n416 + 1), $n416 + 1, 'wget -c on a complete file: 416');
	is($rc, 0, 'wget -c on a complete file: exit 0') or diag($out);
	same_as_big("$dir/w/big.bin", 'wget -c on a complete file: untouched');

	# a real interruption (one try only), then -c
	unlink "$dir/w/big.bin";
	my ($ppid, $pport) = cutting_proxy($t->port, int($BIG * 0.6));
	($rc, $out) = run_cmd(@wget, "http://127.0.0.1:$pport/big.bin");
	stop_proxy($ppid);
	my $have = -s "$dir/w/big.bin" // 0;
	ok($rc != 0 && $have > 0 && $have < $BIG, "wget interrupted after $have bytes")
		or diag($out);
	$n206 = count_log($LOG206, 0);
	($rc, $out) = run_cmd(@wget, '-c', "$url/big.bin");
	is($rc, 0, 'wget -c after an interruption: exit 0') or diag($out);
	is(count_log($LOG206, $n206 + 1), $n206 + 1, 'wget -c after an interruption: a 206');
	same_as_big("$dir/w/big.bin", 'wget -c after an interruption: byte-identical');
}

# -------------------------------------------------------------------------
# The same offsets without sendfile (the same conf as 10-static.t's).
my $t2 = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html', USE_SENDFILE => 0 });
is($t2->version_info->{features}{sendfile}, 'no', 'USE_SENDFILE=0 build has no sendfile');
$t2->write_file('big.bin', $big);
$t2->write_file('s.txt', $small);
$t2->run();
big_ranges('read/write');
huge_ranges($t2, 'read/write');

ok($t->alive && $t2->alive, 'servers still running');
# HTTP/2 and a body of 4 GiB or more: a 32-bit build took its length
# modulo 2^32 for the stream arena's room, copied the 10 bytes that left
# into it, and sent on past the arena, memory of other clients (their
# Authorization) among it, until it crashed (helper-67, on ARM and MIPS)
SKIP: {
	my $th = MrhttpdTest->new(conf => { HTTP2 => 1 });
	skip 'built without HTTP/2', 3 unless $th->feature('http2');
	my $size = 4 * 1024 * 1024 * 1024 + 10;
	my $hf = $th->write_file('h4.bin', 'HEAD-MARK!');
	truncate($hf, $size) or skip "no sparse 4 GiB file here: $!", 3;
	$th->write_file('ok.txt', "ok\n");
	$th->run;
	my $c = h2_open($th->port);
	http_send($c, h2_headers(1, '/h4.bin'));
	my $data = '';
	h2_read($c, 20, sub { $data .= $_[0]{payload} if $_[0]{type} == H2_DATA;
		length $data >= 65535 });
	close $c;
	unlink $hf;
	is(length $data, 65535, 'HTTP/2, a file of 4 GiB + 10 bytes: the first window of its body');
	ok($data eq 'HEAD-MARK!' . ("\0" x 65525), '... the file\'s bytes: its mark, then zeros');
	my ($r) = parse_responses(http("GET /ok.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
	is($r && $r->{body}, "ok\n", '... and the server is still up');
}

$t->done_testing();

# cutting_proxy($port, $n): a relay to 127.0.0.1:$port that drops its
# first connection after $n bytes of the reply, like a flaky network, and
# relays later ones whole.  Returns (pid, its port).
sub cutting_proxy {
	my ($to, $cut) = @_;
	my $l = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0,
		Listen => 8, Proto => 'tcp') or die "proxy listen: $@";
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		alarm 120;		# never outlive the test
		$SIG{PIPE} = 'IGNORE';
		my $limit = $cut;
		while (my $c = $l->accept) {
			my $u = IO::Socket::IP->new(PeerHost => '127.0.0.1',
				PeerPort => $to, Proto => 'tcp') or POSIX::_exit(1);
			my $sel = IO::Select->new($c, $u);
			my $sent = 0;
		RELAY:	while (my @ready = $sel->can_read(30)) {
				for my $h (@ready) {
					my $n = sysread($h, my $buf, 65536);
					last RELAY unless $n;
					if ($h == $c) {
						http_send($u, $buf) or last RELAY;
						next;
					}
					if (defined $limit && $sent + $n >= $limit) {
						http_send($c, substr($buf, 0, $limit - $sent));
						last RELAY;
					}
					http_send($c, $buf) or last RELAY;
					$sent += $n;
				}
			}
			undef $limit;
			close $c;
			close $u;
		}
		POSIX::_exit(0);
	}
	my $port = $l->sockport;
	close $l;
	return ($pid, $port);
}

sub stop_proxy {
	my ($pid) = @_;
	kill 'TERM', $pid;
	waitpid($pid, 0);
}

# Deterministic, incompressible test data of the given size.
sub big_data {
	my ($size) = @_;
	my $d = join '', map { md5("mrhttpd-range$_") } 0 .. $size / 16;
	return substr($d, 0, $size);
}
