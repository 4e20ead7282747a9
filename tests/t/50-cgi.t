#!/usr/bin/perl
# CGI/1.1 (RFC 3875) with real programs: the environment a Perl script
# (core modules only) and shell scripts (dash, and Debian's BusyBox sh)
# see, how request paths map to programs below CGI_DIR (and never outside
# it), request bodies on stdin, and how the program's output becomes the
# response: Status, Location, LF or CRLF header blocks, nph- programs,
# 500 and 502 with a log line naming the script, stderr in the log.

use strict;
use warnings;

use Digest::MD5 qw(md5_hex);
use IO::Select;
use IO::Socket::IP;
use JSON::PP;
use Socket qw(SHUT_WR);
use Time::HiRes qw(time sleep);
use POSIX ();
use Test::More;
use MrhttpdTest;
use MrhttpdCGI qw(cgi_dir script spew slurp wait_for zombies children);

my $dir = cgi_dir('cgi-50');
my $bin = "$dir/cgi-bin";
my $marker_file = "$dir/OUTSIDE-RAN";
my $BUSYBOX = MrhttpdTest::find_prog('busybox');

# --- the programs -----------------------------------------------------------------

# env.pl: everything a CGI program can learn, as JSON.
my $env_pl = <<'EOF';
#!/usr/bin/perl
use strict;
use warnings;
use Cwd qw(getcwd);
use Digest::MD5 qw(md5_hex);
use JSON::PP;
binmode STDIN;
my $body = do { local $/; <STDIN> } // '';
my %fd;
if (opendir(my $d, '/proc/self/fd')) {
	for (grep { /^\d+$/ } readdir $d) {
		my $l = readlink("/proc/self/fd/$_") // '?';
		$fd{$_} = $l unless $l =~ m{^/proc/\d+/fd$};	# this listing
	}
}
print "Content-Type: application/json\r\n\r\n";
print JSON::PP->new->canonical->ascii->encode({ env => \%ENV,
	cwd => getcwd(), pid => $$, pgrp => getpgrp(), argv => [@ARGV],
	body_len => length $body, body_md5 => md5_hex($body),
	body => length $body < 4096 ? $body : '', fds => \%fd });
EOF
script("$bin/env.pl", $env_pl);
script("$bin/sub/env.pl", $env_pl);

# echo.pl: the request body back, with Content-Length when it had one.
script("$bin/echo.pl", <<'EOF');
#!/usr/bin/perl
binmode STDIN;
binmode STDOUT;
$| = 1;
print "Content-Type: application/octet-stream\n";
print "X-Content-Length: ", $ENV{CONTENT_LENGTH} // 'unset', "\n";
print "Content-Length: $ENV{CONTENT_LENGTH}\n" if defined $ENV{CONTENT_LENGTH};
print "\n";
while (sysread(STDIN, my $buf, 65536)) {
	syswrite(STDOUT, $buf);
}
EOF

script("$bin/hello.sh", "#!/bin/sh\necho 'Content-Type: text/plain'\necho\necho \"hello from \$0\"\n");
script("$bin/sub/hello.sh", "#!/bin/sh\nprintf 'Content-Type: text/plain\\n\\nsub hello\\n'\n");
spew("$bin/noexec.sh", "#!/bin/sh\necho 'Content-Type: text/plain'\necho\necho ran\n", 0644);
# Programs outside CGI_DIR that must never run: they leave a marker.
my $outside = "#!/bin/sh\necho \$0 >> '$marker_file'\n"
	. "printf 'Content-Type: text/plain\\n\\nOUTSIDE %s\\n' RAN\n";
script("$dir/outside.sh", $outside);

# BusyBox sh (Debian's busybox-static), outside a jail.
if ($BUSYBOX) {
	script("$bin/bb.sh", <<"EOF");
#!$BUSYBOX sh
printf 'Content-Type: text/plain\\r\\n\\r\\n'
echo "shell=\$(readlink /proc/\$\$/exe)"
echo "GATEWAY_INTERFACE=\$GATEWAY_INTERFACE"
echo "REQUEST_METHOD=\$REQUEST_METHOD"
echo "QUERY_STRING=\$QUERY_STRING"
echo "PATH_INFO=\$PATH_INFO"
echo "CONTENT_LENGTH=\$CONTENT_LENGTH"
echo "pwd=\$(pwd)"
echo "stdin=\$(cat)"
EOF
}

# Responses.
my %out = (
	'status404.sh'	=> "Status: 404 Not Here\nContent-Type: text/plain\n\nmissing thing\n",
	'status201.sh'	=> "Status: 201\r\nContent-Type: text/plain\r\nX-Created: yes\r\n\r\ncreated\n",
	'status204.sh'	=> "Status: 204 No Content\n\n",
	'status205.sh'	=> "Status: 205\nContent-Type: text/plain\n\nbody of a 205\n",
	'local.sh'	=> "Location: /target.txt\nContent-Type: text/html\nX-Dropped: 1\n\n<p>not this</p>\n",
	'localq.sh'	=> "Location: /target.txt?x=1\n\n",
	'local-cgi.sh'	=> "Location: /cgi-bin/hello.sh\n\n",
	'absolute.sh'	=> "Location: http://example.org/elsewhere?a=b\n\n",
	'moved.sh'	=> "Status: 301 Moved Permanently\nLocation: /new/place\nContent-Type: text/plain\n\nmoved\n",
	'lf.sh'		=> "Content-Type: text/plain\nX-Style: lf\n\nlf body\n",
	'crlf.sh'	=> "Content-Type: text/plain\r\nX-Style: crlf\r\n\r\ncrlf body\r\n",
	'mixed.sh'	=> "Content-Type: text/plain\r\nX-Style: mixed\n\r\nmixed body\n",
	'hop.sh'	=> "Content-Type: text/plain\nConnection: close\nTransfer-Encoding: gzip\n"
		. "Keep-Alive: timeout=99\nServer: evil/1.0\nDate: Thu, 01 Jan 1970 00:00:00 GMT\n"
		. "X-Kept: kept\nSet-Cookie: a=1\nSet-Cookie: b=2\n\nhop body\n",
	'clen.sh'	=> "Content-Type: text/plain\nContent-Length: 6\n\nsix!\n\n",
	'clen-more.sh'	=> "Content-Type: text/plain\nContent-Length: 4\n\n0123456789",
	'clen-less.sh'	=> "Content-Type: text/plain\nContent-Length: 100\n\nonly this",
	'nph-raw.sh'	=> "HTTP/1.1 203 Raw Stuff\r\nContent-Type: text/x-nph\r\nX-Nph: 1\r\n\r\nnph body, as is\n",
	'bad-line.sh'	=> "Content-Type: text/plain\nthis line has no colon\n\nbody\n",
	'bad-name.sh'	=> "Content-Type: text/plain\nBad Name: x\n\nbody\n",
	'bad-status.sh'	=> "Status: abc\nContent-Type: text/plain\n\nbody\n",
	'bad-status6.sh' => "Status: 600 Nope\nContent-Type: text/plain\n\nbody\n",
	'no-type.sh'	=> "X-Only: this\n\nbody without a type\n",
	'bare-body.sh'	=> "\nno header block at all\n",
	# reason phrases, as the status line carries them or must not
	'why-obs.sh'	=> "Status: 299 \xc3\xa9t\xc3\xa9\nContent-Type: text/plain\n\nx\n",
	'why-64.sh'	=> "Status: 404 " . ('y' x 64) . "\nContent-Type: text/plain\n\nx\n",
	'why-65.sh'	=> "Status: 404 " . ('x' x 65) . "\nContent-Type: text/plain\n\nx\n",
	'why-65n.sh'	=> "Status: 299 " . ('x' x 65) . "\nContent-Type: text/plain\n\nx\n",
	'why-tab.sh'	=> "Status: 200 A\tB\nContent-Type: text/plain\n\nx\n",
	'why-lead.sh'	=> "Status: 200  lead\nContent-Type: text/plain\n\nx\n",
	'why-fine.sh'	=> "Status: 200 Fine\nContent-Type: text/plain\n\nx\n",
	'why-cr.sh'	=> "Status: 200 OK\rX-Evil: 1\nContent-Type: text/plain\n\nx\n",
	'why-vt.sh'	=> "Status: 200 O\x0bK\nContent-Type: text/plain\n\nx\n",
	'why-go.sh'	=> "Status: 302 Go There\nLocation: /target.txt\n\n",
);
for my $name (keys %out) {
	my $text = $out{$name};
	$text =~ s/\\/\\\\/g;
	$text =~ s/'/'\\''/g;
	script("$bin/$name", "#!/bin/sh\nprintf '%s' '$text'\n");
}
script("$bin/long-head.sh", "#!/bin/sh\nprintf 'Content-Type: text/plain\\n'\n"
	. "i=0; while [ \$i -lt 300 ]; do printf 'X-Filler-%03d: 0123456789012345678901234567890123456789\\n' \$i; i=\$((i+1)); done\n"
	. "printf '\\nbody\\n'\n");
script("$bin/silent.sh", "#!/bin/sh\nexit 0\n");
# an nph- program frames its own reply: one that writes nothing has none
script("$bin/nph-silent.sh", "#!/bin/sh\nexit 0\n");
# an invalid header block, and the program runs on for two seconds
script("$bin/bad-slow.sh", "#!/bin/sh\nprintf 'garbage header\\n\\n'\nsleep 2\necho more\n");
# ... or for 30 s; and one that closes its stdout unheard and runs on
script("$bin/bad-long.sh", "#!/bin/sh\nprintf 'garbage header\\n\\n'\nexec sleep 30\n");
script("$bin/mute-long.sh", "#!/bin/sh\nexec >&-\nexec sleep 30\n");
# an nph- program whose status line has no number
script("$bin/nph-weird.sh", "#!/bin/sh\nprintf 'HTTP/1.1 9zz Weird\\r\\nContent-Length: 2\\r\\n\\r\\nok'\n");
script("$bin/dies.sh", "#!/bin/sh\nprintf 'Content-Type: text/pl'\necho 'dying now' >&2\nexit 3\n");
script("$bin/stderr.sh", "#!/bin/sh\necho 'first stderr line' >&2\n"
	. "printf 'Content-Type: text/plain\\n\\nout\\n'\necho 'second stderr line' >&2\n"
	. "printf 'no newline at the end' >&2\n");
# Header lines arrive in pieces, the end of the block in a later write.
script("$bin/slow-head.sh", "#!/bin/sh\nprintf 'Content-Type: te'\nsleep 0.2\n"
	. "printf 'xt/plain\\nX-Late: 1\\n'\nsleep 0.2\nprintf '\\nlate body\\n'\n");

my $json = JSON::PP->new;
my $target = "static target file\n";

# --- a server ---------------------------------------------------------------------
my $t = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
$t->has('cgi');
$t->write_file('target.txt', $target);
spew($t->htdocs . '/outside.sh', $outside, 0755);	# in PUBLIC_DIR: static
my %leak = (MRHTTPD_LEAK_MARKER => 'leak-marker-7f3a', HTTP_PROXY => 'http://leak.invalid:3128',
	CONTENT_LENGTH => '12345', SERVER_NAME => 'leak.invalid', LD_PRELOAD => '');
$t->run({ env => \%leak });
my $port = $t->port;

# req(METHOD, PATH, HEADERS..., [\BODY]): one request on its own
# connection (HTTP/1.1, Connection: close); the parsed response.
sub req {
	my ($method, $path, @h) = @_;
	my $body = ref $h[-1] ? ${ pop @h } : undef;
	my $version = $path =~ s/ (HTTP\/1\.[01])$// ? $1 : 'HTTP/1.1';
	my $host = grep({ /^Host:/i } @h) ? '' : "Host: localhost\r\n";
	my $raw = "$method $path $version\r\n$host"
		. join('', map { "$_\r\n" } @h)
		. (defined $body ? 'Content-Length: ' . length($body) . "\r\n" : '')
		. "Connection: close\r\n\r\n" . ($body // '');
	my ($r) = parse_responses(http($raw), $method eq 'HEAD' ? (head => 1) : ());
	$r //= { status => 0, headers => {}, body => '' };
	if (($r->{headers}{'transfer-encoding'} // '') =~ /chunked/ && $method ne 'HEAD') {
		($r->{body}, $r->{last_chunk}) = MrhttpdCGI::dechunk($r->{body});
	}
	return $r;
}

# env_of(RESPONSE): the JSON env.pl printed, or {}.
sub env_of {
	my ($r) = @_;
	my $body = $r->{body} // '';
	if (($r->{headers}{'transfer-encoding'} // '') =~ /chunked/
	    && !exists $r->{last_chunk}) {
		($body) = MrhttpdCGI::dechunk($body);
	}
	my $d = eval { $json->decode($body) };
	diag("not JSON: status $r->{status}: " . substr($body, 0, 300)) unless $d;
	return $d // { env => {} };
}

# --- the environment (RFC 3875 4.1) -----------------------------------------------
my $sock = http_connect();
my $cport = $sock->sockport;
http_send($sock, "GET /cgi-bin/env.pl HTTP/1.1\r\nHost: www.example.org:8080\r\n"
	. "User-Agent: cgi-test/1.0\r\nAccept: text/*\r\nX-Custom-Header: custom value\r\n"
	. "x-lower-case: low\r\nX-Digits-123: d\r\nProxy: http://evil.invalid:8080\r\n"
	. "Authorization: Basic dXNlcjpwYXNz\r\nX_Under_Score: u\r\nX.Dot: d\r\n"
	. "X-Empty:\r\nConnection: close\r\n\r\n");
my ($r) = parse_responses(http(undef, sock => $sock));
is($r->{status}, 200, 'env.pl: 200');
is($r->{headers}{'content-type'}, 'application/json', 'env.pl: its Content-Type is passed on');
my $d = env_of($r);
my $e = $d->{env};
my %want = (
	GATEWAY_INTERFACE => 'CGI/1.1',
	SERVER_PROTOCOL => 'HTTP/1.1',
	REQUEST_METHOD => 'GET',
	REQUEST_URI => '/cgi-bin/env.pl',
	QUERY_STRING => '',
	SCRIPT_NAME => '/cgi-bin/env.pl',
	SCRIPT_FILENAME => "$bin/env.pl",
	DOCUMENT_ROOT => $t->htdocs,
	REMOTE_ADDR => '127.0.0.1',
	REMOTE_PORT => $cport,
	SERVER_ADDR => '127.0.0.1',
	SERVER_PORT => $port,
	SERVER_NAME => 'www.example.org',
	REDIRECT_STATUS => '200',
	PATH => '/usr/local/bin:/usr/bin:/bin',
	HTTP_HOST => 'www.example.org:8080',
	HTTP_USER_AGENT => 'cgi-test/1.0',
	HTTP_ACCEPT => 'text/*',
	HTTP_X_CUSTOM_HEADER => 'custom value',
	HTTP_X_LOWER_CASE => 'low',
	HTTP_X_DIGITS_123 => 'd',
	HTTP_X_EMPTY => '',
	HTTP_CONNECTION => 'close',
);
for my $k (sort keys %want) {
	is($e->{$k}, $want{$k}, "env: $k");
}
like($e->{SERVER_SOFTWARE} // '', qr{^mrhttpd/\d+\.\d+}, 'env: SERVER_SOFTWARE is mrhttpd/VERSION');
ok(!exists $e->{$_}, "env: no $_ on a GET without a body or path info")
	for qw(CONTENT_LENGTH CONTENT_TYPE PATH_INFO PATH_TRANSLATED AUTH_TYPE REMOTE_USER);
ok(!exists $e->{HTTP_PROXY}, 'env: a Proxy header never becomes HTTP_PROXY (httpoxy)');
ok(!exists $e->{HTTP_AUTHORIZATION}, 'env: no HTTP_AUTHORIZATION without CGI_AUTHORIZATION');
ok(!grep({ /UNDER|DOT/ } keys %$e), 'env: header names outside [A-Za-z0-9-] are dropped')
	or diag(join ' ', grep { /UNDER|DOT/ } keys %$e);
my @allowed = qw(AUTH_TYPE CONTENT_LENGTH CONTENT_TYPE GATEWAY_INTERFACE PATH_INFO
	PATH_TRANSLATED QUERY_STRING REMOTE_ADDR REMOTE_PORT REMOTE_USER REQUEST_METHOD
	REQUEST_URI SCRIPT_NAME SCRIPT_FILENAME SERVER_NAME SERVER_PORT SERVER_PROTOCOL
	SERVER_SOFTWARE SERVER_ADDR DOCUMENT_ROOT REDIRECT_STATUS PATH);
my %allowed = map { $_ => 1 } @allowed;
my @extra = grep { !$allowed{$_} && !/^HTTP_[A-Z0-9_]+$/ } sort keys %$e;
ok(!@extra, 'env: nothing but RFC 3875 variables, HTTP_* and PATH')
	or diag("extra: @extra");
ok(!grep({ /leak/ } values %$e), 'env: nothing of the server\'s own environment leaks')
	or diag(join "\n", grep { /leak/ } map { "$_=$e->{$_}" } sort keys %$e);
is($d->{cwd}, $bin, 'the program runs in its own directory');
is($d->{pgrp}, $d->{pid}, 'the program leads a process group of its own');
is_deeply($d->{argv}, [], 'no command-line arguments');
{
	# Descriptors: only stdin, stdout and stderr, apart from any the
	# server itself inherited without close-on-exec from whoever started
	# it (the test harness, say), which are not the server's to close.
	my %inherited;
	for my $f (glob '/proc/' . $t->pid . '/fdinfo/*') {
		my ($n) = $f =~ /(\d+)$/;
		my ($flags) = (slurp($f) // '') =~ /^flags:\s+(\d+)/m;
		$inherited{$n} = 1 if $n > 2 && defined $flags && !(oct($flags) & 02000000);
	}
	my @leaked = grep { $_ > 2 && !$inherited{$_} } sort { $a <=> $b } keys %{ $d->{fds} };
	ok(!@leaked, 'no descriptor of the server leaks into the program')
		or diag(join "\n", map { "$_ -> $d->{fds}{$_}" } @leaked);
	like($d->{fds}{$_} // '', qr/^pipe:/, "fd $_ is a pipe") for 0 .. 2;
}

# RFC 3875 4.1.18: fields of the same name are one variable with the
# values joined, as HTTP would join them (RFC 9110 5.3).
{
	my $rr = req('GET', '/cgi-bin/env.pl', 'X-Repeated: one', 'X-Repeated: two');
	is(env_of($rr)->{env}{HTTP_X_REPEATED}, 'one, two',
		'env: a repeated header field becomes one variable with both values');
}

# Path info, query, and what is raw and what decoded.
$r = req('GET', '/cgi-bin/env.pl/some/path%20x/y.html?a=1&b=%20c&d');
$e = env_of($r)->{env};
is($e->{PATH_INFO}, '/some/path x/y.html', 'PATH_INFO: the rest of the path, decoded');
is($e->{PATH_TRANSLATED}, $t->htdocs . '/some/path x/y.html',
	'PATH_TRANSLATED: PATH_INFO below the document root');
is($e->{QUERY_STRING}, 'a=1&b=%20c&d', 'QUERY_STRING: as sent, not decoded');
is($e->{REQUEST_URI}, '/cgi-bin/env.pl/some/path%20x/y.html?a=1&b=%20c&d',
	'REQUEST_URI: the request target as sent');
is($e->{SCRIPT_NAME}, '/cgi-bin/env.pl', 'SCRIPT_NAME without the path info');
$e = env_of(req('GET', '/cgi-bin/env.pl/'))->{env};
is($e->{PATH_INFO}, '/', 'a trailing / alone is PATH_INFO "/"');
# a path past PATH_DEPTH_MAX (64 slashes) or above the root is refused
# whatever the method, not taken for a file's (405 for a POST)
for my $m (qw(GET POST DELETE)) {
	is(req($m, '/cgi-bin/env.pl' . '/p' x 63, \'')->{status}, 414,
		"$m of a program with PATH_INFO of 63 segments (65 slashes): 414");
	is(req($m, '/cgi-bin/../../env.pl', \'')->{status}, 400,
		"$m of a path above the root: 400");
}
$e = env_of(req('GET', '/cgi-bin/env.pl?'))->{env};
is($e->{QUERY_STRING}, '', 'an empty query: QUERY_STRING empty');

# Programs in a subdirectory run there.
$d = env_of(req('GET', '/cgi-bin/sub/env.pl/x'));
is($d->{cwd}, "$bin/sub", 'a program in a subdirectory runs in that directory');
is($d->{env}{SCRIPT_NAME}, '/cgi-bin/sub/env.pl', '... its SCRIPT_NAME');
is($d->{env}{SCRIPT_FILENAME}, "$bin/sub/env.pl", '... its SCRIPT_FILENAME');
is($d->{env}{PATH_INFO}, '/x', '... its PATH_INFO');

# HTTP/1.0, and a Host-less request.
$e = env_of(req('GET', '/cgi-bin/env.pl HTTP/1.0'))->{env};
is($e->{SERVER_PROTOCOL}, 'HTTP/1.0', 'SERVER_PROTOCOL HTTP/1.0 for a 1.0 request');
($r) = parse_responses(http("GET /cgi-bin/env.pl HTTP/1.0\r\n\r\n"));
$e = env_of($r)->{env};
ok(length($e->{SERVER_NAME} // ''), 'SERVER_NAME is set without a Host header too')
	or diag(explain $e);
$e = env_of(req('GET', '/cgi-bin/env.pl', 'Host: [::1]:8080'))->{env};
is($e->{SERVER_NAME}, '[::1]', 'SERVER_NAME from an IPv6 Host without its port');

# Request bodies: CONTENT_LENGTH, CONTENT_TYPE, stdin.
my $form = 'name=mr+httpd&x=%26y';
$d = env_of(req('POST', '/cgi-bin/env.pl', 'Content-Type: application/x-www-form-urlencoded', \$form));
is($d->{env}{CONTENT_LENGTH}, length $form, 'POST: CONTENT_LENGTH');
is($d->{env}{CONTENT_TYPE}, 'application/x-www-form-urlencoded', 'POST: CONTENT_TYPE');
is($d->{body}, $form, 'POST: the body on stdin');
is($d->{env}{REQUEST_METHOD}, 'POST', 'POST: REQUEST_METHOD');
ok(!exists $d->{env}{HTTP_CONTENT_LENGTH} && !exists $d->{env}{HTTP_CONTENT_TYPE},
	'POST: no HTTP_CONTENT_LENGTH or HTTP_CONTENT_TYPE beside them');
for my $m (qw(PUT DELETE PATCH PROPFIND)) {
	my $b = "body of $m\n";
	$d = env_of(req($m, '/cgi-bin/env.pl', \$b));
	ok($d->{env}{REQUEST_METHOD} eq $m && $d->{body} eq $b,
		"$m with a body: REQUEST_METHOD and stdin") or diag(explain $d->{env});
}
$d = env_of(req('POST', '/cgi-bin/env.pl', \''));
is($d->{env}{CONTENT_LENGTH}, '0', 'POST with Content-Length: 0: CONTENT_LENGTH is 0');
# Body bytes that arrive in the same packet as the head, and bytes that
# come later, all reach the program.
{
	my $body = join('', map { chr(($_ * 7) % 256) } 0 .. 9999);
	my $s = http_connect();
	my $head = "POST /cgi-bin/env.pl HTTP/1.1\r\nHost: x\r\nContent-Length: "
		. length($body) . "\r\nConnection: close\r\n\r\n";
	http_send($s, $head . substr($body, 0, 3000));
	sleep 0.2;
	http_send($s, substr($body, 3000));
	$d = env_of((parse_responses(http(undef, sock => $s)))[0]);
	is($d->{body_md5}, md5_hex($body), 'a body split across the head\'s packet and later ones arrives whole');
	is($d->{body_len}, length $body, '... all of it');
}
# Chunked: de-chunked on stdin, CONTENT_LENGTH unset.
{
	my $s = http_connect();
	http_send($s, "POST /cgi-bin/env.pl HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
		. "Content-Type: text/plain\r\nConnection: close\r\n\r\n"
		. "5\r\nhello\r\n1;ext=1\r\n,\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n");
	$d = env_of((parse_responses(http(undef, sock => $s)))[0]);
	is($d->{body}, 'hello, world', 'chunked POST: de-chunked on stdin');
	ok(!exists $d->{env}{CONTENT_LENGTH}, 'chunked POST: CONTENT_LENGTH unset');
	is($d->{env}{CONTENT_TYPE}, 'text/plain', 'chunked POST: CONTENT_TYPE');
}
# Expect: 100-continue is answered before the body is read.
{
	my $s = http_connect();
	http_send($s, "POST /cgi-bin/echo.pl HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n"
		. "Expect: 100-continue\r\nConnection: close\r\n\r\n");
	my $got = '';
	my $sel = IO::Select->new($s);
	my $deadline = time + 5;
	while (time < $deadline && $got !~ /\r\n\r\n/ && $sel->can_read(0.5)) {
		sysread($s, $got, 4096, length $got) or last;
	}
	# the program's own head may follow at once: it need not wait for
	# the body it has not read yet
	like($got, qr{^HTTP/1\.1 100 Continue\r\n\r\n(?:HTTP/1\.1 200 |\z)},
		'Expect: 100-continue: 100 Continue first');
	http_send($s, 'hello world');
	my ($rr) = parse_responses($got =~ s/^HTTP\/1\.1 100[^\n]*\n\r\n//r . http(undef, sock => $s));
	is($rr->{status}, 200, 'Expect: 100-continue: then the program\'s answer');
	is($rr->{body}, 'hello world', '... with the body it read');
}
is(req('POST', '/cgi-bin/echo.pl', 'Expect: something-else', \'x')->{status}, 417,
	'an unknown expectation: 417');

# BusyBox sh, outside a jail.
SKIP: {
	skip 'busybox is not installed (apt-get install busybox-static)', 7 unless $BUSYBOX;
	my $b = "stdin for busybox";
	$r = req('POST', '/cgi-bin/bb.sh/info?q=1', \$b);
	is($r->{status}, 200, 'BusyBox sh script: 200');
	my %v = $r->{body} =~ /^(\w+)=(.*)$/mg;
	like($v{shell} // '', qr{busybox$}, 'BusyBox sh script: run by busybox');
	is($v{GATEWAY_INTERFACE}, 'CGI/1.1', 'BusyBox sh script: GATEWAY_INTERFACE');
	is($v{QUERY_STRING}, 'q=1', 'BusyBox sh script: QUERY_STRING');
	is($v{PATH_INFO}, '/info', 'BusyBox sh script: PATH_INFO');
	is($v{pwd}, $bin, 'BusyBox sh script: runs in CGI_DIR');
	is($v{stdin}, $b, 'BusyBox sh script: reads the body');
}

# --- mapping: 404, 403, and nothing outside CGI_DIR ---------------------------------
$r = req('GET', '/cgi-bin/hello.sh');
is($r->{status}, 200, 'a dash script: 200');
is($r->{body}, "hello from $bin/hello.sh\n", '... argv[0] is its path');
# a whole reply ends with its last chunk: a field of the program's state
# left unset once cut every reply so (under the sanitizers' pattern
# initialisation, and by chance elsewhere)
ok(($r->{headers}{'transfer-encoding'} // '') =~ /chunked/ && $r->{last_chunk},
	'... chunked, and ends with its last chunk');
is(req('GET', '/cgi-bin/sub/hello.sh')->{body}, "sub hello\n", 'a script in a subdirectory');
is(req('GET', '/cgi-bin/missing.sh')->{status}, 404, 'a missing script: 404');
is(req('GET', '/cgi-bin/missing.sh/path/info')->{status}, 404, 'a missing script with path info: 404');
is(req('GET', '/cgi-bin/sub/missing.sh')->{status}, 404, 'a missing script in a subdirectory: 404');
is(req('GET', '/cgi-bin/noexec.sh')->{status}, 403, 'a script that is not executable: 403');
is(req('GET', '/cgi-bin/')->{status}, 403, 'CGI_PATH itself (/cgi-bin/): 403');
is(req('GET', '/cgi-bin')->{status}, 403, 'CGI_PATH itself (/cgi-bin): 403');
is(req('GET', '/cgi-bin/sub')->{status}, 403, 'a directory below CGI_PATH: 403');
is(req('GET', '/cgi-bin/sub/')->{status}, 403, 'a directory below CGI_PATH with /: 403');
is(req('GET', '/cgi-binx/hello.sh')->{status}, 404, 'a longer word than CGI_PATH is not CGI');
$r = req('HEAD', '/cgi-bin/hello.sh');
is($r->{status}, 200, 'HEAD of a script: 200');
is($r->{body}, '', 'HEAD of a script: no body');
is($r->{headers}{'content-type'}, 'text/plain', 'HEAD of a script: its Content-Type');

my @escape = (
	'/cgi-bin/../outside.sh', '/cgi-bin/%2e%2e/outside.sh', '/cgi-bin/%2E%2E/outside.sh',
	'/cgi-bin/..%2foutside.sh', '/cgi-bin/%2e%2e%2foutside.sh', '/cgi-bin/sub/../../outside.sh',
	'/cgi-bin/sub/%2e%2e/%2e%2e/outside.sh', '/cgi-bin/./../outside.sh', '/cgi-bin//../outside.sh',
	'/cgi-bin/..%5coutside.sh', '/cgi-bin/%252e%252e/outside.sh', '/cgi-bin/%c0%ae%c0%ae/outside.sh',
	'/cgi-bin/.../outside.sh', '/cgi-bin/../../outside.sh', '/cgi-bin/../../../../../' . "$dir/outside.sh",
	'/cgi-bin/../cgi-50/outside.sh', '/cgi-bin/%2e%2e/cgi-50/outside.sh',
	"/cgi-bin/..$dir/outside.sh", '/cgi-bin/hello.sh/../../outside.sh',
	'/cgi-bin/sub/hello.sh/../../../outside.sh', '/outside.sh', '/cgi-bin/%00/../outside.sh',
);
my @ran;
for my $p (@escape) {
	my $raw = http("GET $p HTTP/1.0\r\n\r\n");
	push @ran, "$p: " . ($raw =~ m{^HTTP/1\.[01] (\d+)} ? $1 : 'no reply')
		if $raw =~ /OUTSIDE RAN/;
}
my $raw = http("POST /cgi-bin/../outside.sh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
push @ran, 'POST ..: ran' if $raw =~ /OUTSIDE RAN/;
$raw = http("GET http://localhost/cgi-bin/../outside.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
push @ran, 'absolute-form: ran' if $raw =~ /OUTSIDE RAN/;
ok(!@ran, 'no spelling of .. runs a program outside CGI_DIR') or diag(join "\n", @ran);
ok(!-e $marker_file, 'the program outside CGI_DIR never ran (no marker file)')
	or diag(slurp($marker_file));
like(req('GET', '/outside.sh')->{body}, qr/^#!\/bin\/sh/,
	'an executable in PUBLIC_DIR is served as a file, not run');

# --- responses (RFC 3875 6) ---------------------------------------------------------
$r = req('GET', '/cgi-bin/status404.sh');
is($r->{status}, 404, 'Status: 404 sets the status');
is($r->{reason}, 'Not Here', '... and the program\'s reason phrase goes with it (RFC 3875 6.3.3)');
is($r->{body}, "missing thing\n", '... with the program\'s body');
ok(!exists $r->{headers}{status}, '... and no Status header in the response');
$r = req('GET', '/cgi-bin/status201.sh');
is($r->{status}, 201, 'Status: 201 (CRLF block, no reason phrase)');
is($r->{reason}, 'Created', '... gets the server\'s phrase for the code');
is($r->{headers}{'x-created'}, 'yes', 'other header fields are passed on');
$r = req('GET', '/cgi-bin/status204.sh');
is($r->{status}, 204, 'Status: 204 without a Content-Type');
ok(!exists $r->{headers}{'transfer-encoding'} && !exists $r->{headers}{'content-length'},
	'204: no body framing') or diag($r->{raw_head});
# RFC 9110 15.3.6: no content in a 205, whatever the program writes; it
# went out chunked (helper-40).  The next response on the connection
# shows the framing was right.
{
	my @r = parse_responses(http("GET /cgi-bin/status205.sh HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET /cgi-bin/status201.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
	ok(@r == 2 && $r[0]{status} == 205 && ($r[0]{headers}{'content-length'} // '') eq '0'
		&& !exists $r[0]{headers}{'transfer-encoding'} && $r[0]{body} eq '',
		'Status: 205 with a body from the program: Content-Length: 0, no content')
		or diag(explain \@r);
	like($r[0]{raw_head}, qr{^HTTP/1\.1 205 \r\n},
		'... a code the server has no phrase for, and the program gave none: an empty one (RFC 9112 4)')
		or diag($r[0]{raw_head});
	ok(@r == 2 && $r[1]{status} == 201
		&& (MrhttpdCGI::dechunk($r[1]{body}))[0] eq "created\n",
		'... and the next response on the connection is whole') or diag(explain \@r);
}
# The phrase as written, or the server's for the code (empty when it has
# none): a control byte but HTAB is a 502, so a script that echoes its
# client's input into Status cannot add a field (helper-52's review).
for my $c (
	['GET', 'why-obs.sh', "299 \xc3\xa9t\xc3\xa9", 'obs-text kept'],
	['GET', 'why-64.sh', '404 ' . ('y' x 64), '64 bytes kept'],
	['GET', 'why-65.sh', '404 Not Found', '65 bytes: the server\'s phrase'],
	['GET', 'why-65n.sh', '299 ', '65 bytes, a code without a phrase: empty'],
	['GET', 'why-tab.sh', "200 A\tB", 'an HTAB kept'],
	['GET', 'why-lead.sh', '200  lead', 'a leading space kept'],
	['GET', 'why-fine.sh', '200 Fine', '200 with a phrase of its own'],
	['HEAD', 'why-fine.sh', '200 Fine', '... on HEAD too'],
	['GET', 'why-go.sh', '302 Go There', 'a 302 with Location and a phrase'],
	['GET', 'nph-raw.sh', '203 Raw Stuff', 'an nph- program\'s own line untouched'],
) {
	my ($m, $name, $line, $what) = @$c;
	$r = req($m, "/cgi-bin/$name");
	like($r->{raw_head} // '', qr{^HTTP/1\.1 \Q$line\E\r\n},
		"reason phrase: $what") or diag($r->{raw_head});
}
$r = req('GET', '/cgi-bin/why-cr.sh');
ok($r->{status} == 502 && ($r->{raw_head} // '') !~ /X-Evil/i,
	'reason phrase: a bare CR is a 502, and nothing is injected') or diag($r->{raw_head});
is(req('GET', '/cgi-bin/why-vt.sh')->{status}, 502, 'reason phrase: VT is a 502');

$r = req('GET', '/cgi-bin/local.sh');
is($r->{status}, 200, 'local Location: an internal redirect, 200');
is($r->{body}, $target, 'local Location: the static file it names is served');
ok(!exists $r->{headers}{location}, 'local Location: no Location header to the client');
ok(!exists $r->{headers}{'x-dropped'}, 'local Location: the program\'s other fields are not sent');
$r = req('GET', '/cgi-bin/localq.sh');
is($r->{body}, $target, 'local Location with a query: the file is served');
$r = req('GET', '/cgi-bin/absolute.sh');
is($r->{status}, 302, 'absolute Location: 302');
is($r->{headers}{location}, 'http://example.org/elsewhere?a=b', 'absolute Location: passed as is');
$r = req('GET', '/cgi-bin/moved.sh');
is($r->{status}, 301, 'Status: 301 with a local Location: the status wins, no internal redirect');
is($r->{headers}{location}, '/new/place', '... the Location is sent');
is($r->{body}, "moved\n", '... with the program\'s body');

for my $style (qw(lf crlf mixed)) {
	$r = req('GET', "/cgi-bin/$style.sh");
	is($r->{status}, 200, "$style header lines: 200");
	is($r->{headers}{'x-style'}, $style, "$style header lines: the field is parsed");
	like($r->{body}, qr/^$style body\r?\n\z/, "$style header lines: the body starts after the blank line");
}
$r = req('GET', '/cgi-bin/slow-head.sh');
is($r->{status}, 200, 'a header block written in pieces: 200');
is($r->{headers}{'x-late'}, '1', '... all its fields');
is($r->{body}, "late body\n", '... and the body after it');

$r = req('GET', '/cgi-bin/hop.sh');
is($r->{status}, 200, 'hop-by-hop fields from the program: 200');
is($r->{headers}{'x-kept'}, 'kept', 'end-to-end fields pass');
is($r->{header_count}{'set-cookie'}, 2, 'both Set-Cookie fields pass');
is($r->{headers}{connection}, 'close', 'Connection is the server\'s own');
ok(($r->{headers}{'transfer-encoding'} // '') !~ /gzip/, 'the program\'s Transfer-Encoding is dropped');
ok(!exists $r->{headers}{'keep-alive'}, 'the program\'s Keep-Alive is dropped');
like($r->{headers}{server}, qr/^mrhttpd/, 'Server is the server\'s own');
is($r->{header_count}{date}, 1, 'one Date, the server\'s');
is($r->{body}, "hop body\n", 'hop-by-hop fields: body intact');

$r = req('GET', '/cgi-bin/clen.sh');
is($r->{headers}{'content-length'}, 6, 'the program\'s Content-Length is used');
ok(!exists $r->{headers}{'transfer-encoding'}, '... and no chunked on top');
is($r->{body}, "six!\n\n", '... the body');
$r = req('GET', '/cgi-bin/clen-more.sh');
is($r->{headers}{'content-length'}, 4, 'more output than its Content-Length: the length stands');
is($r->{body}, '0123', '... and the excess is not sent');

{
	my $closed;
	$raw = http("GET /cgi-bin/clen-less.sh HTTP/1.1\r\nHost: x\r\n\r\n", closed => \$closed, timeout => 3);
	like($raw, qr/\r\nContent-Length: 100\r\n(?:.*\r\n)?\r\nonly this\z/s,
		'less output than its Content-Length: what it wrote');
	ok($closed, '... and the connection is closed, not left waiting (keep-alive would desync)');
}
# HEAD: a local Location is served without its body too (RFC 9110 9.3.2),
# or the next response on the connection starts with the file.
{
	my @rs = parse_responses(http("HEAD /cgi-bin/local.sh HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET /cgi-bin/hello.sh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), head => 1);
	is($rs[0]{status}, 200, 'HEAD of a script with a local Location: 200');
	like($rs[1]{bad_status_line} // "HTTP/1.1 $rs[1]{status}", qr{^HTTP/1\.1 200},
		'... without a body: the next response on the connection starts right after the head')
		or diag(explain \@rs);
}
# The longest request head the server takes (HTTP_HEADER_LENGTH, 8192)
# with a long PATH_INFO and query: REQUEST_URI, QUERY_STRING, PATH_INFO and
# PATH_TRANSLATED each repeat a part of it.
{
	my $h = join('', map { "X-Pad-$_: " . ('v' x 88) . "\r\n" } 10 .. 29);
	my $head = 'GET /cgi-bin/hello.sh/' . ('p' x 2500) . '?' . ('q' x 3400) . " HTTP/1.1\r\n"
		. "Host: x\r\n${h}Connection: close\r\n\r\n";
	ok(length $head < 8192, 'a request head of ' . length($head) . ' bytes (< 8192)');
	my ($rr) = parse_responses(http($head));
	is($rr->{status}, 200, '... with a long PATH_INFO and query: the program runs');
}
$t->allow_log(qr/cgi hello\.sh: environment too large/);

$raw = http("GET /cgi-bin/nph-raw.sh HTTP/1.1\r\nHost: x\r\n\r\n", timeout => 5);
is($raw, "HTTP/1.1 203 Raw Stuff\r\nContent-Type: text/x-nph\r\nX-Nph: 1\r\n\r\nnph body, as is\n",
	'nph- program: its output is the whole response, byte for byte');

# --- 500 and 502, with a log line naming the script ----------------------------------
my %bad = (
	'silent.sh' => [500, qr/cgi silent\.sh: no header block before it ended/],
	'nph-silent.sh' => [500, qr/cgi nph-silent\.sh: no header block before it ended/],
	'dies.sh' => [500, qr/cgi dies\.sh: (?:exit status 3|no header block)/],
	'bad-line.sh' => [502, qr/cgi bad-line\.sh: invalid header block/],
	'bad-name.sh' => [502, qr/cgi bad-name\.sh: invalid header block/],
	'bad-status.sh' => [502, qr/cgi bad-status\.sh: invalid header block/],
	'bad-status6.sh' => [502, qr/cgi bad-status6\.sh: invalid header block/],
	'no-type.sh' => [502, qr/cgi no-type\.sh: invalid header block/],
	'bare-body.sh' => [502, qr/cgi bare-body\.sh: invalid header block/],
	'long-head.sh' => [502, qr/cgi long-head\.sh: header block too long/],
);
for my $name (sort keys %bad) {
	my ($st, $re) = @{ $bad{$name} };
	$r = req('GET', "/cgi-bin/$name");
	is($r->{status}, $st, "$name: $st");
	ok(wait_for(sub { $t->log =~ /^\S+ \[warn\] $re/m }, 3), "$name: logged with the script's name")
		or diag($t->log =~ /^(.*cgi $name.*)$/mg);
}
unlike(req('GET', '/cgi-bin/bad-line.sh')->{body}, qr/this line has no colon/,
	'502: the program\'s output is not sent');

# Once we have answered for it (502, 500), a program that runs on is
# ended: the request pipelined behind it is answered (or the connection
# closed) at once, not after CGI_TIMEOUT (60 s here), and no `sleep 30`
# is left.
for (['bad-long.sh', 502], ['mute-long.sh', 500]) {
	my ($name, $st) = @$_;
	my $t0 = time;
	my @r = parse_responses(http("GET /cgi-bin/$name HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET /target.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		timeout => 10));
	my $took = time - $t0;
	# (after the 500 the connection closes: the request behind is not
	# served, but not held for a minute either)
	ok(@r >= 1 && $r[0]{status} == $st && (@r == 1 || $r[1]{status} == 200)
		&& $took < 5, sprintf("$name: %s, and the connection done with "
		. "in %.1f s", $st, $took)) or diag(join ' ', map { $_->{status} } @r);
	ok(wait_for(sub { !grep { $_->[2] =~ /sleep 30/ } children($t->pid) }, 3),
		"$name: the program was ended");
}

# an nph- program's status is logged only when it is three digits
req('GET', '/cgi-bin/nph-weird.sh');
ok(wait_for(sub { $t->log =~ m{"GET /cgi-bin/nph-weird\.sh HTTP/1\.1" 200 } }, 3),
	'nph- status line "9zz": logged as 200')
	or diag($t->log =~ /^(.*nph-weird.*)$/mg);
ok(wait_for(sub { $t->log =~ /^\S+ \[warn\] cgi dies\.sh: dying now$/m }, 3),
	'dies.sh: its stderr line is logged before the 500');

# A 502 sent while the program still runs is the whole answer.  An
# HTTP/1.1 client that half-closes then (nc -N does, once its request is
# out) is asked whether it is still there with an interim 102 only
# before an answer has gone out: a 1xx after the final response would be
# read as the answer to a next request (RFC 9110 15.2).
{
	my $s = http_connect();
	http_send($s, "GET /cgi-bin/bad-slow.sh HTTP/1.1\r\nHost: x\r\n\r\n");
	# the 502 comes at once, with the program asleep: half-close once it
	# is here (or after a second, should it not come before the program
	# ends)
	IO::Select->new($s)->can_read(1);
	shutdown($s, SHUT_WR);
	my $closed;
	$raw = http(undef, sock => $s, timeout => 6, closed => \$closed);
	my @st = map { $_->{status} } parse_responses($raw);
	shift @st while @st && $st[0] == 102;	# one before the answer may come
	is("@st", '502', 'a 502 while the program runs on, then a half-close: the 502 and nothing after it (no 102)')
		or diag($raw);
	ok($closed, '... and the connection is closed when the program has ended');
}

# stderr goes to the log, one line each, the program named.
$r = req('GET', '/cgi-bin/stderr.sh');
is($r->{body}, "out\n", 'a program writing to stderr: its stdout is the body');
for my $line ('first stderr line', 'second stderr line', 'no newline at the end') {
	ok(wait_for(sub { $t->log =~ /^\S+ \[warn\] cgi stderr\.sh: \Q$line\E$/m }, 3),
		"stderr in the log: [warn] cgi stderr.sh: $line");
}
unlike($r->{body}, qr/stderr line/, 'stderr never reaches the client');

is(zombies($t->pid), 0, 'no zombies left by any of these');

# --- Basic auth, CGI_AUTHORIZATION, SERVER_NAME, PATH_PREFIX -----------------------
my $ta = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin,
	AUTH_HEADER => 'Basic dGVzdDp0ZXN0', CGI_AUTHORIZATION => 1,
	SERVER_NAME => 'cgi.example.net', PATH_PREFIX => '/app' });
$ta->has(qw(cgi auth path-prefix));
$ta->run();
$r = req('GET', '/app/cgi-bin/env.pl');
is($r->{status}, 401, 'auth: no credentials, 401');
unlike($r->{body}, qr/"env"/, 'auth: the program did not answer');
$d = env_of(req('GET', '/app/cgi-bin/env.pl/p?q=1', 'Authorization: Basic dGVzdDp0ZXN0'));
$e = $d->{env};
is($e->{AUTH_TYPE}, 'Basic', 'auth: AUTH_TYPE Basic');
is($e->{REMOTE_USER}, 'test', 'auth: REMOTE_USER from the credentials');
is($e->{HTTP_AUTHORIZATION}, 'Basic dGVzdDp0ZXN0', 'CGI_AUTHORIZATION=1: HTTP_AUTHORIZATION passed');
is($e->{SERVER_NAME}, 'cgi.example.net', 'SERVER_NAME from the configuration beats Host');
is($e->{SCRIPT_NAME}, '/app/cgi-bin/env.pl', 'PATH_PREFIX: in SCRIPT_NAME');
is($e->{REQUEST_URI}, '/app/cgi-bin/env.pl/p?q=1', 'PATH_PREFIX: in REQUEST_URI');
is($e->{PATH_INFO}, '/p', 'PATH_PREFIX: PATH_INFO after the script');
is(req('GET', '/cgi-bin/env.pl', 'Authorization: Basic dGVzdDp0ZXN0')->{status}, 404,
	'PATH_PREFIX: CGI_PATH without the prefix is not found');
$ta->stop;

# --- over IPv6 -----------------------------------------------------------------------
SKIP: {
	my $probe = IO::Socket::IP->new(LocalHost => '::1', LocalPort => 0, Listen => 1);
	skip 'no IPv6 loopback here', 5 unless $probe;
	close $probe;
	my $t6 = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
	$t6->run({ addr => '::1' });
	my $s6 = http_connect(host => '::1');
	my $p6 = $s6->sockport;
	http_send($s6, "GET /cgi-bin/env.pl HTTP/1.1\r\nHost: [::1]:" . $t6->port
		. "\r\nConnection: close\r\n\r\n");
	my ($r6) = parse_responses(http(undef, sock => $s6));
	if (($r6->{headers}{'transfer-encoding'} // '') =~ /chunked/) {
		($r6->{body}, $r6->{last_chunk}) = MrhttpdCGI::dechunk($r6->{body});
	}
	my $e6 = env_of($r6)->{env};
	is($e6->{REMOTE_ADDR}, '::1', 'IPv6: REMOTE_ADDR');
	is($e6->{REMOTE_PORT}, $p6, 'IPv6: REMOTE_PORT');
	is($e6->{SERVER_ADDR}, '::1', 'IPv6: SERVER_ADDR');
	is($e6->{SERVER_PORT}, $t6->port, 'IPv6: SERVER_PORT');
	is($e6->{SERVER_NAME}, '[::1]', 'IPv6: SERVER_NAME from the Host literal');
	$t6->stop;
}

# --- a local Location as the first request a fresh server serves ----------------------
# The internal redirect serves the file from inside the CGI code's frame;
# the first file a process opens also binds openat lazily, and together
# they overflow the 64 KiB connection thread stack: SIGSEGV, server gone.
{
	my $tf = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
	$tf->write_file('target.txt', $target);
	$tf->run();
	$r = req('GET', '/cgi-bin/local.sh');
	# a dying process may still be there for a moment
	my $alive = !wait_for(sub { !$tf->alive }, 1);
	{
		is($r->{body}, $target, 'a fresh server: a local Location as its first request is served');
		ok($alive, '... and the server is still running');
	}
	# a crash is reported above, not again by the teardown
	$tf->{torn_down} = 1 unless $alive;
}

# --- a local Location that names a CGI program --------------------------------------
# RFC 3875 6.2.2: the server answers as it would a request for that path,
# so the program runs.  With CGI_DIR below PUBLIC_DIR (a common layout,
# here PUBLIC_DIR is the directory holding cgi-bin/), serving the path as a
# file would hand out the program's source.
{
	my $tc = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
	$tc->run({ public => $dir });
	$r = req('GET', '/cgi-bin/local-cgi.sh');
	# mrhttpd's documented choice: the program's path goes back to the
	# client as a 302, which then runs it; it is never served as a file
	unlike($r->{body} // '', qr/^#!/, 'a local Location naming a CGI program never sends its source');
	is($r->{status}, 302, '... it is redirected to the client (302)');
	is($r->{headers}{location}, '/cgi-bin/hello.sh', '... to the program\'s path');
	is(req('GET', $r->{headers}{location})->{body}, "hello from $bin/hello.sh\n",
		'... which then runs it');
}

# A descriptor the server was started with, without close-on-exec (an
# init script's lock), above the soft limit: the closing of inherited
# descriptors stopped at the soft limit, so every program got it
# (helper-71)
{
	my $tl = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
	open(my $lock, '>', $tl->testdir . '/lock') or die "lock: $!";
	defined POSIX::dup2(fileno($lock), 300) or die "dup2: $!";	# no FD_CLOEXEC
	$tl->run({ soft_nofile => 256 });
	POSIX::close(300);
	my $d = env_of(req('GET', '/cgi-bin/env.pl'));
	ok($d && !exists $d->{fds}{300},
		'fd 300, inherited above the soft limit (256): closed, no program gets it')
		or diag(explain($d && $d->{fds}));
	$tl->stop;
	# and above the hard limit ("ulimit -n 256" lowers both, after the
	# lock was taken): close_range(2) closes whatever the number (helper-79)
	my $th = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
	defined POSIX::dup2(fileno($lock), 300) or die "dup2: $!";
	$th->run({ nofile => 256 });
	POSIX::close(300);
	$d = env_of(req('GET', '/cgi-bin/env.pl'));
	SKIP: {
		my ($maj, $min) = (POSIX::uname())[2] =~ /^(\d+)\.(\d+)/;
		skip 'close_range(2) needs Linux 5.9', 1 if $maj < 5 || ($maj == 5 && $min < 9);
		ok($d && !exists $d->{fds}{300},
			'fd 300, inherited above the hard limit (256): closed, no program gets it')
			or diag(explain($d && $d->{fds}));
	}
}

$t->done_testing();
