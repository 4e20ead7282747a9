package MrhttpdAttack;

# MrhttpdAttack - helpers for the attack tests, tests/t/6*.t.
#
# While an attack runs, a "normal client" (a forked prober) opens a fresh
# connection from its own loopback address every ~150 ms, GETs a small
# file and times the whole exchange.  The attack itself runs in forked
# children too, so that neither waits on the other.
#
#	my $p = probe_start(port => $t->port, addr => '127.0.0.2',
#		path => '/probe.txt', body => "probe\n");
#	... the attack ...
#	probe_check(probe_stop($p), 'pipeline');	# the asserts and the note
#
# Every child stops by itself (alarm), exits with POSIX::_exit (never
# through the END blocks of Test::More or MrhttpdTest), and is reaped, or
# killed, by stop_child() or at the latest by this module's END block.

use strict;
use warnings;

use Exporter qw(import);
use File::Temp qw(tempfile);
use IO::Select;
use IO::Socket::IP;
use POSIX qw(:sys_wait_h);
use Test::More import => [qw(ok cmp_ok note diag)];
use Time::HiRes qw(time sleep);
use MrhttpdTest ();

our @EXPORT = qw(slack latency_bound conf_knows spawn stop_child wait_child
	probe_start probe_stop probe_check hold_start hold_ready hold_stop
	hold_summary raise_nofile connect_from);

my %children;		# pid => name, for the END block

# Under a RUN_WRAPPER (qemu-user, valgrind) everything is slower: timing
# asserts get three times the slack, as in the other tests.
sub slack { return $ENV{RUN_WRAPPER} ? 3 : 1 }

# The latency a normal client may see during an attack, in seconds.
sub latency_bound { return 1.0 * slack() }

# conf_knows(KEY): true when this checkout's configure accepts KEY, so a
# test can run (and fail meaningfully) against older code that does not.
sub conf_knows {
	my ($key) = @_;
	my $c = MrhttpdTest::slurp("$MrhttpdTest::ROOT/configure") // '';
	my ($keys) = $c =~ /^KEYS="([^"]*)"/m;
	return defined $keys && " $keys " =~ /\s\Q$key\E\s/ ? 1 : 0;
}

# connect_from(SRC, HOST, PORT, TIMEOUT): a TCP connection from the
# loopback address SRC, or undef (with $@ set).
sub connect_from {
	my ($src, $host, $port, $timeout) = @_;
	return IO::Socket::IP->new(
		LocalHost => $src, PeerHost => $host, PeerPort => $port,
		Proto => 'tcp', Timeout => $timeout // 5);
}

# raise_nofile(N): makes sure this process may open N descriptors (soft
# limit), with prlimit(1) on ourselves.  Returns the soft limit after.
sub raise_nofile {
	my ($want) = @_;
	my ($soft, $hard) = _nofile();
	return $soft if $soft >= $want;
	my $h = $hard eq 'unlimited' || $hard >= $want ? $hard : $want;
	MrhttpdTest::run_cmd('prlimit', '--pid', $$, "--nofile=$want:$h")
		if MrhttpdTest::find_prog('prlimit');
	($soft) = _nofile();
	return $soft;
}

sub _nofile {
	my $l = MrhttpdTest::slurp("/proc/$$/limits") // '';
	my ($s, $h) = $l =~ /^Max open files\s+(\S+)\s+(\S+)/m;
	$s = 1 << 30 if ($s // '') eq 'unlimited';
	return ($s // 1024, $h // 1024);
}

###############################################################################
# Children

# spawn(NAME, MAX_SECS, CODE): runs CODE in a child, which ends after
# MAX_SECS at the latest (SIGALRM), and on SIGTERM unless CODE takes it.
# CODE's return value is the exit code (a die is 255).  Returns the pid.
sub spawn {
	my ($name, $max, $code) = @_;
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		%children = ();
		$SIG{TERM} = sub { POSIX::_exit(0) };
		$SIG{PIPE} = 'IGNORE';
		alarm(int($max) + 1);
		my $rc = eval { $code->() };
		print STDERR "# $name: $@" if !defined $rc && $@;
		POSIX::_exit(defined $rc ? $rc : 255);
	}
	$children{$pid} = $name;
	return $pid;
}

# wait_child(PID, SECS): waits up to SECS for it to exit; its status, or
# undef if it is still running.
sub wait_child {
	my ($pid, $secs) = @_;
	my $deadline = time + $secs;
	for (;;) {
		my $r = waitpid($pid, WNOHANG);
		if ($r == $pid || $r == -1) {
			delete $children{$pid};
			return $r == -1 ? -1 : $?;
		}
		return undef if time >= $deadline;
		sleep 0.02;
	}
}

# stop_child(PID, GRACE): SIGTERM, up to GRACE seconds (default 5) to go,
# then SIGKILL.  Returns its wait status.
sub stop_child {
	my ($pid, $grace) = @_;
	return undef unless $pid && exists $children{$pid};
	kill 'TERM', $pid;
	my $st = wait_child($pid, $grace // 5);
	return $st if defined $st;
	kill 'KILL', $pid;
	return wait_child($pid, 5);
}

END {
	my $status = $?;
	for my $pid (keys %children) {
		kill 'KILL', $pid;
		waitpid($pid, 0);
	}
	$? = $status;
}

###############################################################################
# The normal client

# probe_start(port => P, addr => SRC, host => DST (default 127.0.0.1),
#	path => '/probe.txt', body => EXPECTED, interval => 0.15,
#	timeout => per-probe limit, max => seconds to run at most)
# One fresh connection per probe from SRC: GET path, Connection: close;
# a probe is good when a 200 with exactly BODY comes back.  Each probe's
# start, latency and outcome go to a file that probe_stop() reads.
sub probe_start {
	my (%o) = @_;
	my $p = {
		addr => $o{addr} // '127.0.0.2',
		host => $o{host} // '127.0.0.1',
		port => $o{port} // $MrhttpdTest::PORT,
		path => $o{path} // '/probe.txt',
		body => $o{body} // "probe\n",
		interval => $o{interval} // 0.15,
		timeout => $o{timeout} // 3 * latency_bound(),
		max => $o{max} // 300,
	};
	(my $fh, $p->{file}) = tempfile('mrhttpd-probe-XXXXXXXX', TMPDIR => 1,
		UNLINK => 1);
	$p->{t0} = time;
	$p->{pid} = spawn('prober', $p->{max} + $p->{timeout} + 5, sub {
		my $stop = 0;
		local $SIG{TERM} = sub { $stop = 1 };
		$fh->autoflush(1);
		my $end = $p->{t0} + $p->{max};
		# SIGTERM waits while a probe is under way: it must not cut
		# one short (and so fail it); it ends the sleep between them
		my $term = POSIX::SigSet->new(POSIX::SIGTERM());
		while (!$stop && time < $end) {
			POSIX::sigprocmask(POSIX::SIG_BLOCK(), $term);
			my ($t, $lat, $what) = _probe_once($p);
			printf $fh "%.4f %.4f %s\n", $t - $p->{t0}, $lat, $what;
			POSIX::sigprocmask(POSIX::SIG_UNBLOCK(), $term);
			sleep $p->{interval} unless $stop;
		}
		close $fh;
		return 0;
	});
	close $fh;
	return $p;
}

# One probe: (start time, seconds, "ok" or what went wrong).
sub _probe_once {
	my ($p) = @_;
	my $t0 = time;
	my $s = connect_from($p->{addr}, $p->{host}, $p->{port}, $p->{timeout});
	unless ($s) {
		(my $e = "connect: $@") =~ s/\s+/_/g;
		return ($t0, time - $t0, $e);
	}
	MrhttpdTest::http_send($s, "GET $p->{path} HTTP/1.1\r\nHost: probe\r\n"
		. "Connection: close\r\n\r\n");
	my $r = MrhttpdTest::read_response($s,
		timeout => $t0 + $p->{timeout} - time);
	my $lat = time - $t0;
	close $s;
	return ($t0, $lat, 'no_answer') unless $r;
	return ($t0, $lat, "status_$r->{status}") unless $r->{status} == 200;
	return ($t0, $lat, 'wrong_body') unless $r->{body} eq $p->{body};
	return ($t0, $lat, 'ok');
}

# probe_stop($p): stops the prober (after its current probe) and returns
# { n, worst (s), median (s), bad => [lines], lines => [[t, lat, what]],
# secs (how long it ran) }.
sub probe_stop {
	my ($p) = @_;
	$p->{secs} = time - $p->{t0};
	stop_child($p->{pid}, $p->{timeout} + $p->{interval} + 3);
	my @l;
	for (split /\n/, MrhttpdTest::slurp($p->{file}) // '') {
		my @f = split ' ';
		push @l, \@f if @f == 3;
	}
	unlink $p->{file};
	my @lat = sort { $a <=> $b } map { $_->[1] } @l;
	return {
		n => scalar @l,
		secs => $p->{secs},
		lines => \@l,
		bad => [grep { $_->[2] ne 'ok' } @l],
		worst => @lat ? $lat[-1] : undef,
		median => @lat ? $lat[$#lat / 2] : undef,
	};
}

# probe_check($res, NAME, bound => SECS, min => N): the asserts on a
# normal client's probes, and the note with the worst latency:
#	worst latency NAME: MS ms
sub probe_check {
	my ($res, $name, %o) = @_;
	my $bound = $o{bound} // latency_bound();
	# a probe every interval plus its latency: ask for a third of that
	my $min = $o{min} // ($res->{secs} > 1 ? int($res->{secs} / 1.2) : 1);
	$min = 1 if $min < 1;
	cmp_ok($res->{n}, '>=', $min,
		"$name: the normal client made probes throughout ($res->{n} in "
		. sprintf('%.1f', $res->{secs}) . ' s)');
	ok(!@{ $res->{bad} }, "$name: every probe of the normal client got its 200")
		or diag(_lines("failed probes ($name)", $res->{bad}));
	my @slow = grep { $_->[1] > $bound } @{ $res->{lines} };
	ok(defined $res->{worst} && !@slow,
		"$name: every probe answered within ${bound} s")
		or diag(_lines("slow probes ($name)", \@slow));
	note(sprintf('worst latency %s: %d ms', $name,
		defined $res->{worst} ? $res->{worst} * 1000 + 0.5 : -1));
	note(sprintf('%s: %d probes, median %d ms', $name, $res->{n},
		defined $res->{median} ? $res->{median} * 1000 + 0.5 : -1));
	return !@{ $res->{bad} } && !@slow;
}

sub _lines {
	my ($what, $l) = @_;
	my @l = @$l;
	my $more = @l > 20 ? @l - 20 : 0;
	splice(@l, 20) if $more;
	return join("\n", "$what (at s since start, latency s, outcome):",
		map({ sprintf('  at %.2f: %.3f s %s', @$_) } @l),
		$more ? "  ... and $more more" : ());
}

###############################################################################
# Holding connections

# hold_start(port => P, addrs => [SRC...], n => N, send => BYTES,
#	reconnect => 0|1, rate => opens per second, max => seconds)
# A child opens N connections, round robin over the source addresses,
# writes BYTES on each (nothing when empty) and holds them.  What the
# server does to them is counted: a response (by status), or a close
# without one.  With reconnect, a connection the server ended is opened
# again.  hold_stop() returns the counts:
#	{ opened, failed (connect errors), closed, status => { 503 => n },
#	  open (still open at the end), first_close (s after start) }
sub hold_start {
	my (%o) = @_;
	my $h = {
		port => $o{port} // $MrhttpdTest::PORT,
		host => $o{host} // '127.0.0.1',
		addrs => $o{addrs} // ['127.0.0.1'],
		n => $o{n} // 32,
		send => $o{send} // '',
		reconnect => $o{reconnect} // 0,
		rate => $o{rate} // 1000,
		max => $o{max} // 60,
	};
	(my $fh, $h->{file}) = tempfile('mrhttpd-hold-XXXXXXXX', TMPDIR => 1,
		UNLINK => 1);
	(undef, $h->{ready}) = tempfile('mrhttpd-hold-XXXXXXXX', TMPDIR => 1,
		UNLINK => 1);
	unlink $h->{ready};
	$h->{t0} = time;
	$h->{pid} = spawn('holder', $h->{max} + 5, sub {
		my $stop = 0;
		local $SIG{TERM} = sub { $stop = 1 };
		my %st = (opened => 0, failed => 0, closed => 0, status => {});
		my %conn;		# fileno => socket
		my $sel = IO::Select->new;
		my ($i, @again) = (0);
		my $end = $h->{t0} + $h->{max};
		my $gap = 1 / $h->{rate};
		my $ready = 0;
		while (!$stop && time < $end) {
			# open up to n, at most rate a second
			while (!$stop && keys(%conn) < $h->{n}
			    && ($st{opened} < $h->{n} || $h->{reconnect})) {
				# a dropped one comes back from its own address
				my $src = @again ? shift @again
					: $h->{addrs}[$i++ % @{ $h->{addrs} }];
				my $s = connect_from($src, $h->{host}, $h->{port}, 2);
				unless ($s) {
					unshift @again, $src;
					$st{failed}++;
					sleep 0.05;
					last;
				}
				$st{opened}++;
				MrhttpdTest::http_send($s, $h->{send})
					if length $h->{send};
				${*$s}{src} = $src;
				$conn{fileno $s} = $s;
				$sel->add($s);
				sleep $gap if $gap > 0.0005;
			}
			if (!$ready && $st{opened} >= $h->{n}) {
				$ready = 1;
				MrhttpdTest::spew($h->{ready}, sprintf('%.4f',
					time - $h->{t0}));
			}
			for my $s ($sel->can_read(0.05)) {
				my $n = sysread($s, my $buf, 4096);
				if ($n) {
					${*$s}{got} .= $buf;
					next;
				}
				# EOF or reset: what, if anything, came first
				my $got = ${*$s}{got} // '';
				if ($got =~ m{^HTTP/1\.[01] (\d{3})}) {
					$st{status}{$1}++;
				} else {
					$st{closed}++;
				}
				$st{first_close} //= time - $h->{t0};
				push @again, ${*$s}{src};
				$sel->remove($s);
				delete $conn{fileno $s};
				close $s;
			}
		}
		$st{open} = scalar keys %conn;
		open my $out, '>', $h->{file} or return 1;
		print $out join("\n", (map { "$_ $st{$_}" }
			grep { !ref $st{$_} } sort keys %st),
			(map { "status_$_ $st{status}{$_}" }
			sort keys %{ $st{status} })), "\n";
		close $out;
		close $_ for values %conn;
		return 0;
	});
	close $fh;
	return $h;
}

# hold_ready($h, SECS): waits until the holder has opened its N; true then.
sub hold_ready {
	my ($h, $secs) = @_;
	my $deadline = time + $secs;
	while (time < $deadline) {
		return 1 if -e $h->{ready};
		return 0 unless kill 0, $h->{pid};
		sleep 0.02;
	}
	return 0;
}

# hold_stop($h): stops the holder (its connections close) and returns the
# counts (see hold_start).
sub hold_stop {
	my ($h) = @_;
	stop_child($h->{pid}, 10);
	my %st = (status => {});
	for (split /\n/, MrhttpdTest::slurp($h->{file}) // '') {
		my ($k, $v) = split ' ';
		next unless defined $v;
		if ($k =~ /^status_(\d+)$/) {
			$st{status}{$1} = $v;
		} else {
			$st{$k} = $v;
		}
	}
	unlink $h->{file}, $h->{ready};
	return \%st;
}

# hold_summary($st): the counts on one line, for diag and note.
sub hold_summary {
	my ($st) = @_;
	return join(', ', (map { "$_ " . ($st->{$_} // 0) }
		qw(opened failed closed open)),
		map({ "$_: $st->{status}{$_}" } sort keys %{ $st->{status} }));
}

1;
