# make install lays out binary, error pages and rc.httpd under DESTDIR;
# make clean takes the build away again.  Runs on a copy of the tree, so
# the developer's own build is never touched.
use strict;
use warnings;

use File::Temp qw(tempdir);
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);

# Its makes never go through the harness's build: the sanitizer and the
# minimal passes would only repeat the plain one (a cross pass does not:
# CROSS_COMPILE from the environment reaches them)
plan skip_all => 'make install is tested in the plain and cross passes'
	if $ENV{MRHTTPD_SANITIZE} || $ENV{MRHTTPD_TEST_CONF};

my $root = $MrhttpdTest::ROOT;
my $tmp = tempdir('mrhttpd-install-XXXXXXXX', TMPDIR => 1, CLEANUP => 1);
my $tree = "$tmp/tree";
my ($rc, $out) = run_cmd('sh', '-c', "mkdir -p '$tree' && cd '$root' && "
	. "cp -R Makefile configure mrhttpd.conf rc.httpd src www '$tree'/ && "
	. "mkdir '$tree/doc' && cp doc/mrhttpd.8 '$tree/doc/' && "
	. "rm -f '$tree'/src/*.o '$tree'/src/config.* '$tree'/src/flags '$tree'/src/mrhttpd");
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
ok(-f "$tmp/dest/usr/local/share/man/man8/mrhttpd.8", 'the man page in PREFIX');
# a cross build (CROSS_COMPILE from the environment) runs under RUN_WRAPPER
($rc, $out) = run_cmd(split(' ', $ENV{RUN_WRAPPER} // ''),
	"$tmp/dest/opt/mr/sbin/mrhttpd", '-V');
like($out, qr/^mrhttpd \S+$/m, 'the installed binary runs');

# make install-strip: the same binary without its symbols, and it runs
($rc, $out) = run_cmd('make', '-C', $tree, '-s', "CONF=$conf",
	"DESTDIR=$tmp/strip", 'INITDIR=/etc/init.d', 'install-strip');
is($rc, 0, 'make install-strip') or diag($out);
my ($full, $bare) = map { -s "$tmp/$_/opt/mr/sbin/mrhttpd" // 0 } qw(dest strip);
ok($bare > 0 && $bare < $full, "install-strip: $bare bytes, not $full");
($rc, $out) = run_cmd(split(' ', $ENV{RUN_WRAPPER} // ''),
	"$tmp/strip/opt/mr/sbin/mrhttpd", '-V');
like($out, qr/^mrhttpd \S+$/m, 'the stripped binary runs');

# the GNU names, as dh_auto_install, Buildroot and OpenWrt pass them, and
# an INSTALL of their own
my $log = "$tmp/install.log";
my $inst = "$tmp/install.sh";
open $fh, '>', $inst or die "$inst: $!";
print $fh "#!/bin/sh\necho \"\$*\" >> '$log'\nexec install \"\$@\"\n";
close $fh;
chmod 0755, $inst;
($rc, $out) = run_cmd('make', '-C', $tree, '-s', "CONF=$conf",
	"DESTDIR=$tmp/gnu", 'prefix=/usr', 'sbindir=/usr/sbin',
	"INSTALL=$inst", 'INITDIR=/etc/init.d', 'install');
is($rc, 0, 'make install prefix=/usr sbindir=/usr/sbin INSTALL=...')
	or diag($out);
ok(-x "$tmp/gnu/usr/sbin/mrhttpd" && !-e "$tmp/gnu/opt/mr/sbin/mrhttpd",
	'sbindir: the binary there, not in BIN_DIR');
ok(-f "$tmp/gnu/usr/share/man/man8/mrhttpd.8", 'prefix: the man page below it');
like(slurp("$tmp/gnu/etc/init.d/rc.httpd"), qr{/usr/sbin/mrhttpd},
	'rc.httpd runs the binary in sbindir');
like(slurp($log), qr{/usr/sbin/mrhttpd$}m, 'INSTALL installed it');
($rc, $out) = run_cmd('make', '-C', $tree, '-s', "CONF=$conf",
	"DESTDIR=$tmp/gnu2", 'mandir=/usr/man', 'INITDIR=/etc/init.d', 'install');
ok($rc == 0 && -f "$tmp/gnu2/usr/man/man8/mrhttpd.8", 'mandir') or diag($out);

# What make rebuilds is make's logic, the same with any compiler: in the
# plain pass only (a cross pass would compile each of them again with the
# target's compiler, for nothing new)
REBUILDS: {
last REBUILDS if $ENV{CROSS_COMPILE} || $ENV{RUN_WRAPPER};

# The rebuilds from here on keep their objects in a cache of their own
# (extra/objcache.sh): a configuration built before is copied back, not
# compiled again.  Make decides what to rebuild as it does without it.
($rc, $out) = run_cmd('sh', '-c', "mkdir -p '$tree/extra' && "
	. "cp '$root/extra/objcache.sh' '$tree/extra/'");
is($rc, 0, 'copied extra/objcache.sh') or diag($out);
my @remake = ('make', '-C', $tree, "OBJ_CACHE=$tmp/objcache");

# another compiler or other flags rebuild: the binary of the build before
# is never kept (the README's "make CC=musl-gcc LDFLAGS=-static" after a
# plain make, or CROSS_COMPILE after a native build)
my $bin = "$tree/src/mrhttpd";
my $sum = sub { my ($c, $o) = run_cmd('cksum', $bin); return $o };
my $before = $sum->();
($rc, $out) = run_cmd(@remake, '-s', "CONF=$conf", 'CFLAGS=-O1');
is($rc, 0, 'make CFLAGS=-O1 after that build') or diag($out);
my $other = $sum->();
isnt($other, $before, 'other flags: the binary is built again');
# make install without them would build and install another binary (a
# native one after "make CROSS_COMPILE=..."): it stops instead
($rc, $out) = run_cmd('make', '-C', $tree, '-s', "CONF=$conf",
	"DESTDIR=$tmp/other", 'INITDIR=/etc/init.d', 'install');
ok($rc != 0 && $out =~ /built with .*CFLAGS=-O1/ && !-e "$tmp/other",
	'make install with other flags than the build: refused, nothing installed')
	or diag($out);
is($sum->(), $other, '... and the binary kept');
($rc, $out) = run_cmd(@remake, "CONF=$conf", 'CFLAGS=-O1');
like($out, qr/Nothing to be done/, 'the same flags again: nothing rebuilt');
is($sum->(), $other, '... and the binary kept');
($rc, $out) = run_cmd(@remake, '-s', "CONF=$conf");
is($rc, 0, 'make with the flags of the first build') or diag($out);
isnt($sum->(), $other, 'back to those flags: built again');
($rc, $out) = run_cmd(@remake, '-s', "CONF=$conf", 'CFLAGS=-O0 -g');
is($rc, 0, 'make CFLAGS="-O0 -g": no symbol left to the optimiser to drop')
	or diag($out);

# another CONF, or the same file changed without a newer time, configures
# again: times alone kept the configuration of the build before
{
	my $port_of = sub {
		my $h = do { local (@ARGV, $/) = "$tree/src/config.h"; <> } // '';
		return $h =~ /^#define CONFIG_SERVER_PORT (\d+)/m ? $1 : '?';
	};
	my $other_conf = "$tmp/other.conf";
	open my $ofh, '>', $other_conf or die "$other_conf: $!";
	print $ofh "PUBLIC_DIR=/srv/www\nSERVER_PORT=8111\n";
	close $ofh;
	utime(1000000000, 1000000000, $other_conf);	# older than the build
	($rc, $out) = run_cmd(@remake, '-s', "CONF=$other_conf");
	is($port_of->(), 8111, 'another CONF, older than the build: configured from it')
		or diag($out);
	open $ofh, '>', $other_conf or die "$other_conf: $!";
	print $ofh "PUBLIC_DIR=/srv/www\nSERVER_PORT=8112\n";
	close $ofh;
	utime(1000000000, 1000000000, $other_conf);	# as cp -p leaves it
	($rc, $out) = run_cmd(@remake, '-s', "CONF=$other_conf");
	is($port_of->(), 8112, 'the same CONF changed, its time kept: configured again')
		or diag($out);
	($rc, $out) = run_cmd(@remake, "CONF=$other_conf");
	like($out, qr/Nothing to be done/, 'unchanged: nothing done');
	my $same = "$tmp/sub/../other.conf";
	mkdir "$tmp/sub";
	($rc, $out) = run_cmd(@remake, "CONF=$same");
	like($out, qr/Nothing to be done/, 'the same file by another name: nothing done');
	($rc, $out) = run_cmd(@remake, '-s', "CONF=$conf");
	is($port_of->(), 8080, 'back to the first CONF: configured from it') or diag($out);
}

# AUTH_FILE with a C library that has no crypt(3) (Debian's musl): the
# build stops with a line naming the key, not a linker error
SKIP: {
	my ($m) = run_cmd('sh', '-c', 'command -v musl-gcc');
	skip('no musl-gcc (Debian: musl-tools)', 1) if $m != 0;
	my $ac = "$tmp/auth.conf";
	open my $afh, '>', $ac or die "$ac: $!";
	print $afh "PUBLIC_DIR=/srv/www\nAUTH_FILE=/etc/mr.users\n";
	close $afh;
	($rc, $out) = run_cmd('make', '-C', $tree, '-s', "BUILD=$tmp/musl-auth",
		"CONF=$ac", 'CC=musl-gcc', 'LDFLAGS=-static');
	ok($rc == 0 ? -x "$tmp/musl-auth/mrhttpd"
	    : $out =~ /^AUTH_FILE needs crypt\(3\)/m && $out !~ /undefined reference/,
	    'AUTH_FILE with musl: built, or refused by name') or diag($out);
}

}	# REBUILDS

# make uninstall takes away what make install put there
($rc, $out) = run_cmd('make', '-C', $tree, '-s', "CONF=$conf",
	"DESTDIR=$tmp/dest", 'INITDIR=/etc/init.d', 'uninstall');
is($rc, 0, 'make uninstall') or diag($out);
($rc, $out) = run_cmd('find', "$tmp/dest", '-type', 'f');
is($out, '', 'no installed file left') or diag($out);

($rc, $out) = run_cmd('make', '-C', $tree, '-s', "CONF=$conf", 'clean');
is($rc, 0, 'make clean') or diag($out);
my @left = grep { -e } map { "$tree/src/$_" }
	qw(mrhttpd config.h config.mk flags main.o server.o);
is("@left", '', 'make clean removes the binary, objects and generated files');

done_testing();
