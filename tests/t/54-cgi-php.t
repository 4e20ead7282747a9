#!/usr/bin/perl
# php-cgi, unmodified, from Debian's php-cgi package: a .php file with a
# "#!/usr/bin/php-cgi" line, executable in CGI_DIR, is run by the kernel as
# `php-cgi FILE`; php-cgi then finds the script through SCRIPT_FILENAME and
# runs only because REDIRECT_STATUS is set (cgi.force_redirect).  A form
# POST read through $_POST, a multipart upload through $_FILES (md5 of
# the content), PATH_INFO and a query string through $_SERVER and $_GET,
# the response code, headers and cookies PHP sets.
#
# A chunked POST reaches PHP without a body: the server streams chunked
# bodies and leaves CONTENT_LENGTH unset (RFC 3875 gives no other way
# without spooling), and php-cgi reads CONTENT_LENGTH bytes, so none.

use strict;
use warnings;

use Digest::MD5 qw(md5_hex);
use JSON::PP;
use Test::More;
use MrhttpdTest;
use MrhttpdCGI qw(cgi_dir script spew slurp wait_for zombies exchange);

my $PHP = '/usr/bin/php-cgi';
plan(skip_all => "$PHP is missing (apt-get install php-cgi)") unless -x $PHP;

my $dir = cgi_dir('cgi-54');
my $bin = "$dir/cgi-bin";

script("$bin/app.php", "#!$PHP\n" . <<'EOF');
<?php
header('Content-Type: application/json');
header('X-Powered: mrhttpd-test');
$files = [];
foreach ($_FILES as $k => $f) {
	$files[$k] = ['name' => $f['name'], 'size' => $f['size'], 'type' => $f['type'],
		'error' => $f['error'],
		'md5' => $f['error'] === 0 ? md5_file($f['tmp_name']) : null];
}
$keys = ['PATH_INFO', 'PATH_TRANSLATED', 'QUERY_STRING', 'REQUEST_METHOD', 'SCRIPT_NAME',
	'SCRIPT_FILENAME', 'REQUEST_URI', 'CONTENT_LENGTH', 'CONTENT_TYPE', 'PHP_SELF',
	'GATEWAY_INTERFACE', 'SERVER_PROTOCOL', 'REMOTE_ADDR', 'HTTP_X_TEST'];
echo json_encode(['get' => (object)$_GET, 'post' => (object)$_POST, 'files' => (object)$files,
	'server' => array_intersect_key($_SERVER, array_flip($keys)),
	'input_len' => strlen(file_get_contents('php://input')), 'cwd' => getcwd(),
	'sapi' => PHP_SAPI]), "\n";
EOF
script("$bin/status.php", "#!$PHP\n" . <<'EOF');
<?php
http_response_code(404);
header('Content-Type: text/plain');
setcookie('session', 'abc123', ['path' => '/', 'httponly' => true]);
echo "php says not found\n";
EOF
script("$bin/redirect.php", "#!$PHP\n<?php header('Location: http://example.org/php'); echo 'moved';\n");
script("$bin/error.php", "#!$PHP\n<?php\nini_set('display_errors', '0');\nini_set('log_errors', '1');\n"
	. "ini_set('error_log', '');\nerror_log('php-side warning');\necho 'after';\n");
spew("$bin/plain.php", "#!$PHP\n<?php echo 'not executable';\n", 0644);

my $t = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
$t->has('cgi');
$t->allow_log(qr/cgi \S+: /);
$t->run();
my $json = JSON::PP->new;

sub php {
	my (%o) = @_;
	my $r = exchange(timeout => 20, %o);
	my $d = eval { $json->decode($r->{body}) };
	diag("status " . ($r->{status} // '-') . ", not JSON: " . substr($r->{body}, 0, 400)) unless $d;
	return ($r, $d // {});
}

# --- a GET with PATH_INFO and a query string ------------------------------------------
my ($r, $d) = php(head => "GET /cgi-bin/app.php/extra/path%20two?x=1&y[]=2&y[]=3&s=a%20b HTTP/1.1\r\n"
	. "Host: x\r\nX-Test: header value\r\nConnection: close\r\n\r\n");
is($r->{status}, 200, 'php-cgi through its #! line: 200');
is($d->{sapi}, 'cgi-fcgi', 'php-cgi ran it (SAPI cgi-fcgi)');
is($r->{headers}{'content-type'}, 'application/json', 'PHP\'s Content-Type header');
is($r->{headers}{'x-powered'}, 'mrhttpd-test', 'other headers PHP sets pass');
is_deeply($d->{get}, { x => '1', y => ['2', '3'], s => 'a b' }, '$_GET from the query string');
is($d->{server}{QUERY_STRING}, 'x=1&y[]=2&y[]=3&s=a%20b', '$_SERVER[QUERY_STRING]');
is($d->{server}{PATH_INFO}, '/extra/path two', '$_SERVER[PATH_INFO]');
is($d->{server}{SCRIPT_NAME}, '/cgi-bin/app.php', '$_SERVER[SCRIPT_NAME]');
is($d->{server}{SCRIPT_FILENAME}, "$bin/app.php", '$_SERVER[SCRIPT_FILENAME]');
is($d->{server}{PHP_SELF}, '/cgi-bin/app.php/extra/path two', '$_SERVER[PHP_SELF]');
is($d->{server}{REQUEST_URI}, '/cgi-bin/app.php/extra/path%20two?x=1&y[]=2&y[]=3&s=a%20b',
	'$_SERVER[REQUEST_URI]');
is($d->{server}{HTTP_X_TEST}, 'header value', '$_SERVER[HTTP_X_TEST]');
is($d->{server}{GATEWAY_INTERFACE}, 'CGI/1.1', '$_SERVER[GATEWAY_INTERFACE]');
is($d->{cwd}, $bin, 'PHP runs in the script\'s directory');

# --- a form POST ----------------------------------------------------------------------
my $form = 'name=Mr+Httpd&comment=a%26b%3Dc&list[]=1&list[]=2&empty=';
($r, $d) = php(head => "POST /cgi-bin/app.php HTTP/1.1\r\nHost: x\r\n"
	. "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " . length($form)
	. "\r\nConnection: close\r\n\r\n", body => $form);
is($r->{status}, 200, 'form POST: 200');
is_deeply($d->{post}, { name => 'Mr Httpd', comment => 'a&b=c', list => ['1', '2'], empty => '' },
	'form POST: $_POST');
is($d->{server}{REQUEST_METHOD}, 'POST', 'form POST: REQUEST_METHOD');
is($d->{server}{CONTENT_LENGTH}, length $form, 'form POST: CONTENT_LENGTH');
is($d->{input_len}, length $form, 'form POST: php://input has the body');

# --- a multipart upload -----------------------------------------------------------------
my $file = join '', map { chr((($_ * 2654435761) >> 13) & 255) } 1 .. 1_500_000;
my $small = "plain text file\r\nwith --lines that look like boundaries\r\n";
my $b = 'mrhttpdBoundary' . int(rand 1e9);
my $mp = "--$b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nmy upload\r\n"
	. "--$b\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"data.bin\"\r\n"
	. "Content-Type: application/octet-stream\r\n\r\n$file\r\n"
	. "--$b\r\nContent-Disposition: form-data; name=\"notes\"; filename=\"notes.txt\"\r\n"
	. "Content-Type: text/plain\r\n\r\n$small\r\n--$b--\r\n";
($r, $d) = php(head => "POST /cgi-bin/app.php/up?via=form HTTP/1.1\r\nHost: x\r\n"
	. "Content-Type: multipart/form-data; boundary=$b\r\nContent-Length: " . length($mp)
	. "\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n", body => $mp, wait_continue => 1);
is($r->{status}, 200, 'multipart upload: 200');
ok($r->{continue_seen}, 'multipart upload: 100 Continue before the body');
is($d->{post}{title}, 'my upload', 'multipart upload: the text field in $_POST');
is($d->{get}{via}, 'form', 'multipart upload: $_GET too');
is($d->{server}{PATH_INFO}, '/up', 'multipart upload: PATH_INFO too');
my $up = $d->{files}{upload} // {};
is($up->{error}, 0, '$_FILES[upload]: no error');
is($up->{name}, 'data.bin', '$_FILES[upload]: its name');
is($up->{size}, length $file, '$_FILES[upload]: its size');
is($up->{md5}, md5_hex($file), '$_FILES[upload]: its content (md5)');
is($d->{files}{notes}{md5}, md5_hex($small), '$_FILES[notes]: a second file, intact');
is($d->{files}{notes}{type}, 'text/plain', '$_FILES[notes]: its type');

SKIP: {
	skip 'curl is not installed', 2 unless MrhttpdTest::find_prog('curl');
	my $f = $t->testdir . '/curl-upload.bin';
	spew($f, $file);
	my ($rc, $out) = run_cmd('curl', '-sS', '-F', 'title=curl', '-F', "upload=\@$f",
		'http://127.0.0.1:' . $t->port . '/cgi-bin/app.php');
	my $cd = eval { $json->decode($out) } // {};
	is($cd->{files}{upload}{md5}, md5_hex($file), 'curl -F upload: $_FILES content intact')
		or diag($out);
	is($cd->{post}{title}, 'curl', 'curl -F upload: $_POST');
}

# --- chunked POST: the documented limitation --------------------------------------------
($r, $d) = php(head => "POST /cgi-bin/app.php HTTP/1.1\r\nHost: x\r\n"
	. "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n"
	. "Connection: close\r\n\r\n", body => $form, chunk => 10);
is($r->{status}, 200, 'chunked form POST to PHP: 200');
ok(!exists $d->{server}{CONTENT_LENGTH}, 'chunked form POST: CONTENT_LENGTH unset');
is_deeply($d->{post}, {}, 'chunked form POST: PHP sees no body (documented: php-cgi reads '
	. 'CONTENT_LENGTH bytes, and a chunked body is streamed without one)');
note('php-cgi gets no body from a chunked POST: CONTENT_LENGTH is unset for streamed chunked bodies');

# --- what PHP sets ----------------------------------------------------------------------
$r = exchange(head => "GET /cgi-bin/status.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
is($r->{status}, 404, 'http_response_code(404): 404');
is($r->{body}, "php says not found\n", '... with PHP\'s body');
like($r->{headers}{'set-cookie'} // '', qr/^session=abc123; path=\/; HttpOnly$/i, 'setcookie: Set-Cookie');
$r = exchange(head => "GET /cgi-bin/redirect.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
is($r->{status}, 302, 'header("Location: http://...") : 302');
is($r->{headers}{location}, 'http://example.org/php', '... with the Location');
$r = exchange(head => "GET /cgi-bin/error.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
is($r->{body}, 'after', 'error_log() to stderr: the page still comes');
ok(wait_for(sub { $t->log =~ /\[warn\] cgi error\.php: .*php-side warning/ }, 3),
	'error_log() output reaches the server log');
is(exchange(head => "GET /cgi-bin/plain.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")->{status},
	403, 'a .php file that is not executable: 403');

ok(wait_for(sub { zombies($t->pid) == 0 }, 3), 'no zombies');
$t->done_testing();
