#!/usr/bin/perl
# The file-size budgets of doc/SIZE.md, so that a change that grows the
# binary past one fails here and not months later in `make size`:
#   (b) the shipped mrhttpd.conf, musl static, SIZE=1, stripped
#   (a) extra/minimal.conf, glibc dynamic, SIZE=1, stripped (over its
#       budget since 3.0.0: a TODO test until the footprint issue is done)
# The budgets are read from extra/size.sh, which owns them. They were set
# for Debian 12's gcc 12 and musl 1.2.3; with another compiler the sizes
# are reported and not judged. The RSS figures need a running server and
# a quiet machine, so they stay in `make size`.

use strict;
use warnings;

use Fcntl qw(:flock O_RDWR O_CREAT);
use File::Path qw(make_path);
use Test::More;
use MrhttpdTest qw(run_cmd slurp);

plan skip_all => 'sizes are measured on the native toolchain'
	if grep { length($ENV{$_} // '') } qw(RUN_WRAPPER CROSS_COMPILE CC
	CFLAGS LDFLAGS SIZE MRHTTPD_SANITIZE MRHTTPD_TEST_CONF MRHTTPD_MAKEFLAGS);

my $root = $MrhttpdTest::ROOT;
my $script = slurp("$root/extra/size.sh") // die "extra/size.sh: $!";
my %budget = $script =~ /^BUDGET_(MIN|MUSL)=(\d+)$/mg;
is(scalar(keys %budget), 2, 'extra/size.sh gives the budgets of (a) and (b)');

my ($rc, $ver) = run_cmd('gcc', '-dumpversion');
my $judged = $rc == 0 && $ver =~ /^12\b/;
note("gcc $ver: sizes reported, not judged") unless $judged;

# build(NAME, CONF, MAKE-ARGS...): the stripped size of that build, in
# tests/build/NAME/, or undef with the make output shown.
sub build {
	my ($name, $conf, @args) = @_;
	my $dir = "$root/tests/build/$name";
	make_path($dir);
	sysopen(my $lock, "$dir.lock", O_RDWR | O_CREAT) or die "$dir.lock: $!";
	flock($lock, LOCK_EX) or die "flock: $!";
	local @ENV{qw(MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL)};
	delete @ENV{qw(MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL)};
	my ($rc, $out) = run_cmd('make', '-C', $root, '-s', "BUILD=$dir",
		"CONF=$root/$conf", 'SIZE=1', @args);
	($rc, $out) = run_cmd('strip', '-o', "$dir/mrhttpd.stripped",
		"$dir/mrhttpd") if $rc == 0;
	return -s "$dir/mrhttpd.stripped" if $rc == 0;
	diag("make $name: $out");
	return undef;
}

# check(LABEL, BYTES, BUDGET)
sub check {
	my ($label, $bytes, $budget) = @_;
	note("$label: $bytes bytes, budget $budget");
	return pass("$label: $bytes bytes (not judged with this compiler)")
		unless $judged;
	cmp_ok($bytes, '<=', $budget, "$label: within $budget bytes");
}

SKIP: {
	my ($musl) = run_cmd('sh', '-c', 'command -v musl-gcc');
	skip('no musl-gcc (Debian: musl-tools)', 2) if $musl != 0;
	my $b = build('size-b', 'mrhttpd.conf', 'CC=musl-gcc',
		'LDFLAGS=-static');
	ok(defined $b, '(b) mrhttpd.conf, musl static: built') or last;
	check('(b) mrhttpd.conf, musl static', $b, $budget{MUSL});
}

my $size_a = build('size-a', 'extra/minimal.conf');
ok(defined $size_a, '(a) extra/minimal.conf, glibc dynamic: built');
TODO: {
	local $TODO = 'the footprint issue: (a) is over its budget';
	check('(a) extra/minimal.conf, glibc dynamic', $size_a, $budget{MIN})
		if defined $size_a;
}

done_testing();
