#!/usr/bin/perl
# Path traversal: no spelling of "..", encoded, doubled, overlong or mixed,
# reaches a file outside PUBLIC_DIR.

use strict;
use warnings;

use Test::More;
use MrhttpdTest;

my $t = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html' });
my $marker = 'SECRET-' . join('', map { int rand 10 } 1 .. 16);
$t->write_file($t->testdir . '/secret.txt', "$marker\n");
$t->write_file($t->testdir . '/a/secret.txt', "$marker\n");
$t->write_file('a.txt', "aaa\n");
$t->write_file('sub/b.txt', "bbb\n");
$t->write_file('index.html', "index\n");
$t->run();

# The server does decode and normalise what stays inside the root.
for (['/sub/../a.txt', "aaa\n"], ['/sub/./b.txt', "bbb\n"], ['//a.txt', "aaa\n"],
	['/%61.txt', "aaa\n"], ['/s%75b/b.txt', "bbb\n"]) {
	my ($path, $body) = @$_;
	my ($r) = parse_responses(http("GET $path HTTP/1.0\r\n\r\n"));
	is($r && $r->{body}, $body, "inside the root: $path served");
}

my @variants = (
	'/../secret.txt',
	'/../../secret.txt',
	'/../../../../../../../../secret.txt',
	'/%2e%2e/secret.txt',
	'/%2E%2E/secret.txt',
	'/%2e%2e%2fsecret.txt',
	'/%2E%2E%2Fsecret.txt',
	'/..%2fsecret.txt',
	'/..%2Fsecret.txt',
	'/..%5csecret.txt',
	'/..%5Csecret.txt',
	'/..\\secret.txt',
	'/.%2e/secret.txt',
	'/%2e./secret.txt',
	'//../secret.txt',
	'/./../secret.txt',
	'/a/../../secret.txt',
	'/sub/../../secret.txt',
	'/sub/%2e%2e/%2e%2e/secret.txt',
	'/sub/..%2f..%2fsecret.txt',
	'/a.txt/../../secret.txt',
	'/%c0%ae%c0%ae/secret.txt',
	'/%c0%ae%c0%ae%c0%afsecret.txt',
	'/..%c0%afsecret.txt',
	'/%e0%80%ae%e0%80%ae/secret.txt',
	'/%c1%9c..%c1%9csecret.txt',
	'/%252e%252e/secret.txt',
	'/..%00/secret.txt',
	'/../secret.txt%00.html',
	'/....//secret.txt',
	'/.../secret.txt',
	'/..;/secret.txt',
	'/..?/secret.txt',
	'/%2e%2e%5csecret.txt',
	'/%2e%2e%2f%2e%2e%2fsecret.txt',
	'/.%2e%2fsecret.txt',
	'/%2e%2e/',
	'/../a/secret.txt',
	'/..',
	'../secret.txt',
	'%2e%2e/secret.txt',
	'http://x/../secret.txt',
	'http://x/%2e%2e/secret.txt',
	'http://x/..%2fsecret.txt',
	'http://../secret.txt',
);

for my $v (@variants) {
	my $req = "GET $v HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	my ($raw) = http($req, timeout => 5);
	my ($r) = parse_responses($raw);
	my $st = $r ? $r->{status} : 0;
	ok($raw !~ /\Q$marker\E/ && $st =~ /^(?:301|400|403|404)$/,
		"$v: refused ($st)") or diag($raw);
}

# HTTP/1.0 and HEAD too.
for my $v ('/../secret.txt', '/%2e%2e/secret.txt') {
	my ($raw) = http("HEAD $v HTTP/1.0\r\n\r\n");
	my ($r) = parse_responses($raw, head => 1);
	like($r ? $r->{status} : 0, qr/^(?:400|403|404)$/, "HEAD $v: refused");
}

ok($t->alive, 'server still running');
my ($r) = parse_responses(http_get('/a.txt'));
is($r->{body}, "aaa\n", 'server still serves');

$t->done_testing();
