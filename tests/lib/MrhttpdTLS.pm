package MrhttpdTLS;

# MrhttpdTLS - what the HTTPS tests share: a test CA with an ECDSA P-256
# and an RSA-2048 server certificate for localhost and 127.0.0.1, made
# with Debian's openssl, and clients (curl, openssl s_client) run on them.
#
#	use MrhttpdTLS;
#	my $pki = tls_pki() or plan skip_all => ...;
#	my $t = MrhttpdTest->new(conf => { tls_conf($pki, 'ec'), ... });
#	$t->run({}, '-s', tls_port());
#	my $r = curl_tls($pki, 'https://localhost:PORT/x');
#
# The certificates live in tests/build/tls/ and are made once: their
# paths are compiled into the test servers (TLS_CERT, TLS_KEY), so they
# must stay put from run to run.

use strict;
use warnings;

use Exporter qw(import);
use Fcntl qw(:flock O_RDWR O_CREAT);
use File::Path qw(make_path);
use File::Temp ();
use IO::Socket::IP;
use POSIX ();
use Time::HiRes qw(time);
use MrhttpdTest qw(run_cmd slurp spew);

our @EXPORT = qw(tls_pki tls_conf tls_port curl_tls s_client client_hello
	chromium tls_tool);

# tls_pki(): { dir, ca, ec_crt, ec_key, rsa_crt, rsa_key, other_key }, or
# undef (with the reason in $@) when openssl cannot make them.
sub tls_pki {
	my $dir = "$MrhttpdTest::ROOT/tests/build/tls";
	make_path($dir);
	sysopen(my $lock, "$dir.lock", O_RDWR | O_CREAT) or die "$dir.lock: $!";
	flock($lock, LOCK_EX) or die "flock: $!";
	my %p = (dir => $dir, ca => "$dir/ca.crt",
		ec_crt => "$dir/ec.crt", ec_key => "$dir/ec.key",
		rsa_crt => "$dir/rsa.crt", rsa_key => "$dir/rsa.key",
		other_key => "$dir/other.key");
	# server certificates live a year (testssl.sh calls longer ones a
	# risk): made again when that is near
	return \%p if -s $p{other_key} && -M $p{other_key} < 300;
	unless (MrhttpdTest::find_prog('openssl')) {
		$@ = 'openssl is not installed (apt-get install openssl)';
		return undef;
	}
	spew("$dir/ext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n"
		. "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,"
		. "keyEncipherment\nextendedKeyUsage=serverAuth\n"
		. "crlDistributionPoints=URI:http://localhost/test-ca.crl\n");
	unlink $p{other_key};
	my @ec = ('-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256');
	my @steps = (
		['req', '-x509', @ec, '-nodes', '-keyout', "$dir/ca.key",
		 '-out', $p{ca}, '-days', '3650', '-subj', '/CN=mrhttpd test CA'],
		['req', @ec, '-nodes', '-keyout', $p{ec_key}, '-out',
		 "$dir/ec.csr", '-subj', '/CN=localhost'],
		['x509', '-req', '-in', "$dir/ec.csr", '-CA', $p{ca}, '-CAkey',
		 "$dir/ca.key", '-CAcreateserial', '-days', '365', '-extfile',
		 "$dir/ext", '-out', $p{ec_crt}],
		['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', $p{rsa_key},
		 '-out', "$dir/rsa.csr", '-subj', '/CN=localhost'],
		['x509', '-req', '-in', "$dir/rsa.csr", '-CA', $p{ca}, '-CAkey',
		 "$dir/ca.key", '-CAcreateserial', '-days', '365', '-extfile',
		 "$dir/ext", '-out', $p{rsa_crt}],
		['genpkey', '-algorithm', 'ec', '-pkeyopt',
		 'ec_paramgen_curve:P-256', '-out', "$p{other_key}.new"],
	);
	for my $s (@steps) {
		my ($rc, $out) = run_cmd('openssl', @$s);
		next if $rc == 0;
		$@ = "openssl @$s[0..1]: $out";
		return undef;
	}
	rename("$p{other_key}.new", $p{other_key}) or die "rename: $!";
	return \%p;
}

# tls_conf($pki, 'ec'|'rsa'): the configuration keys of an HTTPS server.
sub tls_conf {
	my ($p, $kind) = @_;
	return (TLS => 1, TLS_CERT => $p->{"${kind}_crt"},
		TLS_KEY => $p->{"${kind}_key"});
}

# tls_port(): a free port for -s.
sub tls_port { return MrhttpdTest::_free_port('127.0.0.1') }

# curl_tls($pki, URL, @curl_args): { rc, status, head, body, err, secs }
# from one curl with the test CA trusted.
sub curl_tls {
	my ($p, $url, @args) = @_;
	my $dir = File::Temp::tempdir(CLEANUP => 1);
	my $t0 = time;
	my ($rc) = run_cmd({ stdout => "$dir/out", stderr => "$dir/err" },
		'curl', '-sS', '--max-time', '20', '--cacert', $p->{ca},
		'-D', "$dir/head", @args, $url);
	my $head = slurp("$dir/head") // '';
	my @st = $head =~ /^HTTP\/\S+ (\d{3})/mg;
	return { rc => $rc >> 8, status => $st[-1] // 0, head => $head,
		body => slurp("$dir/out") // '', err => slurp("$dir/err") // '',
		secs => time - $t0 };
}

# s_client($pki, PORT, INPUT, @args): what openssl s_client printed
# (stdout and stderr), talking to 127.0.0.1:PORT with INPUT on its stdin.
# With INPUT, it waits for the server to close (send Connection: close);
# without, it ends after the handshake.
sub s_client {
	my ($p, $port, $input, @args) = @_;
	my $dir = File::Temp::tempdir(CLEANUP => 1);
	spew("$dir/in", $input);
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		open STDIN, '<', "$dir/in";
		open STDOUT, '>', "$dir/out";
		open STDERR, '>&', \*STDOUT;
		{ no warnings 'exec'; exec 'timeout', '20', 'openssl', 's_client', '-connect',
			"127.0.0.1:$port", '-servername', 'localhost',
			'-CAfile', $p->{ca}, ($input eq '' ? () : '-ign_eof'),
			@args; }
		POSIX::_exit(127);
	}
	waitpid($pid, 0);
	return slurp("$dir/out") // '';
}

# client_hello($pki): the first record a real client (openssl s_client)
# sends, caught on a socket of our own.
sub client_hello {
	my ($p) = @_;
	my $l = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0,
		Listen => 1, Proto => 'tcp') or die "listen: $@";
	my $port = $l->sockport;
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		open STDIN, '<', '/dev/null';
		open STDOUT, '>', '/dev/null';
		open STDERR, '>', '/dev/null';
		{ no warnings 'exec'; exec 'timeout', '10', 'openssl',
			's_client', '-connect', "127.0.0.1:$port",
			'-servername', 'localhost'; }
		POSIX::_exit(127);
	}
	my $s = $l->accept;
	my $hello = '';
	while ($s) {
		last if length($hello) >= 5 &&
			length($hello) >= 5 + unpack('n', substr($hello, 3, 2));
		my $n = sysread($s, $hello, 4096, length $hello);
		last unless $n;
	}
	close $s if $s;
	kill 'TERM', $pid;
	waitpid($pid, 0);
	return $hello;
}

# tls_tool(NAME): tests/tools/NAME.c, a client of our own on the host's
# mbed TLS (libmbedtls-dev), built with the host's cc into tests/build/tools/
# (renamed into place, under a lock).  Its path, or undef with $@ set.
sub tls_tool {
	my ($name) = @_;
	my $dir = "$MrhttpdTest::ROOT/tests/build/tools";
	my $src = "$MrhttpdTest::ROOT/tests/tools/$name.c";
	my $bin = "$dir/$name";
	make_path($dir);
	sysopen(my $lock, "$dir.lock", O_RDWR | O_CREAT) or die "$dir.lock: $!";
	flock($lock, LOCK_EX) or die "flock: $!";
	return $bin if -x $bin && -M $bin <= -M $src;
	my ($rc, $out) = run_cmd('cc', '-O1', '-o', "$bin.tmp$$", $src,
		'-lmbedtls', '-lmbedx509', '-lmbedcrypto');
	if ($rc != 0 || !rename("$bin.tmp$$", $bin)) {
		unlink "$bin.tmp$$";
		$@ = "cannot build it (apt-get install libmbedtls-dev): $out";
		return undef;
	}
	return $bin;
}

# chromium($pki): headless Chromium that trusts the test CA, in a home of
# its own (Chromium trusts what the NSS database in $HOME holds).
# Returns { cmd => [argv], home => dir, error => certutil's complaint or
# undef } to run with $ENV{HOME} = home, or a string when a program is
# missing (the caller skips).
sub chromium {
	my ($p) = @_;
	my $bin = MrhttpdTest::find_prog('chromium')
		// MrhttpdTest::find_prog('chromium-browser');
	return 'chromium is not installed (apt-get install chromium)' unless $bin;
	return 'certutil is not installed (apt-get install libnss3-tools)'
		unless MrhttpdTest::find_prog('certutil');
	my $home = File::Temp::tempdir(CLEANUP => 1);
	make_path("$home/.pki/nssdb");
	my ($rc, $out) = run_cmd('certutil', '-d', "sql:$home/.pki/nssdb",
		'-N', '--empty-password');
	($rc, $out) = run_cmd('certutil', '-d', "sql:$home/.pki/nssdb", '-A',
		'-t', 'C,,', '-n', 'mrhttpd-test', '-i', $p->{ca}) if $rc == 0;
	return { home => $home, error => $rc != 0 ? $out : undef, cmd => ['timeout', '120', $bin, '--headless',
		'--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
		'--no-first-run', "--user-data-dir=$home/ud",
		'--window-size=900,700'] };
}

1;
