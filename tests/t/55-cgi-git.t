#!/usr/bin/perl
# 55-cgi-git.t - git, unmodified, as the client, and git-http-backend,
# unmodified, as the program: what a router that keeps its configuration
# in a repository would serve.
#
# - "dumb" HTTP: a bare repository under PUBLIC_DIR is static files
#   (info/refs, objects/...), fetched over keep-alive;
# - "smart" HTTP: git clone, fetch and push through git-http-backend,
#   with PATH_INFO, QUERY_STRING, CONTENT_TYPE and the request bodies git
#   sends, a push of more than git's post buffer among them: that goes
#   chunked, so the program gets no CONTENT_LENGTH and reads its input
#   to the end.
#
# Each repository that comes back is checked with git fsck and compared
# commit for commit.

use strict;
use warnings;

use Test::More;
use MrhttpdTest;
use MrhttpdCGI qw(cgi_dir script spew slurp);

my $BACKEND = '/usr/lib/git-core/git-http-backend';
my $git = MrhttpdTest::find_prog('git');
plan(skip_all => 'git is missing (apt-get install git)') unless $git;
plan(skip_all => "$BACKEND is missing (apt-get install git)") unless -x $BACKEND;

my $dir = cgi_dir('cgi-55');
my $bin = "$dir/cgi-bin";
my $repos = "$dir/repos";
my $work = "$dir/work";
mkdir $_ or die "$_: $!" for $repos, $work;

# git with no configuration of the user's or the system's
$ENV{HOME} = $work;
$ENV{GIT_CONFIG_NOSYSTEM} = 1;
$ENV{GIT_TERMINAL_PROMPT} = 0;
$ENV{$_} = 'mrhttpd test' for qw(GIT_AUTHOR_NAME GIT_COMMITTER_NAME);
$ENV{$_} = 'test@example.org' for qw(GIT_AUTHOR_EMAIL GIT_COMMITTER_EMAIL);
delete $ENV{$_} for grep { /^GIT_(DIR|WORK_TREE|INDEX_FILE)$/ } keys %ENV;

# g(ARGS...): runs git; its output, and dies on failure (with the output)
sub g {
	my ($rc, $out) = MrhttpdTest::run_cmd('timeout', '60', $git, @_);
	die "git @_: exit $rc\n$out" if $rc != 0;
	return $out;
}
# rev(GIT_DIR, REF): the commit a ref names
sub rev { my $r = g('--git-dir', $_[0], 'rev-parse', $_[1]); chomp $r; return $r }
# blob(N, SEED): N bytes that do not compress
sub blob {
	my ($n, $x) = (@_);
	my $s = '';
	$s .= pack('N', $x = ($x * 1103515245 + 12345) & 0xffffffff) while length $s < $n;
	return substr($s, 0, $n);
}

# a repository of three commits: text, a subdirectory, a binary file
my $src = "$work/src";
g('init', '-q', '-b', 'main', $src);
spew("$src/config.txt", "hostname=router\n");
g('-C', $src, 'add', '.');
g('-C', $src, 'commit', '-q', '-m', 'first');
mkdir "$src/etc";
spew("$src/etc/hosts", "127.0.0.1 localhost\n");
spew("$src/firmware.bin", blob(300_000, 1));
g('-C', $src, 'add', '.');
g('-C', $src, 'commit', '-q', '-m', 'second');
spew("$src/config.txt", "hostname=router\nlan=192.168.1.1\n");
g('-C', $src, 'commit', '-q', '-a', '-m', 'third');
my $head = rev("$src/.git", 'HEAD');

# the smart one, through the program; push allowed without a user
g('clone', '-q', '--bare', $src, "$repos/r.git");
g('--git-dir', "$repos/r.git", 'config', 'http.receivepack', 'true');
script("$bin/git", <<"EOF");
#!/bin/sh
GIT_PROJECT_ROOT='$repos' GIT_HTTP_EXPORT_ALL=1
export GIT_PROJECT_ROOT GIT_HTTP_EXPORT_ALL
exec '$BACKEND'
EOF

my $t = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin', CGI_DIR => $bin });
$t->has('cgi');

# the dumb one, as files
g('clone', '-q', '--bare', $src, $t->htdocs . '/dumb.git');
g('--git-dir', $t->htdocs . '/dumb.git', 'update-server-info');

$t->run();
my $base = 'http://127.0.0.1:' . $t->port;

# same(GIT_DIR, WHAT): the clone has the commit and passes git fsck
sub same {
	my ($gd, $what) = @_;
	is(rev($gd, 'HEAD'), $head, "$what: HEAD is the commit served");
	my ($rc, $out) = MrhttpdTest::run_cmd($git, '--git-dir', $gd, 'fsck', '--strict');
	is($rc, 0, "$what: git fsck --strict") or diag($out);
}

# --- dumb HTTP: static files ------------------------------------------------------
g('clone', '-q', "$base/dumb.git", "$work/d");
same("$work/d/.git", 'dumb clone');
is(slurp("$work/d/firmware.bin"), blob(300_000, 1), 'dumb clone: the binary file whole');

# --- smart HTTP: clone -------------------------------------------------------------
g('-c', 'http.version=HTTP/1.1', 'clone', '-q', "$base/cgi-bin/git/r.git", "$work/s");
same("$work/s/.git", 'smart clone');
is(slurp("$work/s/etc/hosts"), "127.0.0.1 localhost\n", 'smart clone: the file in etc/');
like(g('-C', "$work/s", 'ls-remote', 'origin'), qr/^\Q$head\E\tHEAD$/m,
	'git ls-remote: HEAD through info/refs?service=git-upload-pack');

# --- smart HTTP: push, more than the post buffer: chunked ---------------------------
spew("$work/s/firmware.bin", blob(3_000_000, 2));
g('-C', "$work/s", 'commit', '-q', '-a', '-m', 'new firmware');
$head = rev("$work/s/.git", 'HEAD');
$ENV{GIT_TRACE_CURL} = "$work/push.trace";
$ENV{GIT_TRACE_CURL_NO_DATA} = 1;
my $out = g('-C', "$work/s", '-c', 'http.postBuffer=65536', 'push', 'origin', 'main');
delete $ENV{GIT_TRACE_CURL};
my $trace = slurp("$work/push.trace") // '';
my $post = qr{Send header: POST /cgi-bin/git/r\.git/git-receive-pack HTTP/1\.1\n};
like($trace, qr{$post(?:[^\n]*Send header:[^\n]*\n)*?[^\n]*Send header: Transfer-Encoding: chunked},
	'the push went as a chunked POST');
is(rev("$repos/r.git", 'main'), $head, 'push of 3 MB (chunked, no CONTENT_LENGTH): '
	. 'the branch moved') or diag($out);
my ($rc, $fsck) = MrhttpdTest::run_cmd($git, '--git-dir', "$repos/r.git", 'fsck', '--strict');
is($rc, 0, 'push: the server\'s repository passes git fsck') or diag($fsck);

# --- smart HTTP: fetch what was pushed, into the first clone ------------------------
g('-C', "$work/d", 'remote', 'set-url', 'origin', "$base/cgi-bin/git/r.git");
g('-C', "$work/d", 'pull', '-q', '--ff-only', 'origin', 'main');
same("$work/d/.git", 'fetch after the push');
is(slurp("$work/d/firmware.bin"), blob(3_000_000, 2), 'fetch: the new 3 MB file whole');

# --- a push of nothing new, and one that is refused ----------------------------------
like(g('-C', "$work/s", 'push', 'origin', 'main'), qr/^$|up-to-date/i,
	'a push with nothing new: up to date');
spew("$work/d/config.txt", "diverged\n");
g('-C', "$work/d", 'commit', '-q', '-a', '-m', 'diverged');
g('-C', "$work/s", 'commit', '-q', '--allow-empty', '-m', 'ahead');
g('-C', "$work/s", 'push', '-q', 'origin', 'main');
($rc, $out) = MrhttpdTest::run_cmd('timeout', '60', $git, '-C', "$work/d", 'push',
	'origin', 'main');
ok($rc != 0 && $out =~ /rejected|non-fast-forward/, 'a push that is not a fast '
	. 'forward: rejected by git, over a 200') or diag($out);
is(rev("$repos/r.git", 'main'), rev("$work/s/.git", 'HEAD'),
	'... and the branch stays where it was');

ok($t->alive, 'the server is still up');
$t->done_testing();
