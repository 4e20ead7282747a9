#!/usr/bin/perl
# The C unit tests: builds each tests/unit/*.c (they #include the src/*.c
# they test) and passes its TAP through as a subtest.  Each binary must also
# exit 0 and, under MRHTTPD_SANITIZE=1, leave stderr empty.
#
# Knobs: CC (default ${CROSS_COMPILE}gcc, as in the Makefile), CFLAGS,
# CPPFLAGS, LDFLAGS (e.g. -static for qemu-user), RUN_WRAPPER (runs each
# binary under it), MRHTTPD_SANITIZE=1 (builds into tests/build/unit-san/
# with -fsanitize=address,undefined).  Another toolchain builds into a
# directory of its own, tests/build/unit-<hash>/.

use strict;
use warnings;

use Cwd qw(abs_path);
use Digest::MD5 qw(md5_hex);
use File::Basename qw(basename dirname);
use File::Path qw(make_path);
use POSIX qw(WIFEXITED WEXITSTATUS WIFSIGNALED WTERMSIG);
use Test::More;
use MrhttpdTest qw(slurp);

my $root = abs_path(dirname(abs_path(__FILE__)) . '/../..');
chdir $root or die "chdir $root: $!";

my $sanitize = $ENV{MRHTTPD_SANITIZE} ? 1 : 0;
my $cfg = 'tests/build/unit/cfg';
my $out = $sanitize ? 'tests/build/unit-san' : 'tests/build/unit';
my %tc = map { $_ => $ENV{$_} // '' }
	qw(CROSS_COMPILE CC CFLAGS CPPFLAGS LDFLAGS);
$out .= '-' . substr(md5_hex(join("\0", map { "$_=$tc{$_}" } sort keys %tc)), 0, 8)
	if grep { length } values %tc;
my @cc = split(' ', $tc{CC} || "$tc{CROSS_COMPILE}gcc");
# as the Makefile: 64-bit off_t and time_t on 32-bit glibc targets too
my @cflags = (qw(-std=gnu99 -Wall -Wextra -pthread),
	qw(-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64),
	split(' ', "$tc{CFLAGS} $tc{CPPFLAGS}"), "-I$cfg", '-Isrc');
push @cflags, '-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-g'
	if $sanitize;
push @cflags, split(' ', $tc{LDFLAGS});
my @wrapper = $ENV{RUN_WRAPPER} ? split(' ', $ENV{RUN_WRAPPER}) : ();
my $timeout = 300;

my @units = sort glob('tests/unit/*.c');
plan skip_all => 'no tests/unit/*.c' unless @units;

# run_cmd(STDOUT-FILE, STDERR-FILE, ARGV...): runs ARGV without a shell;
# returns the wait status, or -1 if it could not start or timed out.
sub run_cmd {
	my ($stdout, $stderr, @argv) = @_;
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0) {
		open STDIN, '<', '/dev/null';
		open STDOUT, '>', $stdout or die "$stdout: $!";
		open STDERR, '>', $stderr or die "$stderr: $!";
		exec { $argv[0] } @argv or do {
			print STDERR "exec $argv[0]: $!\n";
			POSIX::_exit(127);
		};
	}
	my $timed_out = 0;
	local $SIG{ALRM} = sub { $timed_out = 1; kill 'KILL', $pid };
	alarm $timeout;
	waitpid($pid, 0);
	my $status = $?;
	alarm 0;
	if ($timed_out) {
		open my $fh, '>>', $stderr;
		print $fh "killed after ${timeout}s\n" if $fh;
		return -1;
	}
	return $status;
}


sub describe_status {
	my ($st) = @_;
	return 'timed out or did not start' if $st == -1;
	return 'killed by signal ' . WTERMSIG($st) if WIFSIGNALED($st);
	return 'exit status ' . WEXITSTATUS($st);
}

# config.h once, quietly, from the default mrhttpd.conf; again only when
# mrhttpd.conf or configure is newer.
make_path($cfg, $out);
if (!-f "$cfg/config.h" || -M "$cfg/config.h" > -M 'mrhttpd.conf'
    || -M "$cfg/config.h" > -M 'configure') {
	my $st = run_cmd("$out/configure.out", "$out/configure.err",
		'sh', './configure', '-o', $cfg, 'mrhttpd.conf');
	if ($st != 0) {
		BAIL_OUT("configure -o $cfg mrhttpd.conf failed: "
			. slurp("$out/configure.err"));
	}
}

# Re-asserts one binary's TAP in the current (sub)test.
sub pass_through {
	my ($tap) = @_;
	my ($planned, $seen, $last_failed) = (undef, 0, 0);
	for my $line (split /\n/, $tap) {
		if ($line =~ /^1\.\.(\d+)/) {
			$planned = $1;
		} elsif ($line =~ /^(not )?ok\b\s*\d*\s*(?:- )?(.*?)(?: # TODO (.*))?$/) {
			my ($failed, $name, $todo) = (defined $1, $2, $3);

			$seen++;
			# a known disagreement with a standard, kept in its
			# table: reported, but no failure of the suite
			TODO: {
				local $TODO = $todo;
				ok(!$failed, $name);
			}
			$last_failed = $failed && !defined $todo;
		} elsif ($line =~ /^#\s?(.*)$/) {
			if ($last_failed) {
				diag($1);
			} else {
				note($1);
			}
		} elsif ($line =~ /\S/) {
			diag("unexpected output: $line");
		}
	}
	ok(defined $planned, 'printed a plan');
	is($seen, $planned, 'ran as many checks as planned')
		if defined $planned;
}

for my $src (@units) {
	my $name = basename($src, '.c');
	subtest "unit/$name" . ($sanitize ? ' (sanitized)' : '') => sub {
		my $bin = "$out/$name";
		my $tmp = "$bin.tmp.$$";
		my $st = run_cmd("$bin.cc.out", "$bin.cc.err",
			@cc, @cflags, '-o', $tmp, $src);
		my $err = slurp("$bin.cc.err");
		if (!ok($st == 0, "$src compiles")) {
			diag("@cc @cflags -o $tmp $src: " . describe_status($st));
			diag($err);
			unlink $tmp;
			return;
		}
		is($err, '', "$src compiles without warnings");
		rename $tmp, $bin or die "rename $tmp $bin: $!";

		$st = run_cmd("$bin.tap", "$bin.err", @wrapper, abs_path($bin));
		pass_through(slurp("$bin.tap"));
		ok($st == 0, "$name exits 0") or diag(describe_status($st));
		is(slurp("$bin.err"), '', "$name: nothing on stderr");
	};
}

done_testing();
