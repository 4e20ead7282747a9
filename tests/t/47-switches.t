#!/usr/bin/perl
# The switches a small build turns off (RANGES, VALIDATORS; request bodies
# without PUT and CGI are in 12-malformed.t): off, the server answers as a
# server without the feature must, never worse.  RANGES=0: Range is
# ignored (RFC 9110 14.2 allows it), the whole file is sent and no
# Accept-Ranges offered.  VALIDATORS=0: no ETag or Last-Modified; with no
# tag to match, If-Match fails unless it is "*" and If-None-Match holds
# unless it is "*", the dates are ignored, and an If-Range can never hold,
# so a Range with one gets the whole file.

use strict;
use warnings;

use Test::More;
use MrhttpdTest;

my $body = join('', map { chr(65 + $_ % 26) } 0 .. 999);

sub get {
	my (@lines) = @_;
	my ($r) = parse_responses(http("GET /f.txt HTTP/1.1\r\nHost: x\r\n"
		. join('', map { "$_\r\n" } @lines)
		. "Connection: close\r\n\r\n"));
	return $r // { status => 'none', headers => {} };
}

my %want = (
	'RANGES=0 VALIDATORS=0' => [0, 0],
	'RANGES=1 VALIDATORS=0' => [1, 0],
	'RANGES=0 VALIDATORS=1' => [0, 1],
);
for my $name (sort keys %want) {
	my ($ranges, $validators) = @{ $want{$name} };
	my $t = MrhttpdTest->new(conf => { map { split /=/ } split ' ', $name });
	my $f = $t->version_info->{features};
	is($f->{ranges}, $ranges ? 'yes' : 'no', "$name: -V ranges");
	is($f->{validators}, $validators ? 'yes' : 'no', "$name: -V validators");
	$t->write_file('f.txt', $body);
	$t->run();

	my $r = get();
	is($r->{status}, 200, "$name: GET 200");
	is($r->{body}, $body, "$name: the whole file");
	is(exists $r->{headers}{etag} ? 1 : 0, $validators, "$name: ETag");
	is(exists $r->{headers}{'last-modified'} ? 1 : 0, $validators,
		"$name: Last-Modified");
	is(exists $r->{headers}{'accept-ranges'} ? 1 : 0, $ranges,
		"$name: Accept-Ranges");

	$r = get('Range: bytes=10-19');
	if ($ranges) {
		is($r->{status}, 206, "$name: Range: 206");
		is($r->{body}, substr($body, 10, 10), "$name: Range: the part");
	} else {
		is($r->{status}, 200, "$name: Range ignored: 200");
		is($r->{body}, $body, "$name: Range ignored: the whole file");
	}
	$r = get('Range: bytes=5000-');
	is($r->{status}, $ranges ? 416 : 200,
		"$name: unsatisfiable Range: " . ($ranges ? 416 : 200));

	my $etag = $validators ? get()->{headers}{etag} : '"x"';
	$r = get("Range: bytes=10-19", "If-Range: $etag");
	is($r->{status}, $ranges && $validators ? 206 : 200,
		"$name: If-Range with " . ($validators ? 'its ETag' : 'a tag')
		. ': ' . ($ranges && $validators ? 206 : 200));
	is(length($r->{body}), $ranges && $validators ? 10 : 1000,
		"$name: If-Range: the body's length");

	# (dates before 2038: a 32-bit time_t, as on MIPS, takes no later
	# one, and ignores the field)
	# without validators no tag can match (If-Match fails unless "*",
	# If-None-Match holds unless "*"), and the dates are ignored
	for (['If-None-Match: *', 304, 304], ['If-None-Match: "x"', 200, 200],
	    ['If-Match: "nope"', 412, 412], ['If-Match: *', 200, 200],
	    ['If-Modified-Since: Thu, 01 Jan 2037 00:00:00 GMT', 304, 200],
	    ['If-Unmodified-Since: Sat, 01 Jan 1994 00:00:00 GMT', 412, 200]) {
		my ($h, $with, $without) = @$_;
		my $st = $validators ? $with : $without;
		is(get($h)->{status}, $st, "$name: $h: $st");
	}
	ok($t->alive, "$name: still serving");
	$t->teardown;
}

done_testing();
