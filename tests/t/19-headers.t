#!/usr/bin/perl
# PRAGMA: when set, every reply carries it once; without it, none does.

use strict;
use warnings;

use Test::More;
use MrhttpdTest;

my @reqs = (
	['file', "GET /a.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200],
	['HEAD', "HEAD /a.txt HTTP/1.0\r\n\r\n", 200, 1],
	['index', "GET / HTTP/1.0\r\n\r\n", 200],
	['redirect', "GET /dir HTTP/1.0\r\n\r\n", 301],
	['404', "GET /nothere HTTP/1.0\r\n\r\n", 404],
	['400', "GET /a.txt HTTP/1.1\r\n\r\n", 400],
	['501', "FOO /a.txt HTTP/1.0\r\n\r\n", 501],
	['505', "GET /a.txt HTTP/2.0\r\nHost: x\r\n\r\n", 505],
);

sub setup {
	my ($t) = @_;
	$t->write_file('a.txt', "aaa\n");
	$t->write_file('index.html', "index\n");
	$t->write_file('dir/index.html', "dir\n");
	$t->run();
}

my $t = MrhttpdTest->new(conf => { PRAGMA => 'no-cache', DEFAULT_INDEX => 'index.html' });
$t->has('pragma');
setup($t);
for (@reqs) {
	my ($name, $req, $status, $head) = @$_;
	my ($r) = parse_responses(http($req), head => $head);
	is($r && $r->{status}, $status, "PRAGMA: $name is $status");
	is(join(',', map { $_->[1] } grep { lc $_->[0] eq 'pragma' }
		@{ $r ? $r->{header_list} : [] }), 'no-cache',
		"PRAGMA: $name has Pragma: no-cache once");
}

my $t2 = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html' });
setup($t2);
for (@reqs) {
	my ($name, $req, $status, $head) = @$_;
	my ($r) = parse_responses(http($req), head => $head);
	is($r && $r->{status}, $status, "no PRAGMA: $name is $status");
	ok($r && !exists $r->{headers}{pragma}, "no PRAGMA: $name has no Pragma");
}

$t->done_testing();
