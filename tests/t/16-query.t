#!/usr/bin/perl
# Query strings: ignored for static files, unless QUERY_HACK makes them part
# of the file name for paths under its prefix (files mirrored by wget).

use strict;
use warnings;

use Test::More;
use MrhttpdTest;

sub body_of {
	my ($path) = @_;
	my ($r) = parse_responses(http("GET $path HTTP/1.0\r\n\r\n"));
	return $r ? "$r->{status} " . ($r->{body} // '') : 'no response';
}

sub files {
	my ($t) = @_;
	$t->write_file('a.txt', "plain\n");
	$t->write_file('a.txt?x=1', "literal\n");
	$t->write_file('m/p.html', "mirror plain\n");
	$t->write_file('m/p.html?a=1&b=2', "mirror literal\n");
}

my $t = MrhttpdTest->new();
files($t);
$t->run();
is(body_of('/a.txt?x=1'), "200 plain\n", 'no QUERY_HACK: query ignored');
is(body_of('/a.txt?'), "200 plain\n", 'no QUERY_HACK: empty query ignored');
is(body_of('/a.txt?x=../../etc/passwd'), "200 plain\n",
	'no QUERY_HACK: a query with dots is just ignored');
is(body_of('/a.txt%3Fx=1'), "200 literal\n",
	'no QUERY_HACK: an encoded ? is part of the path');
like(body_of('/nothere.txt?x=1'), qr/^404 /,
	'no QUERY_HACK: missing file with a query is 404');

my $t2 = MrhttpdTest->new(conf => { QUERY_HACK => '/' });
$t2->has('query-hack');
files($t2);
$t2->run();
is(body_of('/a.txt?x=1'), "200 literal\n", 'QUERY_HACK=/: file named a.txt?x=1 served');
is(body_of('/m/p.html?a=1&b=2'), "200 mirror literal\n",
	'QUERY_HACK=/: query with & in the file name');
is(body_of('/a.txt'), "200 plain\n", 'QUERY_HACK=/: no query, plain file');
like(body_of('/a.txt?y=2'), qr/^404 /, 'QUERY_HACK=/: no such literal file: 404');
my ($r) = parse_responses(http("GET /a.txt?x=../../secret HTTP/1.0\r\n\r\n"));
like($r ? $r->{status} : 0, qr/^(?:400|404)$/, 'QUERY_HACK=/: dots in the query stay harmless');
# every path is under QUERY_HACK=/: the query's ".." is what must not
# climb out of the name it ends (a proxy in front guarding /private/
# sees the path /a.txt)
$t2->write_file('private/s.txt', "secret\n");
like(body_of('/a.txt?/../private/s.txt'), qr/^404 /,
	'QUERY_HACK=/: ".." in the query does not leave the name (/a.txt?/../private/s.txt)');
like(body_of('/a.txt?%2F..%2Fprivate%2Fs.txt'), qr/^404 /, '... nor an encoded one');
like(body_of('/m/p.html?y/../../private/s.txt'), qr/^404 /, '... nor one after a name');

my $t3 = MrhttpdTest->new(conf => { QUERY_HACK => '/m/' });
files($t3);
$t3->run();
is(body_of('/m/p.html?a=1&b=2'), "200 mirror literal\n",
	'QUERY_HACK=/m/: under the prefix the query is part of the name');
is(body_of('/a.txt?x=1'), "200 plain\n", 'QUERY_HACK=/m/: elsewhere it is ignored');
# the query is a name's end, never a way out of the prefix: a proxy in
# front that guards another directory leaves the query alone, and these
# read a.txt?x=1 (and with QUERY_HACK=index, secret/s.txt)
like(body_of('/m/p.html?/../../a.txt?x=1'), qr/^404 /,
	'QUERY_HACK=/m/: ".." in the query does not lead out of /m/');
like(body_of('/m/p.html?%2f..%2f..%2fa.txt?x=1'), qr/^404 /,
	'QUERY_HACK=/m/: nor an encoded one');
like(body_of('/m/p.html?x/../../../a.txt?x=1'), qr/^404 /,
	'QUERY_HACK=/m/: nor one inside it');
is(body_of('/m/../a.txt?x=1'), "200 plain\n",
	'QUERY_HACK=/m/: a path that leads out of /m/ is not under it: query ignored');
$t3->write_file('m/private/s.txt', "secret\n");
like(body_of('/m/p.html?/../private/s.txt'), qr/^404 /,
	'QUERY_HACK=/m/: nor into a sibling directory');

# upstream's own example: QUERY_HACK=index, a name below the document
# root without its /, reads index.html?sorted=yes
my $t4 = MrhttpdTest->new(conf => { QUERY_HACK => 'index' });
$t4->write_file('index.html', "index\n");
$t4->write_file('index.html?sorted=yes', "index sorted\n");
$t4->write_file('a.txt', "plain\n");
$t4->write_file('a.txt?x=1', "literal\n");
$t4->run();
is(body_of('/index.html?sorted=yes'), "200 index sorted\n",
	'QUERY_HACK=index: index.html?sorted=yes, as upstream documents');
is(body_of('/a.txt?x=1'), "200 plain\n",
	'QUERY_HACK=index: other names ignore the query');
$t4->write_file('secret/s.txt', "secret\n");
$t4->write_file('indexes/s.txt', "secret\n");
like(body_of('/index.html?/../secret/s.txt'), qr/^404 /,
	'QUERY_HACK=index: the query does not reach another directory');
like(body_of('/index.html?/../indexes/s.txt'), qr/^404 /,
	'QUERY_HACK=index: nor one whose name starts like the prefix');

# nor does it for a DELETE or a PUT: a proxy that allows them below
# /incoming/ alone sees /a.txt
my $t5 = MrhttpdTest->new(conf => { QUERY_HACK => '/', PUT_PATH => '/incoming' });
$t5->write_file('a.txt', "plain\n");
$t5->write_file('incoming/victim.txt', "kept\n");
$t5->run();
my ($d) = parse_responses(http("DELETE /a.txt?/../incoming/victim.txt HTTP/1.1\r\n"
	. "Host: x\r\nConnection: close\r\n\r\n"));
is($d && $d->{status}, 404, 'QUERY_HACK=/: DELETE /a.txt?/../incoming/victim.txt: 404');
ok(-e $t5->htdocs . '/incoming/victim.txt', '... and the file is still there');
($d) = parse_responses(http("PUT /a.txt?/../incoming/planted.txt HTTP/1.1\r\n"
	. "Host: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi"));
is($d && $d->{status}, 404, 'QUERY_HACK=/: PUT /a.txt?/../incoming/planted.txt: 404');
ok(!-e $t5->htdocs . '/incoming/planted.txt', '... nothing written');

$t->done_testing();
