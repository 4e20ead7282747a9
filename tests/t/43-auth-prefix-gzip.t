# Access control (AUTH_HEADER/AUTH_METHODS), PATH_PREFIX and GZIP_STATIC.
use strict;
use warnings;

use MIME::Base64 ();
use Test::More;
use MrhttpdTest;

# base64 of test:test and of user:pw
my $compiled = 'Basic dGVzdDp0ZXN0';
my $fromenv = 'Basic dXNlcjpwdw==';

sub req {
	my ($method, $path, @hdr) = @_;
	my ($r) = parse_responses(http(join('', "$method $path HTTP/1.1\r\n",
		"Host: x\r\n", map({ "$_\r\n" } @hdr), "Connection: close\r\n\r\n")),
		$method eq 'HEAD' ? (head => 1) : ());
	return $r;
}
sub status { my $r = req(@_); return $r ? $r->{status} : 0 }

# --- auth for every method (mask 15), secret compiled in -------------------
my $t = MrhttpdTest->new(conf => { AUTH_HEADER => $compiled,
	DEFAULT_INDEX => 'index.html' });
$t->has('auth');
$t->write_file('index.html', "secret page\n");
$t->run();

my $r = req('GET', '/');
is($r->{status}, 401, 'GET without Authorization: 401');
like($r->{headers}{'www-authenticate'} // '', qr/^Basic realm="mrhttpd"$/,
	'401 names the Basic realm');
unlike($r->{body}, qr/secret page/, '401 does not leak the page');
is(status('GET', '/', "Authorization: $compiled"), 200, 'right credentials: 200');
is(status('GET', '/', 'Authorization: Basic dGVzdDp0ZXN1'), 401, 'wrong password: 401');
is(status('GET', '/', "Authorization: $compiled" . 'x'), 401, 'longer value: 401');
is(status('GET', '/', 'Authorization: ' . substr($compiled, 0, -1)), 401,
	'prefix of the value: 401');
is(status('GET', '/', 'Authorization: basic dGVzdDp0ZXN0'), 200,
	'the scheme is case-insensitive (RFC 9110 11.1)');
is(status('GET', '/', 'Authorization: BASIC dGVzdDp0ZXN0'), 200, '... in any case');
is(status('GET', '/', 'Authorization: Basic DGVZDDP0ZXN0'), 401,
	'the credentials are compared exactly');
is(status('GET', '/', 'Authorization: Basi dGVzdDp0ZXN0'), 401, 'another scheme: 401');
# one field, as for Host: a second would leave it to each reader (a
# front end, the server, a program) which of the two counts
is(status('GET', '/', 'Authorization: Basic d3Jvbmc6d3Jvbmc=',
	"Authorization: $compiled"), 400, 'two Authorization fields: 400');
is(status('GET', '/', "Authorization: $compiled", "Authorization: $compiled"),
	400, '... even the same twice');
is(status('HEAD', '/'), 401, 'HEAD needs it too with mask 15');
is(status('OPTIONS', '*'), 204, 'OPTIONS needs no credentials');
is(status('DELETE', '/', "Authorization: $compiled"), 405,
	'DELETE with credentials reaches the method check (405)');
is(status('DELETE', '/'), 401, 'DELETE without credentials: 401');
# keep-alive survives a 401
my $two = http("GET / HTTP/1.1\r\nHost: x\r\n\r\n"
	. "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: $compiled\r\n"
	. "Connection: close\r\n\r\n");
my @rs = parse_responses($two);
is(join(',', map { $_->{status} } @rs), '401,200', 'a 401 keeps the connection');
$t->stop();

# --- the environment overrides the compiled secret ---------------------------
my $te = MrhttpdTest->new(conf => { AUTH_HEADER => $compiled,
	DEFAULT_INDEX => 'index.html' });
$te->write_file('index.html', "x\n");
$te->run({ env => { AUTH_HEADER => $fromenv } });
is(status('GET', '/', "Authorization: $fromenv"), 200, 'AUTH_HEADER from the environment works');
is(status('GET', '/', "Authorization: $compiled"), 401, '... and replaces the compiled one');
$te->stop();

# --- mask 12: GET and HEAD are free ------------------------------------------
my $tm = MrhttpdTest->new(conf => { AUTH_HEADER => $compiled, AUTH_METHODS => 12,
	DEFAULT_INDEX => 'index.html' });
$tm->write_file('index.html', "open\n");
$tm->run();
is(status('GET', '/'), 200, 'AUTH_METHODS=12: GET needs nothing');
is(status('HEAD', '/'), 200, 'AUTH_METHODS=12: HEAD needs nothing');
is(status('PUT', '/'), 401, 'AUTH_METHODS=12: PUT needs it');
$tm->stop();

# --- auth compiled in without a secret anywhere: a start-up error -------------
my $tn = MrhttpdTest->new(conf => { AUTH_METHODS => 15 });
my ($rc, $out) = run_cmd(MrhttpdTest::_wrapper(), $tn->binary, '-f', '-p', '1', '-r', $tn->htdocs);
isnt($rc, 0, 'auth without AUTH_HEADER anywhere: refuses to start');
like($out, qr/^mrhttpd: .*AUTH_HEADER/m, '... with a line naming AUTH_HEADER');

# --- AUTH_METHODS from the environment, as upstream read it -----------------
{
	my $tv = MrhttpdTest->new(conf => { AUTH_HEADER => $compiled,
		DEFAULT_INDEX => 'index.html' });
	$tv->write_file('index.html', "x\n");
	$tv->run({ env => { AUTH_METHODS => 1 } });
	is(status('HEAD', '/'), 200, 'AUTH_METHODS=1 in the environment: HEAD is free');
	is(status('GET', '/'), 401, '... GET is not');
	$tv->stop();
	my $tv2 = MrhttpdTest->new(conf => { AUTH_HEADER => $compiled,
		AUTH_METHODS => 1 });
	$tv2->run({ env => { AUTH_METHODS => -1 } });
	is(status('HEAD', '/'), 401, 'AUTH_METHODS=-1 (upstream\'s all) over a compiled 1: HEAD needs credentials');
	$tv2->stop();
	for my $bad ('16', 'abc', '01x') {
		local $ENV{AUTH_METHODS} = $bad;
		my ($rc, $out) = run_cmd("timeout", "-k", "2", "20", MrhttpdTest::_wrapper(), $tv->binary,
			'-f', '-p', '1', '-r', $tv->htdocs);
		ok($rc != 0 && $out =~ /^mrhttpd: AUTH_METHODS in the environment: '\Q$bad\E' is not/m,
			"AUTH_METHODS='$bad' in the environment: refuses to start") or diag($out);
	}
}
# a build without auth (upstream took AUTH_HEADER from the environment in
# any build; here that build would serve everything to anyone)
{
	my $tw = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html' });
	for my $var ('AUTH_HEADER', 'AUTH_METHODS') {
		local $ENV{$var} = $var eq 'AUTH_HEADER' ? $fromenv : '15';
		my ($rc, $out) = run_cmd("timeout", "-k", "2", "20", MrhttpdTest::_wrapper(), $tw->binary,
			'-f', '-p', '1', '-r', $tw->htdocs);
		ok($rc != 0 && $out =~ /^mrhttpd: AUTH_HEADER or AUTH_METHODS is set in the environment, but this build has no auth/m,
			"no auth built, $var in the environment: refuses to start") or diag($out);
	}
	# what asks for nothing: an empty one, AUTH_METHODS=0 (with a secret
	# too: upstream would protect no method)
	local $ENV{AUTH_HEADER} = 'Basic eDp5';
	local $ENV{AUTH_METHODS} = '0';
	$tw->write_file('index.html', "open\n");
	$tw->run();
	is(status('GET', '/'), 200, 'no auth built, AUTH_HEADER with AUTH_METHODS=0 in the environment: it starts');
	$tw->stop();
}

# --- AUTH_FILE: users with crypt(3) hashes -------------------------------------
{
	# compiled in, so at a fixed path: the build is reused between runs
	# (locked: another run of this file must not rewrite it meanwhile)
	my $users = MrhttpdTest::fixed_dir('data-43-auth') . '/users';
	open my $fh, '>', $users or die "$users: $!";
	print $fh "# comment\n\nalice:", crypt('wonderland', '$6$abcdefgh$'),
		"\nbob:", crypt('builder', '$5$ijklmnop$'), ":extra:fields\n";
	close $fh;
	# crypt(3) is missing from some toolchains (Debian's static musl,
	# the cross compilers): there AUTH_FILE cannot be built at all
	my $ta = eval { MrhttpdTest->new(conf => { AUTH_FILE => $users,
		DEFAULT_INDEX => 'index.html' }) };
	SKIP: {
	skip('AUTH_FILE needs crypt(3), which this toolchain lacks', 11)
		unless $ta;
	$ta->write_file('index.html', "members only\n");
	$ta->run();
	my $basic = sub { 'Authorization: Basic ' . MIME::Base64::encode_base64($_[0], '') };
	is(status('GET', '/'), 401, 'AUTH_FILE: no credentials, 401');
	is(status('GET', '/', $basic->('alice:wonderland')), 200, 'AUTH_FILE: SHA-512 crypt user');
	is(status('GET', '/', $basic->('bob:builder')), 200, 'AUTH_FILE: SHA-256 crypt user, extra fields ignored');
	is(status('GET', '/', $basic->('alice:wonderlanx')), 401, 'AUTH_FILE: wrong password');
	is(status('GET', '/', $basic->('carol:wonderland')), 401, 'AUTH_FILE: unknown user');
	is(status('GET', '/', $basic->('alice')), 401, 'AUTH_FILE: no colon');
	is(status('GET', '/', $basic->('# comment:x')), 401, 'comments are not users');
	is(status('GET', '/', $basic->("alice:wonderland\0junk")), 401,
		'AUTH_FILE: a NUL after the password is no password');
	is(status('GET', '/', $basic->('alice:wonderland') . '=junk'), 401,
		'AUTH_FILE: junk after the base64');
	$ta->stop();
	rename $users, "$users.gone";
	my ($rc2, $out2) = run_cmd(MrhttpdTest::_wrapper(), $ta->binary, '-f', '-p', '1', '-r', $ta->htdocs);
	rename "$users.gone", $users;
	isnt($rc2, 0, 'AUTH_FILE missing: refuses to start');
	like($out2, qr/^mrhttpd: AUTH_FILE .*No such file/m, '... naming AUTH_FILE');
	}
}

# --- PATH_PREFIX ---------------------------------------------------------------
my $tp = MrhttpdTest->new(conf => { PATH_PREFIX => '/app', DEFAULT_INDEX => 'index.html' });
$tp->has('path-prefix');
$tp->write_file('index.html', "root index\n");
$tp->write_file('a.txt', "file a\n");
$tp->write_file('d/index.html', "dir d\n");
$tp->run();
$r = req('GET', '/app/a.txt');
is($r->{status}, 200, 'prefix + path: 200');
is($r->{body}, "file a\n", '... the file below PUBLIC_DIR');
is(status('GET', '/a.txt'), 404, 'without the prefix: 404');
is(status('GET', '/apple/a.txt'), 404, 'a longer word is not the prefix');
is(req('GET', '/app/')->{body}, "root index\n", '/app/ is the document root');
$r = req('GET', '/app');
is($r->{status}, 301, '/app alone: 301, as a directory without its slash');
is($r->{headers}{location}, '/app/', '... to /app/, so its index\'s relative links keep the prefix');
is(req('HEAD', '/app?x=1')->{headers}{location}, '/app/?x=1', '... with the query');
$r = req('GET', '/app/d');
is($r->{status}, 301, 'directory without slash: 301');
is($r->{headers}{location}, '/app/d/', '... to a Location that keeps the prefix');
is(status('GET', '/app/../app/a.txt'), 400, 'no climbing out through the prefix');
$tp->stop();

# With QUERY_HACK=/ a query after "/app/" names a file ("?x"): "/app?x" is
# the root, so its redirect leaves the query out
my $tq = MrhttpdTest->new(conf => { PATH_PREFIX => '/app', QUERY_HACK => '/',
	DEFAULT_INDEX => 'index.html' });
$tq->has('path-prefix');
$tq->has('query-hack');
$tq->write_file('index.html', "root index\n");
$tq->run();
$r = req('GET', '/app?x');
is($r->{status}, 301, 'QUERY_HACK=/: /app?x is redirected');
is($r->{headers}{location}, '/app/', '... to /app/, the query left out');
is(req('GET', $r->{headers}{location} // '/')->{body}, "root index\n",
	'... which is the root');
$tq->stop();

# --- GZIP_STATIC -----------------------------------------------------------------
my $tg = MrhttpdTest->new(conf => { GZIP_STATIC => 1 });
$tg->has('gzip-static');
my $plain = "hello, compressed world\n" x 20;
$tg->write_file('page.html', $plain);
my $gzbytes = "\x1f\x8b" . ('z' x 40);	# served as is: the server never reads it
$tg->write_file('page.html.gz', $gzbytes);
$tg->write_file('only.txt', "no gz here\n");
$tg->write_file('og.txt.gz', $gzbytes);
$tg->run();

$r = req('GET', '/page.html', 'Accept-Encoding: gzip, deflate');
is($r->{status}, 200, 'gzip client: 200');
is($r->{headers}{'content-encoding'}, 'gzip', '... Content-Encoding: gzip');
is($r->{headers}{'content-type'}, 'text/html', '... the original Content-Type');
is($r->{body}, $gzbytes, '... the .gz file');
like($r->{headers}{vary} // '', qr/Accept-Encoding/i, '... Vary: Accept-Encoding');
my $gz_etag = $r->{headers}{etag};

$r = req('GET', '/page.html');
is($r->{body}, $plain, 'no Accept-Encoding: the plain file');
ok(!defined $r->{headers}{'content-encoding'}, '... without Content-Encoding');
like($r->{headers}{vary} // '', qr/Accept-Encoding/i, '... and with Vary too');
if ($tg->feature('validators')) {
	isnt($r->{headers}{etag}, $gz_etag, 'the two variants have different ETags');
} else {
	ok(!defined $gz_etag && !defined $r->{headers}{etag},
		'VALIDATORS=0: neither variant has an ETag');
}
is(req('GET', '/page.html', 'Accept-Encoding: gzip;q=0')->{body}, $plain,
	'gzip;q=0 gets the plain file');
is(req('GET', '/page.html', 'Accept-Encoding: br, *;q=0.5')->{body}, $gzbytes,
	'* with q > 0 takes gzip');
is(req('GET', '/page.html', 'Accept-Encoding: *;q=0.5, gzip;q=0')->{body}, $plain,
	'an explicit gzip;q=0 beats *');
is(req('GET', '/only.txt', 'Accept-Encoding: gzip')->{body}, "no gz here\n",
	'no .gz beside the file: the plain file');
is(status('GET', '/page.html', 'Accept-Encoding: gzip',
	'If-None-Match: ' . ($gz_etag // '"x"')),
	$tg->feature('validators') ? 304 : 200,
	'the gzip variant revalidates by its ETag (VALIDATORS=0: 200)');
# a 404 may be cached (RFC 9111 4.2.2): one for FILE, where only FILE.gz
# is there, must not be given to a client that takes gzip
$r = req('GET', '/og.txt');
is($r->{status}, 404, 'only og.txt.gz there: 404 for a client without gzip');
like($r->{headers}{vary} // '', qr/Accept-Encoding/i, '... with Vary: Accept-Encoding');
is(req('GET', '/og.txt', 'Accept-Encoding: gzip')->{body}, $gzbytes,
	'... and og.txt.gz for one that takes it');
$tg->stop();

$t->done_testing();
