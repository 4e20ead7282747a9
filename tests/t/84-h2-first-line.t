#!/usr/bin/perl
# 84-h2-first-line.t - HTTP/1.1 on a port that speaks HTTP/2 as well
# (HTTP2=1, h2c by prior knowledge): a first line that has not ended (too
# long, or stalled) is HTTP/1.1's to answer, and so is one behind empty
# lines (RFC 9112 2.2); only a whole first line that is not HTTP/1 is
# taken for a broken preface and closed without a word (RFC 9113 3.4).
# Before, a line past HTTP_HEADER_LENGTH was reset, and a stalled one, or
# any refused request after an empty line, closed without an answer.

use strict;
use warnings;

use Test::More;
use MrhttpdTest qw(:DEFAULT);
use MrhttpdCGI ();

my $t = MrhttpdTest->new(conf => { HTTP2 => 1, REQUEST_TIMEOUT => 3 });
$t->write_file('index.html', "hello\n");
$t->run;

for (["GET /" . ('a' x 9000) . " HTTP/1.1\r\nHost: x\r\n\r\n", qr/^431$/,
	'a first line longer than the head may be'],
    ["GET /index.html", qr/^408$/, 'a first line that stalls'],
    ["\r\nGET /index.html HTTP/1.1\r\n\r\n", qr/^400$/,
	'an empty line, then a request without Host'],
    ["\r\n\r\nGET /index.html HTTP/1.1\r\nHost: x\r\n", qr/^408$/,
	'empty lines, then a head that stalls'],
    ["\r\nGET /index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	qr/^200$/, 'an empty line, then a whole request'],
    ["INVALID CONNECTION PREFACE\r\n\r\n", undef, 'a whole line that is no HTTP/1']) {
	my ($req, $want, $what) = @$_;
	my $closed;
	my $resp = http($req, timeout => 8, closed => \$closed);
	my ($status) = $resp =~ m{\AHTTP/1\.1 (\d{3}) };
	if ($want) {
		like($status // 'none', $want, "HTTP2=1, $what: answered "
			. ($status // 'nothing'));
	} else {
		ok($resp eq '' && $closed, "HTTP2=1, $what: closed, nothing sent");
	}
}

# the broken preface is closed unanswered, but logged: with its status
# and no byte sent (before, nothing was logged, escape codes included)
ok(MrhttpdCGI::wait_for(sub { $t->log =~ m{"INVALID CONNECTION PREFACE" 400 - } }, 3),
	'a whole line that is no HTTP/1: logged, 400 with no byte sent')
	or diag($t->log);
# the refused request is logged with its line, not the empty one before it
ok(MrhttpdCGI::wait_for(sub { $t->log =~ m{"GET /index\.html HTTP/1\.1" 400 } }, 3),
	'an empty line, then a request without Host: logged with its request line')
	or diag($t->log =~ /^(.* 400 .*)$/mg);

ok($t->alive, 'the server is still up');
$t->done_testing();
