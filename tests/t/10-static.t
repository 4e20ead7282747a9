#!/usr/bin/perl
# Static files: GET and HEAD over HTTP/1.0 and 1.1, the reply headers, MIME
# types, DEFAULT_INDEX, the /dir -> /dir/ redirect, 404, large bodies with
# and without sendfile, and EXT_FILE_CMD for unknown suffixes.

use strict;
use warnings;

use Digest::MD5 qw(md5 md5_hex);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);

my $t = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html' });
$t->has('default-index');

my $mtime = 1_000_000_000;		# Sun, 09 Sep 2001 01:46:40 GMT
my $txt = "plain text body\n";
utime($mtime, $mtime, $t->write_file('a.txt', $txt));
$t->write_file('index.html', "<p>root index</p>\n");
$t->write_file('dir/index.html', "<p>dir index</p>\n");
$t->write_file('empty/.keep', '');

my %types = (
	html => qr{text/html}, css => qr{text/css},
	js => qr{(?:text|application)/javascript},
	json => qr{application/json}, svg => qr{image/svg\+xml},
	png => qr{image/png}, jpg => qr{image/jpeg}, gif => qr{image/gif},
	ico => qr{image/(?:x-icon|vnd\.microsoft\.icon)},
	txt => qr{text/plain}, xml => qr{(?:application|text)/xml},
	pdf => qr{application/pdf}, wasm => qr{application/wasm},
	woff2 => qr{font/woff2}, mp4 => qr{video/mp4},
	qqq => qr{application/octet-stream},
);
$t->write_file("type.$_", "x") for keys %types;
$t->write_file('noext', 'x');

my $big = big_data(5 * 1024 * 1024);
$t->write_file('big.bin', $big);

$t->run();

my $date_re = qr/^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/;

# The headers every reply to a file must carry.
sub check_file_reply {
	my ($r, $what, $head) = @_;
	is($r->{status}, 200, "$what: 200");
	like($r->{raw_head} // '', qr{^HTTP/1\.[01] 200 OK\r\n}, "$what: status line");
	my $h = $r->{headers};
	like($h->{date} // '', $date_re, "$what: Date");
	like($h->{server} // '', qr/mrhttpd/i, "$what: Server");
	is($h->{'content-length'}, length $txt, "$what: Content-Length");
	like($h->{'content-type'} // '', qr{^text/plain\b}, "$what: Content-Type");
	is($h->{'last-modified'}, $t->feature('validators') ?
		'Sun, 09 Sep 2001 01:46:40 GMT' : undef, "$what: Last-Modified");
	is($r->{body}, $head ? '' : $txt, $head ? "$what: no body" : "$what: body");
}

for my $v ('1.0', '1.1') {
	my $req = "GET /a.txt HTTP/$v\r\nHost: localhost\r\nConnection: close\r\n\r\n";
	my ($raw) = http($req);
	my ($r, @more) = parse_responses($raw);
	check_file_reply($r, "GET over HTTP/$v");
	ok(!@more, "GET over HTTP/$v: nothing after the body");

	(my $hreq = $req) =~ s/^GET/HEAD/;
	($raw) = http($hreq);
	($r, @more) = parse_responses($raw, head => 1);
	check_file_reply($r, "HEAD over HTTP/$v", 1);
	ok(!@more, "HEAD over HTTP/$v: no body follows the head")
		or diag(explain \@more);
}

# On a kept-alive connection, the reply after a HEAD starts right after its head.
{
	my $s = http_connect();
	http_send($s, "HEAD /a.txt HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n");
	my $r1 = read_response($s, head => 1);
	my $r2 = read_response($s);
	is($r1 && $r1->{status}, 200, 'HEAD then GET: HEAD answered');
	is($r2 && $r2->{status}, 200, 'HEAD then GET: GET answered right after');
	is($r2 && $r2->{body}, "<p>root index</p>\n", 'HEAD then GET: GET body');
}

# MIME types from the suffix table.
for my $ext (sort keys %types) {
	my ($r) = parse_responses(http_get("/type.$ext"));
	like($r->{headers}{'content-type'} // '', qr{^$types{$ext}(?:\s*;.*)?$},
		".$ext is served as $types{$ext}");
}
{
	my ($r) = parse_responses(http_get('/noext'));
	like($r->{headers}{'content-type'} // '',
		qr{^application/octet-stream(?:\s*;.*)?$},
		'no suffix, no EXT_FILE_CMD: application/octet-stream');
}

# DEFAULT_INDEX, the redirect for a directory without its slash, 404.
{
	my ($r) = parse_responses(http_get('/'));
	is($r->{status}, 200, '/ served');
	is($r->{body}, "<p>root index</p>\n", '/ is DEFAULT_INDEX');
	like($r->{headers}{'content-type'} // '', qr{^text/html}, '/ is text/html');

	($r) = parse_responses(http_get('/dir/'));
	is($r->{body}, "<p>dir index</p>\n", '/dir/ is dir/DEFAULT_INDEX');

	($r) = parse_responses(http_get('/dir'));
	is($r->{status}, 301, '/dir redirected');
	like($r->{headers}{location} // '', qr{^(?:http://[^/]+)?/dir/$},
		'/dir redirected to /dir/');

	($r) = parse_responses(http_get('/empty/'));
	like($r->{status}, qr/^40[34]$/, 'directory without index: 403 or 404');

	($r) = parse_responses(http_get('/nonexistent.html'));
	is($r->{status}, 404, 'missing file: 404');
	like($r->{headers}{'content-type'} // '', qr{^text/}, '404 has a text body');
	is($r->{headers}{'content-length'}, length $r->{body},
		'404 Content-Length matches its body');
}

# absolute-form targets are reduced to their path.
{
	my ($r) = parse_responses(http("GET http://localhost/a.txt HTTP/1.1\r\n"
		. "Host: localhost\r\nConnection: close\r\n\r\n"));
	is($r && $r->{body}, $txt, 'absolute-form request target served');
}

# HEAD of a missing file: the 404 head, no body.
{
	my $raw = http("HEAD /nonexistent.html HTTP/1.0\r\n\r\n");
	my ($r, @more) = parse_responses($raw, head => 1);
	is($r && $r->{status}, 404, 'HEAD of a missing file: 404');
	ok(!@more, 'HEAD of a missing file: no body') or diag($raw);
}

# Clients that hang up in the middle of a large body do no harm.
{
	for (1 .. 20) {
		my $s = http_connect();
		http_send($s, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
		sysread($s, my $buf, 1000) if $_ % 2;
		close $s;
	}
	my ($r) = parse_responses(http_get('/a.txt'));
	is($r && $r->{body}, $txt, 'clients hanging up mid-body: server still serves');
	ok($t->alive, 'clients hanging up mid-body: server still running');
}

# Large bodies arrive intact, with sendfile (this build) and without.
sub fetch_big {
	my ($tt, $what) = @_;
	SKIP: {
		skip 'curl not installed', 2 unless MrhttpdTest::find_prog('curl');
		my $out = $tt->testdir . '/big.out';
		my ($rc, $code) = run_cmd('curl', '-s', '--max-time', '30',
			'-o', $out, '-w', '%{http_code}',
			'http://127.0.0.1:' . $tt->port . '/big.bin');
		is($code, '200', "$what: curl gets 200 for a 5 MB file");
		open my $fh, '<:raw', $out;
		my $got = $fh ? do { local $/; <$fh> } // '' : '';
		ok(length($got) == length($big) && md5_hex($got) eq md5_hex($big),
			"$what: 5 MB body is byte-identical")
			or diag('got ' . length($got) . ' bytes');
	}
}
fetch_big($t, 'sendfile build');

my $t2 = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html',
	USE_SENDFILE => 0 });
is($t2->version_info->{features}{sendfile}, 'no', 'USE_SENDFILE=0 build has no sendfile');
$t2->write_file('big.bin', $big);
$t2->run();
fetch_big($t2, 'read/write build');

# EXT_FILE_CMD: the suffix table first, then file(1) for the rest.
SKIP: {
	skip '/usr/bin/file not installed', 6 unless -x '/usr/bin/file';
	my $t3 = MrhttpdTest->new(conf => { EXT_FILE_CMD => '/usr/bin/file' });
	is($t3->version_info->{features}{'ext-file-cmd'}, 'yes',
		'EXT_FILE_CMD build has ext-file-cmd');
	$t3->write_file('noext', "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01"
		. "\x08\x06\0\0\0\x1f\x15\xc4\x89" . ("\0" x 20));
	$t3->write_file('readme.qqq', "just some words\n");
	$t3->write_file('fake.txt', "\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
	$t3->run();
	my ($r) = parse_responses(http_get('/noext'));
	is($r->{status}, 200, 'EXT_FILE_CMD: PNG without suffix served');
	like($r->{headers}{'content-type'} // '', qr{^image/png\b},
		'EXT_FILE_CMD: PNG without suffix is image/png');
	($r) = parse_responses(http_get('/readme.qqq'));
	like($r->{headers}{'content-type'} // '', qr{^text/plain\b},
		'EXT_FILE_CMD: unknown suffix with text is text/plain');
	($r) = parse_responses(http_get('/fake.txt'));
	like($r->{headers}{'content-type'} // '', qr{^text/plain\b},
		'EXT_FILE_CMD: known suffix still comes from the table');
	# started with SIGCHLD ignored (perl's 'IGNORE', some launchers): the
	# kernel reaped file(1) unseen, its answer was lost, and the server
	# killed a pid no longer its own (helper-70)
	my $t5 = MrhttpdTest->new(conf => { EXT_FILE_CMD => '/usr/bin/file' });
	$t5->write_file('noext', slurp($t3->htdocs . '/noext'));
	{
		local $SIG{CHLD} = 'IGNORE';
		$t5->run();
	}
	($r) = parse_responses(http_get('/noext'));
	like($r->{headers}{'content-type'} // '', qr{^image/png\b},
		'EXT_FILE_CMD, started with SIGCHLD ignored: still image/png');
}

# EXT_FILE_CMD that cannot be started (not there, or not in the jail):
# application/octet-stream, and the log says why, once
{
	my $t4 = MrhttpdTest->new(conf => { EXT_FILE_CMD => '/no-such/file' });
	$t4->allow_log(qr/\[warn\] EXT_FILE_CMD/);
	$t4->write_file('a.qqq', "words\n");
	$t4->write_file('b.qqq', "more words\n");
	$t4->run();
	for my $p ('/a.qqq', '/b.qqq') {
		my ($r) = parse_responses(http_get($p));
		is($r->{headers}{'content-type'} // '', 'application/octet-stream',
			"EXT_FILE_CMD not there: $p is application/octet-stream");
	}
	my @w = $t4->log =~ /^.*\[warn\] EXT_FILE_CMD.*$/mg;
	is(scalar @w, 1, '... and the log says so once') or diag($t4->log);
	# posix_spawn says why; under qemu-user it cannot, and the child
	# exits 127, as one whose libraries are not in the jail does
	like($w[0] // '', qr{EXT_FILE_CMD /no-such/file: (?:No such file or directory|exited 127)},
		'... naming the program and why');
}

$t->done_testing();

# Deterministic, incompressible test data of the given size.
sub big_data {
	my ($size) = @_;
	my $d = join '', map { md5("mrhttpd$_") } 0 .. $size / 16;
	return substr($d, 0, $size);
}
