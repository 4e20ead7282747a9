#!/usr/bin/perl
# CGI bodies both ways, streamed: a 100 MB POST echoed back intact, sent
# with Content-Length and chunked, without the server's memory growing; a
# 50 MB response that starts before the program ends (chunked for
# HTTP/1.1, close-delimited for 1.0); a program that writes before it has
# read its input; keep-alive across CGI requests; ab -k with 0 failures.
# Sizes shrink under MRHTTPD_SANITIZE and RUN_WRAPPER (scaled()).

use strict;
use warnings;

use Digest::MD5 qw(md5_hex);
use IO::Select;
use Time::HiRes qw(time sleep);
use Test::More;
use MrhttpdTest;
use MrhttpdCGI qw(cgi_dir script spew slurp wait_for zombies vm_hwm exchange pool);

my $dir = cgi_dir('cgi-51');
my $bin = "$dir/cgi-bin";
my $MB = 1048576;
my $big = scaled(100) * $MB;		# the POST
my $stream = scaled(50) * $MB;		# the streamed response

# echo.pl: the body back, with its Content-Length when the request had one.
script("$bin/echo.pl", <<'EOF');
#!/usr/bin/perl
binmode STDIN;
binmode STDOUT;
print "Content-Type: application/octet-stream\n";
print "X-Content-Length: ", $ENV{CONTENT_LENGTH} // 'unset', "\n";
print "Content-Length: $ENV{CONTENT_LENGTH}\n" if defined $ENV{CONTENT_LENGTH};
print "\n";
$| = 1;
while (my $n = sysread(STDIN, my $buf, 65536)) {
	my $off = 0;
	while ($off < $n) {
		my $w = syswrite(STDOUT, $buf, $n - $off, $off) // die "write: $!";
		$off += $w;
	}
}
EOF
# cat.sh: the same in shell, no Content-Length ever.
script("$bin/cat.sh", "#!/bin/sh\nprintf 'Content-Type: application/octet-stream\\n\\n'\nexec cat\n");

# stream.pl SIZE: SIZE bytes in 64 KiB blocks, the first MiB at once, then
# a pause of a second before the rest; no Content-Length.
my $gen = <<'EOF';
sub block { my ($i) = @_; return substr(sprintf("block %08d\n", $i) x 5000, 0, 65536) }
EOF
script("$bin/stream.pl", "#!/usr/bin/perl\n$gen" . <<'EOF');
my $size = $ENV{QUERY_STRING} || 1048576;
$| = 1;
print "Content-Type: application/octet-stream\n\n";
my ($i, $sent) = (0, 0);
while ($sent < $size) {
	my $b = block($i++);
	$b = substr($b, 0, $size - $sent) if $size - $sent < length $b;
	print $b;
	$sent += length $b;
	sleep 1 if $sent == 1048576;
}
EOF
eval $gen;
die $@ if $@;
sub stream_md5 {
	my ($size) = @_;
	my $m = Digest::MD5->new;
	my ($i, $sent) = (0, 0);
	while ($sent < $size) {
		my $b = block($i++);
		$b = substr($b, 0, $size - $sent) if $size - $sent < length $b;
		$m->add($b);
		$sent += length $b;
	}
	return $m->hexdigest;
}

# writefirst.pl: 1 MiB of output before it reads a byte, then the md5 of
# its input.
script("$bin/writefirst.pl", <<'EOF');
#!/usr/bin/perl
use Digest::MD5;
binmode STDIN;
$| = 1;
print "Content-Type: text/plain\n\n", "x" x 1048576, "\n";
my $m = Digest::MD5->new;
my $n = 0;
while (my $k = sysread(STDIN, my $buf, 65536)) { $m->add($buf); $n += $k }
print "read $n md5 ", $m->hexdigest, "\n";
EOF
# talk.pl: each line of input back at once, upper-cased, until "bye".
script("$bin/talk.pl", <<'EOF');
#!/usr/bin/perl
$| = 1;
print "Content-Type: text/plain\n\n";
while (my $l = <STDIN>) { print uc $l; last if $l =~ /^bye/ }
EOF
script("$bin/len.sh", "#!/bin/sh\nprintf 'Content-Type: text/plain\\r\\nContent-Length: 9\\r\\n\\r\\nwith len\\n'\n");
script("$bin/nolen.sh", "#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\nno length\\n'\n");
script("$bin/noread.sh", "#!/bin/sh\nprintf 'Content-Type: text/plain\\nContent-Length: 8\\n\\nignored\\n'\n");

my $t = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
$t->has('cgi');
$t->run();
my $pid = $t->pid;

sub hwm_mb { return (vm_hwm($pid) // 0) / 1024 }

# Warm up (a first request of each kind) before the baseline.
exchange(head => "POST /cgi-bin/echo.pl HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n"
	. "Connection: close\r\n\r\n", size => 100000);
my $hwm0 = hwm_mb();

# --- 100 MB echoed, with Content-Length ---------------------------------------------
my $mb = $big / $MB;
my $r = exchange(head => "POST /cgi-bin/echo.pl HTTP/1.1\r\nHost: x\r\nContent-Length: $big\r\n"
	. "Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n", size => $big,
	keep => 0, timeout => 60);
is($r->{status}, 200, "$mb MB POST with Content-Length: 200");
is($r->{headers}{'x-content-length'}, $big, '... the program saw CONTENT_LENGTH');
is($r->{headers}{'content-length'}, $big, '... and its Content-Length is used');
ok(!exists $r->{headers}{'transfer-encoding'}, '... without chunked on top');
is($r->{body_len}, $big, '... every byte came back');
is($r->{body_md5}, $r->{sent_md5}, '... intact (md5)');
note(sprintf "%d MB echo with Content-Length: %.2f s", $mb, $r->{done_at});

# --- 100 MB echoed, sent chunked (and 100-continue) --------------------------------
$r = exchange(head => "POST /cgi-bin/echo.pl HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
	. "Expect: 100-continue\r\nConnection: close\r\n\r\n", size => $big, chunk => 65000,
	wait_continue => 1, keep => 0, timeout => 60);
ok($r->{continue_seen}, "$mb MB chunked POST with Expect: 100-continue: 100 Continue first");
is($r->{status}, 200, "$mb MB chunked POST: 200");
is($r->{headers}{'x-content-length'}, 'unset', '... CONTENT_LENGTH unset for a chunked body');
is($r->{headers}{'transfer-encoding'}, 'chunked', '... the echo comes back chunked');
ok($r->{complete}, '... with its last chunk');
is($r->{body_len}, $big, '... every byte came back');
is($r->{body_md5}, $r->{sent_md5}, '... intact (md5)');
note(sprintf "%d MB echo, chunked: %.2f s", $mb, $r->{done_at});

my $grew = hwm_mb() - $hwm0;
ok($grew < 16, sprintf('the server\'s peak RSS grew by %.1f MB for 2 x %d MB (< 16 MB)', $grew, $mb))
	or diag(sprintf 'VmHWM before %.1f MB, after %.1f MB', $hwm0, hwm_mb());

# Many tiny chunks, and a shell program, no Content-Length either way.
{
	my $body = join '', map { chr(65 + $_ % 26) } 1 .. 30000;
	$r = exchange(head => "POST /cgi-bin/cat.sh HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
		. "Connection: close\r\n\r\n", body => $body, chunk => 7);
	is($r->{body}, $body, '30,000 bytes in chunks of 7 through cat: intact');
}

# A real client: curl, chunked upload.
SKIP: {
	skip 'curl is not installed', 3 unless MrhttpdTest::find_prog('curl');
	my $f = $t->testdir . '/upload.bin';
	my $n = scaled(20) * $MB;
	open my $fh, '>:raw', $f or die;
	print $fh substr(pool(), 0, $MB) x ($n / $MB);
	close $fh;
	my $out = $t->testdir . '/curl.out';
	my ($rc, $msg) = run_cmd('curl', '-sS', '-o', $out, '-w', '%{http_code}',
		'-H', 'Transfer-Encoding: chunked', '-H', 'Content-Type: application/octet-stream',
		'--data-binary', "\@$f", 'http://127.0.0.1:' . $t->port . '/cgi-bin/cat.sh');
	is($rc, 0, 'curl chunked upload: curl exits 0') or diag($msg);
	is($msg, '200', 'curl chunked upload: 200');
	is(md5_hex(slurp($out) // ''), md5_hex(slurp($f)), "curl chunked upload of $n bytes: echoed intact");
	unlink $f, $out;
}

# --- a program that writes before it reads -------------------------------------------
$r = exchange(head => "POST /cgi-bin/writefirst.pl HTTP/1.1\r\nHost: x\r\nContent-Length: "
	. (4 * $MB) . "\r\nConnection: close\r\n\r\n", size => 4 * $MB, timeout => 20);
like($r->{body}, qr/read ${\(4 * $MB)} md5 $r->{sent_md5}\n\z/,
	'a program writing 1 MiB before reading 4 MiB of input: no deadlock, all input read');

# Both ways at once: the client sends the next line of a chunked body
# only once the answer to the last has come.  The output must not wait for
# more of the body (it waited for the next piece, so for ever here).
{
	my $s = http_connect();
	http_send($s, "POST /cgi-bin/talk.pl HTTP/1.1\r\nHost: x\r\n"
		. "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
	my ($got, $sel) = ('', IO::Select->new($s));
	my $ok = 1;
	for my $w (qw(one two three bye)) {
		http_send($s, sprintf("%x\r\n%s\n\r\n", length($w) + 1, $w));
		my $until = time + 5 * ($ENV{RUN_WRAPPER} ? 3 : 1);
		while ($got !~ /\U$w\E\n/ && (my $left = $until - time) > 0) {
			last unless $sel->can_read($left);
			sysread($s, $got, 65536, length $got) or last;
		}
		$ok = 0, last unless $got =~ /\U$w\E\n/;
	}
	ok($ok, 'a conversation over one chunked POST: each line answered before the next is sent')
		or diag("got: $got");
	http_send($s, "0\r\n\r\n");
	close $s;
}

# A program that reads none of a big body: its answer still arrives.
$r = exchange(head => "POST /cgi-bin/noread.sh HTTP/1.1\r\nHost: x\r\nContent-Length: "
	. (10 * $MB) . "\r\n\r\n", size => 10 * $MB, timeout => 20);
is($r->{status}, 200, 'a program that reads none of a 10 MiB body: 200');
is($r->{body}, "ignored\n", '... its answer arrives whole');
close $r->{sock};

# --- a streamed 50 MB response -----------------------------------------------------------
my $smd5 = stream_md5($stream);
$r = exchange(head => "GET /cgi-bin/stream.pl?$stream HTTP/1.1\r\nHost: x\r\n\r\n", keep => 0,
	timeout => 30);
is($r->{status}, 200, "streamed $stream bytes, HTTP/1.1: 200");
is($r->{headers}{'transfer-encoding'}, 'chunked', '... chunked');
ok(!exists $r->{headers}{'content-length'}, '... no Content-Length');
ok($r->{complete}, '... ends with the last chunk');
is($r->{body_len}, $stream, '... every byte');
is($r->{body_md5}, $smd5, '... intact (md5)');
ok(defined $r->{first_body_at} && $r->{first_body_at} < 0.9 && $r->{done_at} >= 1,
	sprintf('... the first bytes came before the program ended (%.2f s, all after %.2f s)',
		$r->{first_body_at} // -1, $r->{done_at}));
# the same connection goes on
http_send($r->{sock}, "GET /cgi-bin/len.sh HTTP/1.1\r\nHost: x\r\n\r\n");
my $r2 = read_response($r->{sock});
is($r2 && $r2->{body}, "with len\n", '... and the connection serves the next request');
close $r->{sock};

$r = exchange(head => "GET /cgi-bin/stream.pl?$stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
	keep => 0, timeout => 30);
is($r->{status}, 200, "streamed $stream bytes, HTTP/1.0: 200");
ok(!exists $r->{headers}{'transfer-encoding'} && !exists $r->{headers}{'content-length'},
	'... neither chunked nor a length');
is($r->{headers}{connection}, 'close', '... Connection: close');
ok($r->{closed}, '... the server closes the connection at the end');
is($r->{body_len}, $stream, '... every byte');
is($r->{body_md5}, $smd5, '... intact (md5)');
ok(defined $r->{first_body_at} && $r->{first_body_at} < 0.9 && $r->{done_at} >= 1,
	sprintf('... the first bytes came before the program ended (%.2f s)', $r->{first_body_at} // -1));
$grew = hwm_mb() - $hwm0;
ok($grew < 16, sprintf('peak RSS grew by %.1f MB after the streamed responses too', $grew));

# --- keep-alive across CGI -------------------------------------------------------------
{
	my $s = http_connect();
	http_send($s, "GET /cgi-bin/len.sh HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
	my $a = read_response($s);
	is($a->{headers}{connection}, 'keep-alive', 'HTTP/1.0 keep-alive, program with Content-Length: kept alive');
	is($a->{body}, "with len\n", '... its body');
	http_send($s, "GET /cgi-bin/len.sh HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
	my $b = read_response($s);
	is($b && $b->{body}, "with len\n", '... a second request on the same connection');
	my $c = exchange(sock => $s, head => "GET /cgi-bin/nolen.sh HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
		timeout => 3);
	is($c->{headers}{connection}, 'close', 'HTTP/1.0, program without Content-Length: Connection: close');
	is($c->{body}, "no length\n", '... its body runs to the close');
	ok($c->{closed} && !$c->{timed_out}, '... and the server closes');
}
{
	my $c = exchange(head => "GET /cgi-bin/nolen.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	is($c->{headers}{'transfer-encoding'}, 'chunked', 'HTTP/1.1, program without Content-Length: chunked');
	ok($c->{complete} && !$c->{closed}, '... complete, and the connection stays open');
	is($c->{body}, "no length\n", '... its body');
	my $d = exchange(sock => $c->{sock}, head => "GET /cgi-bin/nolen.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	ok($d->{complete} && $d->{body} eq "no length\n", '... a second chunked response on the same connection');
	my $e = exchange(sock => $c->{sock}, head => "POST /cgi-bin/echo.pl HTTP/1.1\r\nHost: x\r\n"
		. "Content-Length: 5\r\n\r\n", body => 'abcde');
	is($e->{body}, 'abcde', '... then a POST with a body');
	my $f = exchange(sock => $c->{sock}, head => "POST /cgi-bin/echo.pl HTTP/1.1\r\nHost: x\r\n"
		. "Transfer-Encoding: chunked\r\n\r\n", body => 'chunky', chunk => 2);
	is($f->{body}, 'chunky', '... then a chunked POST');
	my $g = exchange(sock => $c->{sock}, head => "POST /cgi-bin/noread.sh HTTP/1.1\r\nHost: x\r\n"
		. "Content-Length: 3000\r\n\r\n", body => 'z' x 3000);
	is($g->{body}, "ignored\n", '... a program that does not read its body');
	my $h = exchange(sock => $c->{sock}, head => "GET /cgi-bin/len.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	is($h->{body}, "with len\n", '... and still the next request after it');
	close $c->{sock};
}
{
	# pipelined: three requests in one write
	my $raw = http("GET /cgi-bin/len.sh HTTP/1.1\r\nHost: x\r\n\r\n"
		. "POST /cgi-bin/echo.pl HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\npipe"
		. "GET /cgi-bin/len.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	my @rs = parse_responses($raw);
	is(join(',', map { $_->{status} } @rs), '200,200,200', 'three pipelined CGI requests: three answers');
	is(join('|', map { $_->{body} } @rs), "with len\n|pipe|with len\n", '... in order, each with its body');
}
{
	# pipelined after a chunked body: the program's body is read 4 KiB at
	# a time, and a next request longer than what that read left was lost
	my $raw = http("POST /cgi-bin/echo.pl HTTP/1.1\r\nHost: x\r\n"
		. "Transfer-Encoding: chunked\r\n\r\n4\r\npipe\r\n0\r\n\r\n"
		. "GET /cgi-bin/len.sh HTTP/1.1\r\nHost: x\r\nX-Pad: " . ('p' x 5000) . "\r\n"
		. "Connection: close\r\n\r\n");
	# both replies are chunked, which parse_responses does not undo
	my @st = $raw =~ m{^HTTP/1\.1 (\d+)}mg;
	is("@st", '200 200',
		'a chunked POST, then a 5,000-byte request pipelined: both answered');
	like($raw, qr/\r\n4\r\npipe\r\n0\r\n\r\nHTTP.*\r\nwith len\n/s,
		'... each with its own body');
}

# --- ab -k -c 10 --------------------------------------------------------------------------
SKIP: {
	skip "'ab' is not installed (apt-get install apache2-utils)", 5
		unless MrhttpdTest::find_prog('ab');
	my $n = scaled(2000);
	my $url = 'http://127.0.0.1:' . $t->port;
	my ($rc, $out) = run_cmd('ab', '-q', '-k', '-c', 10, '-n', $n, '-s', 30, "$url/cgi-bin/len.sh");
	my ($failed) = $out =~ /^Failed requests:\s+(\d+)/m;
	my ($done) = $out =~ /^Complete requests:\s+(\d+)/m;
	my ($ka) = $out =~ /^Keep-Alive requests:\s+(\d+)/m;
	my ($non2xx) = $out =~ /^Non-2xx responses:\s+(\d+)/m;
	my ($rps) = $out =~ /^Requests per second:\s+([\d.]+)/m;
	is($rc, 0, "ab -k -c 10 -n $n on a CGI: ab exits 0") or diag($out);
	ok(($done // 0) == $n && ($failed // -1) == 0 && !$non2xx,
		"ab -k: $n complete, 0 failed, no non-2xx") or diag($out);
	is($ka, $n, 'ab -k: every request kept alive (the program gave its length)');
	($rc, $out) = run_cmd('ab', '-q', '-k', '-c', 10, '-n', scaled(1000), '-s', 30, "$url/cgi-bin/nolen.sh");
	($failed) = $out =~ /^Failed requests:\s+(\d+)/m;
	ok($rc == 0 && defined $failed && $failed == 0,
		'ab -k on a program without Content-Length (HTTP/1.0: close): 0 failed') or diag($out);
	note("CGI under ab -k -c 10: ${\($rps // '?')} requests/s");

	# ten uploads at a time, each echoed: ab fails a request whose
	# length differs from the first
	my $post = $t->testdir . '/post.bin';
	spew($post, substr(pool(), 0, 65536));
	my $np = scaled(300);
	($rc, $out) = run_cmd('ab', '-q', '-k', '-c', 10, '-n', $np, '-s', 30, '-p', $post,
		'-T', 'application/octet-stream', "$url/cgi-bin/echo.pl");
	($failed) = $out =~ /^Failed requests:\s+(\d+)/m;
	($done) = $out =~ /^Complete requests:\s+(\d+)/m;
	my ($len) = $out =~ /^Document Length:\s+(\d+)/m;
	ok($rc == 0 && ($done // 0) == $np && defined $failed && $failed == 0 && ($len // 0) == 65536,
		"ab -k -c 10 -n $np -p (64 KiB POSTs echoed): 0 failed, every echo 65536 bytes")
		or diag($out);
}

ok(wait_for(sub { zombies($pid) == 0 }, 3), 'no zombies');
$t->done_testing();
