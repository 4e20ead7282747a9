#!/usr/bin/perl
# configure: bad values are refused loudly and generate nothing; aliases and
# upstream 2.8 configuration files are accepted; mrhttpd.conf is plain sh.

use strict;
use warnings;

use File::Path qw(make_path);
use File::Temp qw(tempdir);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);

my $root = $MrhttpdTest::ROOT;
my $tmp = tempdir('mrhttpd-conf-XXXXXXXX', TMPDIR => 1,
	CLEANUP => !$ENV{MRHTTPD_TEST_LEAVE});
my $n = 0;

# configure_with(TEXT): runs configure on TEXT into a fresh -o directory.
# Returns (exit status, stdout, stderr, output dir).
sub configure_with {
	my ($text) = @_;
	$n++;
	my $dir = "$tmp/out$n";
	mkdir $dir or die "mkdir $dir: $!";
	my $conf = "$tmp/conf$n";
	open my $fh, '>', $conf or die "$conf: $!";
	print $fh $text;
	close $fh;
	my $rc = run_cmd({ stdout => "$tmp/stdout$n", stderr => "$tmp/stderr$n",
		cwd => $root }, 'sh', "$root/configure", '-o', $dir, $conf);
	return ($rc, slurp("$tmp/stdout$n"), slurp("$tmp/stderr$n"), $dir);
}


my $ok = "PUBLIC_DIR=/srv/www\n";

# configure is a host shell script, the same whatever the server is built
# with: its refusals and acceptances run in the plain pass only, and every
# pass builds and serves with an upstream conf (at the end)
my $plain = !grep { length($ENV{$_} // '') }
	qw(RUN_WRAPPER CROSS_COMPILE MRHTTPD_SANITIZE MRHTTPD_TEST_CONF);
CONFIGURE: {
last CONFIGURE unless $plain;

# Each refusal: [name, conf text, key the one stderr line must name]
my @refused = (
	['port 0', "${ok}SERVER_PORT=0\n", 'SERVER_PORT'],
	['port 70000', "${ok}SERVER_PORT=70000\n", 'SERVER_PORT'],
	['port not a number', "${ok}SERVER_PORT=80a\n", 'SERVER_PORT'],
	['LOG_LEVEL 5', "${ok}LOG_LEVEL=5\n", 'LOG_LEVEL'],
	['missing PUBLIC_DIR', "SERVER_PORT=8080\n", 'PUBLIC_DIR'],
	['relative PUBLIC_DIR', "PUBLIC_DIR=srv/www\n", 'PUBLIC_DIR'],
	# a file key naming a directory
	['LOG_FILE a directory', "${ok}LOG_FILE=/var/log/\n", 'LOG_FILE'],
	['PID_FILE a directory', "${ok}PID_FILE=/run/\n", 'PID_FILE'],
	['AUTH_FILE a directory', "${ok}AUTH_FILE=/etc/\n", 'AUTH_FILE'],
	['TLS_KEY a directory', "${ok}TLS=1\nTLS_CERT=/c.pem\nTLS_KEY=/k/\n", 'TLS_KEY'],
	['unknown key (typo)', "${ok}LOG_LEVLE=2\n", 'LOG_LEVLE'],
	# saved with a UTF-8 byte order mark: invisible, and the first key
	# would be unreadable
	['a UTF-8 byte order mark', "\xEF\xBB\xBF${ok}", 'byte order mark'],
	# a request's value comes without the spaces around it
	['AUTH_HEADER ending in a space', "${ok}AUTH_HEADER='Basic dGVzdDp0ZXN0 '\n",
		'AUTH_HEADER'],
	# bash (/bin/sh on some systems) expands the braces after export,
	# dash and BusyBox do not: the value would depend on the shell
	['braces after export', "${ok}export PRAGMA={no-cache,private}\n", 'PRAGMA'],
	# one program, called with -b --mime-type: no arguments of its own
	['EXT_FILE_CMD with arguments', "${ok}EXT_FILE_CMD='/usr/bin/file -L'\n",
		'EXT_FILE_CMD'],
	['CGI_PATH without CGI_DIR', "${ok}CGI_PATH=/cgi-bin\n", 'CGI_DIR'],
	['CGI_DIR without CGI_PATH', "${ok}CGI_DIR=/srv/cgi\n", 'CGI_PATH'],
	['relative CGI_DIR', "${ok}CGI_PATH=/cgi-bin\nCGI_DIR=cgi\n", 'CGI_DIR'],
	['CGI_PATH without leading /', "${ok}CGI_PATH=cgi-bin\nCGI_DIR=/srv/cgi\n",
		'CGI_PATH'],
	['CGI_TIMEOUT 0', "${ok}CGI_PATH=/c\nCGI_DIR=/srv/cgi\nCGI_TIMEOUT=0\n",
		'CGI_TIMEOUT'],
	['PUT_PATH relative', "${ok}PUT_PATH=incoming\n", 'PUT_PATH'],
	['PUT_PATH with ..', "${ok}PUT_PATH=/a/../b\n", 'PUT_PATH'],
	['PUT_MAX_BODY not a number', "${ok}PUT_PATH=/in\nPUT_MAX_BODY=1k\n",
		'PUT_MAX_BODY'],
	['AUTO_INDEX 4', "${ok}AUTO_INDEX=4\n", 'AUTO_INDEX'],
	['XSLT_HEADER without XML listings', "${ok}XSLT_HEADER=x\n", 'XSLT_HEADER'],
	['AUTH_METHODS 16', "${ok}AUTH_HEADER='Basic eA=='\nAUTH_METHODS=16\n",
		'AUTH_METHODS'],
	['PATH_PREFIX with trailing /', "${ok}PATH_PREFIX=/app/\n", 'PATH_PREFIX'],
	# URL paths no request could match: PATH_PREFIX meets the path as
	# sent (a space is %20 there; ? and # end it), the others the path
	# decoded and normalised (no . or .. segment left)
	['PATH_PREFIX with a space', "${ok}PATH_PREFIX='/a b'\n", 'PATH_PREFIX'],
	['PATH_PREFIX with ?', "${ok}PATH_PREFIX='/a?b'\n", 'PATH_PREFIX'],
	['PATH_PREFIX with #', "${ok}PATH_PREFIX='/a#b'\n", 'PATH_PREFIX'],
	['PATH_PREFIX with .', "${ok}PATH_PREFIX=/a/./b\n", 'PATH_PREFIX'],
	['CGI_PATH with ..', "${ok}CGI_PATH=/c/../x\nCGI_DIR=/srv/cgi\n", 'CGI_PATH'],
	['QUERY_HACK with //', "${ok}QUERY_HACK=/a//b\n", 'QUERY_HACK'],
	['QUERY_HACK with ..', "${ok}QUERY_HACK=../x\n", 'QUERY_HACK'],
	# a key of a feature compiled out would silently do nothing
	['CGI_TIMEOUT without CGI', "${ok}CGI_TIMEOUT=5\n", 'CGI_TIMEOUT'],
	['CGI_MAX_BODY without CGI', "${ok}CGI_MAX_BODY=1000\n", 'CGI_MAX_BODY'],
	['CGI_AUTHORIZATION=1 without CGI', "${ok}CGI_AUTHORIZATION=1\n",
		'CGI_AUTHORIZATION'],
	['AUTH_REALM without auth', "${ok}AUTH_REALM=router\n", 'AUTH_REALM'],
	['unknown key AUTH_USERS', "${ok}AUTH_USERS=/etc/x\n", 'AUTH_USERS'],
	['DETACH=2', "${ok}DETACH=2\n", 'DETACH'],
	# the half-sent heads' stash: 1 GiB of address space at most
	['MAX_CONNECTIONS 131073 with 8 KiB heads', "${ok}MAX_CONNECTIONS=131073\n",
		'MAX_CONNECTIONS'],
	['MAX_CONNECTIONS 16385 with 64 KiB heads',
		"${ok}MAX_CONNECTIONS=16385\nHTTP_HEADER_LENGTH=65536\n", 'MAX_CONNECTIONS'],
	# a line the shell would run as a command: the key stayed unset
	['spaces around =', "${ok}AUTH_HEADER = 'Basic eA=='\n", 'AUTH_HEADER'],
	['a space after =', "${ok}SYSTEM_USER= nobody\n", 'SYSTEM_USER'],
	['an unquoted value with a space', "${ok}PRAGMA=no cache\n", 'PRAGMA'],
	['a command after =', "${ok}AUTH_HEADER= true\n", 'AUTH_HEADER'],
	['a number after = and a space', "${ok}MAX_CONNECTIONS= 100\n", 'MAX_CONNECTIONS'],
	['a command after ;', "${ok}SYSTEM_USER=nobody; ls\n", 'SYSTEM_USER'],
	['Windows line ends', "PUBLIC_DIR=/srv/www\r\nSERVER_PORT=8080\r\n", 'CR characters'],
	# config.mk goes to make and the install recipes
	['make code in BIN_DIR', "${ok}BIN_DIR='/usr/\$(shell touch $tmp/pwned)bin'\n",
		'BIN_DIR'],
	['a backquote in PRIVATE_DIR', "${ok}PRIVATE_DIR='/srv/`touch $tmp/pwned`'\n",
		'PRIVATE_DIR'],
	['& in PID_FILE', "${ok}PID_FILE='/run/a&b'\n", 'PID_FILE'],
	['# in PUBLIC_DIR', "PUBLIC_DIR='/srv/www#x'\n", 'PUBLIC_DIR'],
	['a space in SERVER_ROOT', "${ok}SERVER_ROOT='/srv/my jail'\n", 'SERVER_ROOT'],
	['SERVER_ROOT of slashes only', "${ok}SERVER_ROOT=//\n", 'SERVER_ROOT'],
	# the shell would expand these when configure reads the file: a
	# command run, or a value that depends on who runs make
	['$(...) in double quotes', "${ok}PRAGMA=\"\$(touch $tmp/pwned)x\"\n", 'PRAGMA'],
	['a backquote in double quotes', "${ok}PRAGMA=\"`touch $tmp/pwned`x\"\n", 'PRAGMA'],
	['$((...)) in double quotes', "${ok}PRAGMA=\"\$((6*7))\"\n", 'PRAGMA'],
	['$HOME unquoted', "PUBLIC_DIR=\$HOME/www\n", 'PUBLIC_DIR'],
	['${VAR:-x} unquoted', "${ok}PRAGMA=\${USER:-nobody}\n", 'PRAGMA'],
	['~ at the start', "PUBLIC_DIR=~/www\n", 'PUBLIC_DIR'],
	['~ after a colon', "${ok}PRAGMA=a:~/b\n", 'PRAGMA'],
	# a # or ' inside double quotes is neither a comment nor a quote
	['$(...) after a quoted #', "${ok}PRAGMA=\"a #\$(touch $tmp/pwned)\"\n", 'PRAGMA'],
	["\$(...) between quoted '", "${ok}PRAGMA=\"'\$(touch $tmp/pwned)'\"\n", 'PRAGMA'],
	# a NUL made grep take the file for binary and check no line
	['a NUL in a comment', "# note\0\n${ok}AUTH_HEADER= true\n", 'NUL'],
	['a NUL in a value', "${ok}SERVER_PORT=8\0" . "1\n", 'NUL'],
	# bytes above 127 in any locale: C strings and headers are ASCII
	['Latin-1 in a comment after a command', "${ok}touch $tmp/pwned # caf\xe9\n", 'line 2'],
	['UTF-8 in PRAGMA', "${ok}PRAGMA=caf\xc3\xa9\n", 'PRAGMA'],
	# a trigraph under -std=c99: "??/" is a backslash
	['?? in PRAGMA', "${ok}PRAGMA='no-cache??/r??/nX: y'\n", 'PRAGMA'],
	['a tab in SERVER_ADDR', "${ok}SERVER_ADDR='1.2.3.4\t'\n", 'SERVER_ADDR'],
	['SERVER_ADDR with a leading zero', "${ok}SERVER_ADDR=010.0.0.1\n", 'SERVER_ADDR'],
	['SERVER_ADDR a colon', "${ok}SERVER_ADDR=:\n", 'SERVER_ADDR'],
	['SERVER_ADDR with two ::', "${ok}SERVER_ADDR=1::2::3\n", 'SERVER_ADDR'],
	['SERVER_ADDR with nine groups', "${ok}SERVER_ADDR=1:2:3:4:5:6:7:8:9\n", 'SERVER_ADDR'],
	['SERVER_ADDR with IPv4 octet 256', "${ok}SERVER_ADDR=::ffff:256.0.0.1\n", 'SERVER_ADDR'],
	['SERVER_ADDR with IPv4 leading zero', "${ok}SERVER_ADDR=::ffff:1.2.3.04\n", 'SERVER_ADDR'],
	# a 2.2 name's bad value: the line names the key the conf has
	['2.2 SENDFILE=2', "${ok}SENDFILE=2\n", 'SENDFILE'],
	['2.2 CGI_URL without CGI_DIR', "${ok}CGI_URL=/cgi\n", 'CGI_URL'],
	['2.2 SERVER_DOCS relative', "${ok}SERVER_DOCS=rel\n", 'SERVER_DOCS'],
	['2.2 DOC_DIR relative', "DOC_DIR=srv\n", 'DOC_DIR'],
);

for my $c (@refused) {
	my ($name, $text, $key) = @$c;
	my ($rc, $out, $err, $dir) = configure_with($text);
	isnt($rc, 0, "$name: configure exits non-zero");
	my @lines = split /\n/, $err;
	is(scalar @lines, 1, "$name: one line on stderr") or diag($err);
	like($lines[0] // '', qr/\b\Q$key\E\b/, "$name: the line names $key");
	ok(!-e "$dir/config.h", "$name: no config.h written");
}

# Accepted: the 2.2 aliases and SENDFILE=0.
{
	my ($rc, $out, $err, $dir) = configure_with("DOC_DIR=/srv/docs\n");
	is($rc, 0, 'DOC_DIR alias accepted') or diag($err);
	like(slurp("$dir/config.h"), qr{^#define CONFIG_PUBLIC_DIR "/srv/docs"$}m,
		'DOC_DIR becomes the public dir');
}
{
	my ($rc, $out, $err, $dir) = configure_with(
		"${ok}SERVER_DOCS=/srv/private\n");
	is($rc, 0, 'SERVER_DOCS alias accepted') or diag($err);
	like(slurp("$dir/config.h"),
		qr{^#define CONFIG_PRIVATE_DIR "/srv/private"$}m,
		'SERVER_DOCS becomes the private dir');
}
{
	my ($rc, $out, $err, $dir) = configure_with("${ok}QUERY_HACK=index\n");
	is($rc, 0, 'QUERY_HACK=index (upstream\'s example) accepted') or diag($err);
	like(slurp("$dir/config.h"), qr{^#define CONFIG_QUERY_HACK "/index"$}m,
		'QUERY_HACK=index: names below the document root');
}
# a directory's trailing slashes go: they would double in the paths made
# from it (SCRIPT_FILENAME, SERVER_ROOT before LOG_FILE)
{
	my ($rc, $out, $err, $dir) = configure_with("PUBLIC_DIR=/srv/www/\n"
		. "CGI_PATH=/cgi-bin\nCGI_DIR=/srv/cgi//\nSERVER_ROOT=/jail/\n");
	is($rc, 0, 'directories with trailing slashes accepted') or diag($err);
	my $h = slurp("$dir/config.h") // '';
	like($h, qr{^#define CONFIG_CGI_DIR "/srv/cgi"$}m, '... CGI_DIR without them');
	like($h, qr{^#define CONFIG_SERVER_ROOT "/jail"$}m, '... SERVER_ROOT too');
	like($h, qr{^#define CONFIG_PUBLIC_DIR "/srv/www"$}m, '... PUBLIC_DIR too');
}
# leading zeros are no digits too many
{
	my ($rc, $out, $err, $dir) = configure_with("${ok}SERVER_PORT=0000000080\n");
	is($rc, 0, 'SERVER_PORT=0000000080 accepted') or diag($err);
	like(slurp("$dir/config.h") // '', qr{^#define CONFIG_SERVER_PORT 80$}m,
		'... as port 80');
}
# upstream 2.8's container configuration (its setting lines, unchanged):
# PUT_PATH=/ opens the whole document root
{
	my ($rc, $out, $err, $dir) = configure_with(<<'EOF');
SERVER_PORT=8080
SERVER_ROOT=/opt/mrhttpd
BIN_DIR=/usr/local/bin
PRIVATE_DIR=/private
PUBLIC_DIR=/public
PUT_PATH=/
DEFAULT_INDEX=index.html
AUTO_INDEX=2
XSLT_HEADER='<?xml-stylesheet href=\"/html.xslt\" type=\"text/xsl\"?>'
LOG_LEVEL=0
DETACH=0
EOF
	is($rc, 0, 'upstream 2.8 container conf (PUT_PATH=/) accepted') or diag($err);
	my $h = slurp("$dir/config.h") // '';
	like($h, qr{^#define ENABLE_PUT 1$}m, 'PUT_PATH=/: uploads on');
	like($h, qr{^#define CONFIG_PUT_PATH ""$}m,
		'... below the root: the empty prefix');
}
# ... which may hold a space, %, ? or # (decoded from %20, %25, %3F, %23),
# and PATH_PREFIX a % (as sent)
{
	my ($rc, $out, $err, $dir) = configure_with("${ok}PUT_PATH='/my files'\n"
		. "CGI_PATH='/c?x'\nCGI_DIR=/srv/cgi\nQUERY_HACK='/a#b'\n"
		. "PATH_PREFIX=/%7Euser\n");
	is($rc, 0, 'URL paths with a space, ?, # and %: accepted') or diag($err);
	like(slurp("$dir/config.h"), qr{^#define CONFIG_PUT_PATH "/my files"$}m,
		'... as written');
}
{
	my ($rc, $out, $err, $dir) = configure_with(
		"${ok}CGI_AUTHORIZATION=0\nTLS_REDIRECT=0\n");
	is($rc, 0, 'a switch of a feature compiled out set to 0 is accepted')
		or diag($err);
}
{
	my ($rc, $out, $err, $dir) = configure_with(
		"${ok}CGI_URL=/cgi-bin\nCGI_DIR=/srv/cgi\n");
	is($rc, 0, 'CGI_URL alias accepted') or diag($err);
	like(slurp("$dir/config.h"), qr{^#define CONFIG_CGI_PATH "/cgi-bin"$}m,
		'CGI_URL becomes CGI_PATH');
	like(slurp("$dir/config.h"), qr{^#define ENABLE_CGI 1$}m,
		'... and turns CGI on');
}
ok(!-e "$tmp/pwned", 'no value ran a command');
for my $l ("PRAGMA='a b' # a note", 'PRAGMA="no-cache" # a note', 'export PRAGMA=x',
    "  PRAGMA=x  ", 'PRAGMA=x # off', 'PRAGMA=   # off', "PUBLIC_DIR=/srv/co:lon%2F=x\n",
    (map { "SERVER_ADDR=$_" } qw(::1 :: fe80::1 2001:db8::8:1 ::ffff:192.0.2.1
    1:2:3:4:5:6:7:8 0.0.0.0 192.168.1.1)), 'MAX_CONNECTIONS=131072',
    "MAX_CONNECTIONS=16384\nHTTP_HEADER_LENGTH=65536",
    # quotes and # inside double quotes, $ in a comment, ~ inside a word
    # or in double quotes: nothing the shell expands
    q{PRAGMA="it's" # a 'b' costs $5}, 'PRAGMA="x:~y"', 'PUBLIC_DIR=/srv/a~b/www',
    '# $HOME is not read here') {
	my ($rc, $out, $err) = configure_with("${ok}$l\n");
	is($rc, 0, "accepted: $l") or diag($err);
}
{
	my ($rc, $out, $err, $dir) = configure_with(
		"${ok}PUT_PATH=/in\nPUT_MAX_BODY=0100\nCGI_PATH=/c\nCGI_DIR=/srv/c\n"
		. "CGI_MAX_BODY=010\n");
	is($rc, 0, 'PUT_MAX_BODY=0100 accepted') or diag($err);
	like(slurp("$dir/config.h"), qr{^#define CONFIG_PUT_MAX_BODY 100LL$}m,
		'... as 100 bytes, not octal 64');
	like(slurp("$dir/config.h"), qr{^#define CONFIG_CGI_MAX_BODY 10LL$}m,
		'CGI_MAX_BODY=010 as 10 bytes');
}
# upstream 2.8's DEBUG: built, with a warning that says it does nothing
{
	my ($rc, $out, $err, $dir) = configure_with("${ok}DEBUG=1\n");
	is($rc, 0, 'DEBUG=1 (upstream 2.8) accepted') or diag($err);
	like($err, qr/^configure: warning: DEBUG .*no effect.*LOG_LEVEL/,
		'... with a warning naming LOG_LEVEL');
	ok(-e "$dir/config.h", '... and config.h written');
	($rc, $out, $err) = configure_with("${ok}DEBUG=\n");
	ok($rc == 0 && $err !~ /DEBUG/, 'DEBUG empty: no warning') or diag($err);
}
# LOG_FILE with LOG_LEVEL=0, which builds no logging: taken, with a warning
{
	my ($rc, $out, $err) = configure_with("${ok}LOG_FILE=/var/log/m.log\n");
	ok($rc == 0 && $err =~ /^configure: warning: LOG_FILE has no effect with LOG_LEVEL=0/m,
		'LOG_FILE with LOG_LEVEL=0: accepted, with a warning') or diag($err);
	like($out, qr/^  LOG_LEVEL +0 \(nothing logged\)$/m,
		'... and the summary does not name the file');
	($rc, $out, $err) = configure_with("${ok}LOG_FILE=/var/log/m.log\nLOG_LEVEL=1\n");
	ok($rc == 0 && $err !~ /LOG_FILE/ && $out =~ m{LOG_LEVEL +1, to /var/log/m\.log$}m,
		'LOG_LEVEL=1: no warning, the file in the summary') or diag($err);
}
# the 2.2 name is said only where the conf set the key by it alone, and
# never for a key named inside a quoted value
{
	my ($rc, $out, $err) = configure_with("DOC_DIR=rel\nPUBLIC_DIR=rel\n");
	ok($rc != 0 && $err =~ /^configure: PUBLIC_DIR: / && $err !~ /2\.2/,
		'DOC_DIR and PUBLIC_DIR alike: the refusal names PUBLIC_DIR alone')
		or diag($err);
	($rc, $out, $err) = configure_with("SERVER_DOCS=/p\n${ok}"
		. "LOG_FILE='logs (PRIVATE_DIR) x'\n");
	ok($rc != 0 && $err =~ /^configure: LOG_FILE: / && $err !~ /2\.2/,
		'a key named in a quoted value gets no 2.2 note') or diag($err);
}
# a byte count's leading zeros are no digits too many either
{
	my ($rc, $out, $err, $dir) = configure_with(
		"${ok}PUT_PATH=/in\nPUT_MAX_BODY=" . ('0' x 20) . "1048576\n");
	is($rc, 0, 'PUT_MAX_BODY with 20 leading zeros accepted') or diag($err);
	like(slurp("$dir/config.h") // '', qr{^#define CONFIG_PUT_MAX_BODY 1048576LL$}m,
		'... as 1048576 bytes');
	($rc, $out, $err, $dir) = configure_with("${ok}PUT_PATH=/in\nPUT_MAX_BODY=000\n");
	like(slurp("$dir/config.h") // '', qr{^#define CONFIG_PUT_MAX_BODY 0LL$}m,
		'PUT_MAX_BODY=000 is 0 bytes');
}
{
	my ($rc, $out, $err, $dir) = configure_with(
		"${ok}HTTP_HEADER_LENGTH=512\nHTTP2=1\n");
	is($rc, 0, 'HTTP_HEADER_LENGTH=512 with HTTP2=1 accepted') or diag($err);
	like(slurp("$dir/config.h"), qr{^#define CONFIG_HTTP2_MAX_HEADER_LIST 1024$}m,
		'... HTTP2_MAX_HEADER_LIST at its least, 1024, not 512');
}
{
	my ($rc, $out, $err, $dir) = configure_with("${ok}SENDFILE=0\n");
	is($rc, 0, 'SENDFILE=0 accepted') or diag($err);
	like(slurp("$dir/config.h"), qr{^#define ENABLE_SENDFILE 0$}m,
		'SENDFILE=0 turns sendfile off');
}
{
	# sh semantics: the last of two lines counts, and configure says so
	my ($rc, $out, $err, $dir) = configure_with(
		"${ok}LOG_LEVEL=1\n# LOG_LEVEL=2\nSERVER_PORT=81\n  export LOG_LEVEL=3\n");
	is($rc, 0, 'a key set twice is accepted') or diag($err);
	like(slurp("$dir/config.h"), qr{^#define CONFIG_LOG_LEVEL 3$}m,
		'... with the value of its last line');
	is($err, "configure: warning: LOG_LEVEL is set on lines 2 5; line 5 counts\n",
		'... and named on stderr with its lines');
}
{
	my ($rc, $out, $err, $dir) = configure_with(
		slurp("$root/mrhttpd.conf"));
	is($rc, 0, 'shipped mrhttpd.conf accepted') or diag($err);
	is($err, '', 'shipped mrhttpd.conf: nothing on stderr');
}

# mrhttpd.conf is plain POSIX sh.
for my $shell (['dash'], ['busybox', 'sh']) {
	SKIP: {
		skip "$shell->[0] not installed", 2
			unless MrhttpdTest::find_prog($shell->[0]);
		my $rc = run_cmd({ stdout => "$tmp/sh.out", stderr => "$tmp/sh.err",
			cwd => $root }, @$shell, '-c',
			'set -e; . ./mrhttpd.conf; echo "port=$SERVER_PORT"');
		is($rc, 0, "@$shell can source mrhttpd.conf")
			or diag(slurp("$tmp/sh.err"));
		is(slurp("$tmp/sh.out") . slurp("$tmp/sh.err"), "port=8080\n",
			"@$shell: values read, no complaints");
	}
}

# configure with BusyBox alone (its sh and applets, nothing else on PATH),
# as on a build host or device without coreutils: Debian's BusyBox has no
# cksum, with which the NUL check once compared two empty strings
SKIP: {
	my $bb = MrhttpdTest::find_prog('busybox');
	skip 'busybox not installed', 5 unless $bb;
	my $bin = "$tmp/busybox-bin";
	make_path($bin);
	for my $applet (split /\n/, `'$bb' --list`) {
		symlink($bb, "$bin/$applet") or die "$bin/$applet: $!"
			if $applet =~ /^[a-z0-9_.-]+$/;
	}
	my $conf_bb = sub {
		my ($text, $dir) = @_;
		my $conf = "$tmp/bb-$dir.conf";
		open my $fh, '>', $conf or die "$conf: $!";
		print $fh $text;
		close $fh;
		mkdir "$tmp/$dir" or die "mkdir: $!";
		local $ENV{PATH} = $bin;
		my $rc = run_cmd({ stdout => "$tmp/$dir.out",
			stderr => "$tmp/$dir.err", cwd => $root },
			"$bin/sh", "$root/configure", '-o', "$tmp/$dir", $conf);
		return ($rc, slurp("$tmp/$dir.err"));
	};
	my ($rc, $err) = $conf_bb->(slurp("$root/mrhttpd.conf"), 'bb-ok');
	is($rc, 0, 'BusyBox alone: shipped mrhttpd.conf accepted') or diag($err);
	my ($rc0, $out0, $err0, $dir0) = configure_with(slurp("$root/mrhttpd.conf"));
	# the same but for line 1, which names the conf file read
	my @h = map { (my $t = slurp($_)) =~ s/\A[^\n]*\n//; $t }
		"$tmp/bb-ok/config.h", "$dir0/config.h";
	is($h[0], $h[1], '... the same config.h as with the host tools');
	($rc, $err) = $conf_bb->("${ok}SERVER_PORT=8\0" . "1\n", 'bb-nul');
	isnt($rc, 0, 'BusyBox alone: a NUL in a value refused');
	like($err, qr/^configure: .*NUL/, '... saying so') or diag($err);
	ok(!-e "$tmp/bb-nul/config.h", '... no config.h written');
}
}	# CONFIGURE

# An mrhttpd 2.8 style configuration, unchanged, builds and serves.
my $logfile = "$root/tests/build/data-01-configure/upstream.log";
my $upstream = <<"EOF";
# mrhttpd.conf - mrhttpd 2.8 style
#SYSTEM_USER=nobody
#PATH_PREFIX=
SERVER_PORT=8080
#SERVER_ROOT=/var/www
BIN_DIR=/usr/local/sbin
PRIVATE_DIR=/var/www/mrhttpd
PUBLIC_DIR=/var/www/htdocs
#CGI_DIR=/var/www/cgi-bin
#CGI_PATH=/cgi-bin
#PUT_PATH=/upload
DEFAULT_INDEX=index.html
AUTO_INDEX=0
#XSLT_HEADER=/xslt/dir.xsl
LOG_LEVEL=4
LOG_FILE=$logfile
#EXT_FILE_CMD=/usr/bin/file
USE_SENDFILE=1
DETACH=1
HTTP_HEADER_LENGTH=2048
PRAGMA=no-cache
QUERY_HACK=/
#AUTH_HEADER=Authorization
#AUTH_METHODS=Basic
EOF
{
	my ($rc, $out, $err) = configure_with($upstream);
	is($rc, 0, 'upstream 2.8 conf: configure accepts it') or diag($err);
}
# fixed, and locked: another run of this file (make check runs two steps
# at a time) must not remove the log under this one
MrhttpdTest::fixed_dir('data-01-configure');
my $t = MrhttpdTest->new(conf_text => $upstream);
$t->write_file('index.html', "<p>upstream style</p>\n");
$t->run();
my $r = http_get('/');
like($r, qr{^HTTP/1\.[01] 200 }, 'upstream 2.8 conf: serves /');
like($r, qr{\r\n\r\n<p>upstream style</p>\n\z}, 'upstream 2.8 conf: index body');
like($r, qr{\r\nPragma: no-cache\r\n}i, 'upstream 2.8 conf: PRAGMA honoured');
$t->stop();
like($t->log, qr{"GET / HTTP/1\.0" 200 }, 'upstream 2.8 conf: LOG_FILE written');

$t->done_testing();
