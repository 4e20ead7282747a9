#!/usr/bin/perl
# 81-h2-chromium.t - HTTP/2 as a browser uses it: headless Chromium loads
# the HTML listing over TLS with the test CA trusted, chooses h2 in the
# handshake (ALPN), and the access log proves the protocol was HTTP/2.0.
# A screenshot is kept in tests/build/h2-chromium.png.

use strict;
use warnings;

use File::Copy qw(copy);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);
use MrhttpdTLS;

my $pki = tls_pki() or plan skip_all => "no test certificates: $@";
my $t = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'), HTTP2 => 1,
	AUTO_INDEX => 3, LOG_LEVEL => 4 });
$t->has('tls');
$t->write_file("share/file-$_.txt", "file $_\n") for 1 .. 5;
my $sport = tls_port();
$t->run({}, '-s', $sport);

my $ch = chromium($pki);
plan skip_all => $ch unless ref $ch;
ok(!$ch->{error}, 'the test CA is trusted in a fresh NSS database')
	or diag($ch->{error});
my ($home, @cmd) = ($ch->{home}, @{ $ch->{cmd} });
local $ENV{HOME} = $home;
my $url = "https://localhost:$sport/share/";
my ($rc) = run_cmd({ stdout => "$home/dom.html", stderr => "$home/err" },
	@cmd, '--dump-dom', $url);
my $dom = slurp("$home/dom.html") // '';
ok($rc == 0 && $dom =~ />file-3\.txt<\/a>/,
	'chromium loads the listing over HTTPS') or diag(substr($dom, 0, 400)
	. (slurp("$home/err") // ''));
($rc) = run_cmd({ stdout => "$home/out", stderr => "$home/err2" }, @cmd,
	"--screenshot=$home/shot.png", $url);
my $png = slurp("$home/shot.png") // '';
ok($rc == 0 && substr($png, 0, 8) eq "\x89PNG\r\n\x1a\n" && length($png) > 5000,
	'chromium: a screenshot of the page') or diag(length($png) . ' bytes');
copy("$home/shot.png", "$MrhttpdTest::ROOT/tests/build/h2-chromium.png");
my $log = $t->log;
like($log, qr{"GET /share/ HTTP/2\.0" 200 .*Chrome},
	'the access log: Chromium\'s request came over HTTP/2.0');
unlike($log, qr{"GET /share/ HTTP/1\.1"}, '... and never over HTTP/1.1');
ok($t->alive, 'the server is still up');
$t->done_testing();
