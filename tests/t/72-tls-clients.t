#!/usr/bin/perl
# 72-tls-clients.t - HTTPS with the clients people use: headless Chromium
# loads the HTML listing with the test CA trusted (a screenshot is taken,
# and kept in tests/build/tls-chromium.png), and testssl.sh finds nothing
# of HIGH or CRITICAL severity.

use strict;
use warnings;

use File::Copy qw(copy);
use File::Temp qw(tempdir);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp spew);
use MrhttpdTLS;

my $pki = tls_pki() or plan skip_all => "no test certificates: $@";
my $t = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'), AUTO_INDEX => 3 });
$t->has('tls');
$t->write_file("share/file-$_.txt", "file $_\n") for 1 .. 5;
$t->write_file('share/index-like.html.txt', 'x');
my $sport = tls_port();
$t->run({}, '-s', $sport);

SKIP: {
	my $ch = chromium($pki);
	skip $ch, 4 unless ref $ch;
	ok(!$ch->{error}, 'the test CA is trusted in a fresh NSS database')
		or diag($ch->{error});
	my ($home, @cmd) = ($ch->{home}, @{ $ch->{cmd} });
	local $ENV{HOME} = $home;
	my $rc;
	my $url = "https://localhost:$sport/share/";
	($rc) = run_cmd({ stdout => "$home/dom.html", stderr => "$home/err" },
		@cmd, '--dump-dom', $url);
	my $dom = slurp("$home/dom.html") // '';
	ok($rc == 0 && $dom =~ />file-3\.txt<\/a>/,
		'chromium loads the listing over HTTPS, certificate verified')
		or diag(substr($dom, 0, 400) . slurp("$home/err"));
	($rc) = run_cmd({ stdout => "$home/out", stderr => "$home/err2" }, @cmd,
		"--screenshot=$home/shot.png", $url);
	my $png = slurp("$home/shot.png") // '';
	ok($rc == 0 && substr($png, 0, 8) eq "\x89PNG\r\n\x1a\n" &&
		length($png) > 5000, 'chromium: a screenshot of the page')
		or diag(length($png) . ' bytes');
	copy("$home/shot.png", "$MrhttpdTest::ROOT/tests/build/tls-chromium.png");
	like($t->log, qr{"GET /share/ HTTP/1\.1" 200 .*Chrome}, 'the access log has its request');
}

SKIP: {
	# Debian installs it as testssl
	my $testssl = MrhttpdTest::find_prog('testssl')
		// MrhttpdTest::find_prog('testssl.sh');
	skip 'testssl.sh is not installed (apt-get install testssl.sh)', 2
		unless $testssl;
	skip 'testssl.sh under qemu-user takes too long', 2 if $ENV{RUN_WRAPPER};
	# it checks the configuration, the same in every build; the
	# sanitizers get their hostile handshakes from 71-tls-attack.t
	# (and check-minimal's base keys leave TLS as it is)
	skip 'testssl.sh checks the configuration: once, in the plain build', 2
		if $ENV{MRHTTPD_SANITIZE} || $ENV{MRHTTPD_TEST_CONF};
	my $dir = tempdir(CLEANUP => 1);
	my ($rc, $out) = run_cmd('timeout', '900', $testssl, '--quiet',
		'--color', '0', '--warnings', 'off', '--fast', '--add-ca', $pki->{ca},
		'--jsonfile', "$dir/r.json", "localhost:$sport");
	my $json = slurp("$dir/r.json") // '';
	my @found = $json =~ /"severity"\s*:\s*"(HIGH|CRITICAL)"/g;
	my @ids = $json =~ /"id"\s*:\s*"([^"]+)"/g;
	ok(@ids > 50 && grep({ $_ eq 'scanTime' } @ids), 'testssl.sh ran to its end')
		or diag($out);
	is(scalar @found, 0, 'testssl.sh: no HIGH or CRITICAL finding')
		or diag(join "\n", grep { /HIGH|CRITICAL/ } split /\n/, $out);
	note('testssl.sh: ' . scalar(@ids) . ' checks, findings at HIGH or above: '
		. scalar(@found));
}

$t->done_testing();
