#!/usr/bin/perl
# mrhttpd -V: the version, then one "feature: yes|no" line per feature, and
# the lines follow the configuration the binary was built from.

use strict;
use warnings;

use Test::More;
use MrhttpdTest;

my @features = qw(sendfile log log-file syslog pid-file error-pages default-index ext-file-cmd
	query-hack pragma detach chroot setuid cgi put auto-index auth
	auth-file path-prefix gzip-static ranges validators request-bodies
	per-ip-limit follow-symlinks);

sub check_format {
	my ($t, $what) = @_;
	my $v = $t->version_info;
	is($v->{rc}, 0, "$what: -V exits 0");
	my @lines = split /\n/, $v->{raw};
	is(shift(@lines), 'mrhttpd 3.0.0', "$what: first line is the version");
	my @bad = grep { !/^[a-z0-9-]+: (?:yes|no)$/ } @lines;
	ok(!@bad, "$what: every other line is 'name: yes|no'")
		or diag(join "\n", @bad);
	my @names = map { /^([^:]+):/ ? $1 : () } @lines;
	is_deeply([sort @names], [sort @features],
		"$what: exactly the documented features, once each");
	return $v->{features};
}

# Defaults of the test builds: LOG_LEVEL=4, DETACH=0, sendfile on.
my $t = MrhttpdTest->new();
my $f = check_format($t, 'default test build');
is($f->{sendfile}, 'yes', 'sendfile: yes by default');
is($f->{log}, 'yes', 'log: yes with LOG_LEVEL=4');
is($f->{'log-file'}, 'no', 'log-file: no without LOG_FILE');
is($f->{detach}, 'no', 'detach: no with DETACH=0');
is($f->{$_}, 'no', "$_: no") for qw(pragma query-hack chroot setuid cgi put
	auto-index auth error-pages default-index ext-file-cmd syslog pid-file
	request-bodies);

# The other way round.
my $t2 = MrhttpdTest->new(conf => { LOG_LEVEL => 0, USE_SENDFILE => 0,
	DETACH => 1, PRAGMA => 'no-cache', QUERY_HACK => '/',
	DEFAULT_INDEX => 'index.html', PRIVATE_DIR => '/srv/private',
	LOG_FILE => 'syslog', PID_FILE => '/run/mrhttpd-test.pid',
	RANGES => 0, VALIDATORS => 0, PUT_PATH => '/up' });
$f = check_format($t2, 'second build');
is($f->{sendfile}, 'no', 'sendfile: no with USE_SENDFILE=0');
is($f->{log}, 'no', 'log: no with LOG_LEVEL=0');
is($f->{$_}, 'yes', "$_: yes") for qw(detach pragma query-hack default-index
	error-pages pid-file put request-bodies);
is($f->{$_}, 'no', "$_: no") for qw(ranges validators);
# LOG_LEVEL=0 logs nothing, so LOG_FILE (here syslog) is left out, with a
# warning from configure
is($f->{$_}, 'no', "$_: no with LOG_FILE=syslog and LOG_LEVEL=0")
	for qw(syslog log-file);

$t->done_testing();
