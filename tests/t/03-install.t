# make install lays out binary, error pages and rc.httpd under DESTDIR;
# make clean takes the build away again.  Runs on a copy of the tree, so
# the developer's own build is never touched.
use strict;
use warnings;

use File::Temp qw(tempdir);
use Test::More;
use MrhttpdTest;

my $root = $MrhttpdTest::ROOT;
my $tmp = tempdir('mrhttpd-install-XXXXXXXX', TMPDIR => 1, CLEANUP => 1);
my $tree = "$tmp/tree";
my ($rc, $out) = run_cmd('sh', '-c', "mkdir -p '$tree' && cd '$root' && "
	. "cp -R Makefile configure mrhttpd.conf rc.httpd src www '$tree'/ && "
	. "rm -f '$tree'/src/*.o '$tree'/src/config.* '$tree'/src/mrhttpd");
is($rc, 0, 'copied the tree') or diag($out);

my $conf = "$tmp/install.conf";
open my $fh, '>', $conf or die "$conf: $!";
print $fh "PUBLIC_DIR=/srv/www\nPRIVATE_DIR=/srv/pages\nBIN_DIR=/opt/mr/sbin\n"
	. "PID_FILE=/run/mr-test.pid\n";
close $fh;

($rc, $out) = run_cmd('make', '-C', $tree, '-s', "CONF=$conf",
	"DESTDIR=$tmp/dest", 'INITDIR=/etc/init.d', 'install');
is($rc, 0, 'make install DESTDIR=...') or diag($out);
ok(-x "$tmp/dest/opt/mr/sbin/mrhttpd", 'binary in BIN_DIR');
ok(-f "$tmp/dest/srv/pages/404.html", 'error pages in PRIVATE_DIR');
ok(-x "$tmp/dest/etc/init.d/rc.httpd", 'rc.httpd installed');
my $rcfile = do { local (@ARGV, $/) = "$tmp/dest/etc/init.d/rc.httpd"; <> } // '';
like($rcfile, qr{/opt/mr/sbin/mrhttpd}, 'rc.httpd runs the installed binary');
like($rcfile, qr{/run/mr-test\.pid}, 'rc.httpd knows PID_FILE');
unlike($rcfile, qr/\@[A-Z_]+\@/, 'no placeholder left in rc.httpd');
# a cross build (CROSS_COMPILE from the environment) runs under RUN_WRAPPER
($rc, $out) = run_cmd(split(' ', $ENV{RUN_WRAPPER} // ''),
	"$tmp/dest/opt/mr/sbin/mrhttpd", '-V');
like($out, qr/^mrhttpd \S+$/m, 'the installed binary runs');

($rc, $out) = run_cmd('make', '-C', $tree, '-s', "CONF=$conf", 'clean');
is($rc, 0, 'make clean') or diag($out);
my @left = grep { -e } map { "$tree/src/$_" }
	qw(mrhttpd config.h config.mk main.o server.o);
is("@left", '', 'make clean removes the binary, objects and generated files');

done_testing();
