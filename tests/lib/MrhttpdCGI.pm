package MrhttpdCGI;

# MrhttpdCGI - helpers for the CGI tests (tests/t/5*.t): a fixed CGI_DIR,
# CGI programs written to it, process inspection through /proc, and a
# client that sends a request body while it reads the response, so that a
# program echoing a large body cannot deadlock the test against the server.
#
#	use MrhttpdTest;
#	use MrhttpdCGI qw(cgi_dir script);
#	my $dir = cgi_dir('cgi-50');		# tests/build/cgi-50, locked
#	script("$dir/cgi-bin/hello.sh", "#!/bin/sh\necho Content-Type: text/plain\necho\necho hi\n");
#	my $t = MrhttpdTest->new(conf => { CGI_PATH => '/cgi-bin',
#		CGI_DIR => "$dir/cgi-bin" });
#
# CGI_DIR is compiled in, so it must be the same path run after run, or
# every run would build a new binary: cgi_dir() hands out
# tests/build/NAME/ and holds a lock on it until the test file exits, so
# two runs of one file (a native and a sanitizer run, say) take turns.

use strict;
use warnings;

use Digest::MD5;
use Exporter qw(import);
use Fcntl qw(:flock O_RDWR O_CREAT);
use File::Basename qw(dirname);
use File::Path qw(make_path remove_tree);
use IO::Select;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(time sleep);

use MrhttpdTest qw(slurp spew);

our @EXPORT_OK = qw(cgi_dir script spew slurp wait_for children zombies pool
	pgrp_members proc_state vm_hwm exchange dechunk);


# cgi_dir(NAME): the fresh, empty, locked directory tests/build/NAME.
sub cgi_dir {
	my ($name) = @_;
	return MrhttpdTest::fixed_dir($name);
}


# script(PATH, TEXT): an executable file (mode 0755).
sub script { return spew($_[0], $_[1], $_[2] // 0755) }


# wait_for(CODE, SECONDS): polls until CODE returns true; its last value.
sub wait_for {
	my ($code, $secs) = @_;
	my $deadline = time + ($secs // 5);
	while (time < $deadline) {
		my $v = $code->();
		return $v if $v;
		sleep 0.02;
	}
	return $code->();
}

# _procs(): [pid, state, ppid, pgrp, cmdline] for every process.
sub _procs {
	my @p;
	for my $st (glob '/proc/[0-9]*/stat') {
		my ($pid) = $st =~ m{/proc/(\d+)/};
		open my $fh, '<', $st or next;
		my $line = <$fh> // next;
		close $fh;
		$line =~ s/^.*\)\s+//s;		# comm may contain spaces
		my @f = split ' ', $line;
		my $cmd = slurp("/proc/$pid/cmdline") // '';
		$cmd =~ tr/\0/ /;
		$cmd =~ s/ $//;
		push @p, [$pid, $f[0], $f[1], $f[2], $cmd];
	}
	return @p;
}

# children(PID): [pid, state, cmdline] of PID's children.
sub children {
	my ($ppid) = @_;
	return map { [$_->[0], $_->[1], $_->[4]] } grep { $_->[2] == $ppid } _procs();
}

# zombies(PID): how many children of PID have exited unreaped.
sub zombies {
	my ($ppid) = @_;
	return scalar grep { $_->[1] eq 'Z' } children($ppid);
}

# pgrp_members(PGID): [pid, state, cmdline] of the live processes in it.
sub pgrp_members {
	my ($pgid) = @_;
	return map { [$_->[0], $_->[1], $_->[4]] }
		grep { $_->[3] == $pgid && $_->[1] ne 'Z' } _procs();
}

# proc_state(PID): its state letter, or undef when it is gone.
sub proc_state {
	my $st = slurp("/proc/$_[0]/stat") // return undef;
	$st =~ s/^.*\)\s+//s;
	return (split ' ', $st)[0];
}

# vm_hwm(PID): peak resident set size in kB.
sub vm_hwm {
	my $s = slurp("/proc/$_[0]/status") // return undef;
	return $s =~ /^VmHWM:\s+(\d+)/m ? $1 : undef;
}

# dechunk(BYTES): (decoded body, 1 when the last chunk was there).
sub dechunk {
	my ($data) = @_;
	my ($out, $pos) = ('', 0);
	while ($data =~ /\G([0-9a-fA-F]+)[^\r\n]*\r\n/gc) {
		my $n = hex $1;
		$pos = pos($data);
		return ($out, 1) if $n == 0;
		return ($out, 0) if length($data) < $pos + $n + 2;
		$out .= substr($data, $pos, $n);
		return ($out, 0) if substr($data, $pos + $n, 2) ne "\r\n";
		pos($data) = $pos + $n + 2;
	}
	return ($out, 0);
}

# exchange(%o): one request on a connection of its own (or o{sock}),
# whose body is sent while the response is read.
#	head	the request head, "\r\n\r\n" included
#	body	bytes to send after the head, or
#	size	send this many pseudo-random bytes (with chunk => N, in
#		chunks of N bytes, chunked framing added here)
#	timeout	seconds of silence before giving up (default 30)
#	wait_continue	wait for "100 Continue" before sending the body
#	keep	keep at most this many body bytes in {body} (default all)
# Returns { status, headers (lc), raw_head, body (decoded, maybe cut),
# body_len, body_md5, sent_md5, complete, first_body_at, head_at, done_at,
# continue_seen, closed, sock, start }: start is time() when the head was
# sent, the other times are seconds since then.
sub exchange {
	my (%o) = @_;
	local $SIG{PIPE} = 'IGNORE';
	my $s = $o{sock} // MrhttpdTest::http_connect();
	$s->blocking(0);
	my $timeout = $o{timeout} // 30;
	my $t0 = time;
	my $out = $o{head};
	my $sent = Digest::MD5->new;
	my $left = $o{size} // 0;
	my $body = $o{body};
	my $continued = !$o{wait_continue};
	my $pool = pool();
	my $pieces = 0;
	my $gen = sub {	# the next piece of the generated body
		my $n = $left < 65536 ? $left : 65536;
		$n = $o{chunk} if $o{chunk} && $o{chunk} < $n;
		$left -= $n;
		my $piece = substr($pool, ($pieces++ * 7919) % 1048576, $n);
		$sent->add($piece);
		return $piece;
	};
	my $src_done = !defined $body && !$o{size};
	my $in = '';
	my %r = (continue_seen => 0, closed => 0, complete => 0, start => $t0);
	my ($head_end, $framing, $clen);
	my $md5 = Digest::MD5->new;
	my ($got, $keep) = (0, $o{keep});
	my ($dec, $dpos, $cleft) = ('', 0, undef);	# chunk decoding state
	my $last = time;

	my $feed = sub {	# body bytes of the response
		my ($bytes) = @_;
		return unless length $bytes;
		$r{first_body_at} //= time - $t0;
		$md5->add($bytes);
		$got += length $bytes;
		$r{body} .= !defined $keep ? $bytes
			: length($r{body}) < $keep ? substr($bytes, 0,
				$keep - length($r{body})) : '';
	};
	$r{body} = '';
	for (;;) {
		# fill the output buffer from the body source
		if (length($out) < 65536 && !$src_done && $continued) {
			if (defined $body) {
				$sent->add($body);
				$out .= $o{chunk} ? _chunks($body, $o{chunk}) : $body;
				$out .= "0\r\n\r\n" if $o{chunk};
				$src_done = 1;
			} elsif ($left > 0) {
				my $p = $gen->();
				$out .= $o{chunk} ? sprintf("%x\r\n%s\r\n", length $p, $p) : $p;
			}
			if (!defined $body && $left == 0) {
				$out .= "0\r\n\r\n" if $o{chunk};
				$src_done = 1;
			}
		}
		my $wsel = length $out ? IO::Select->new($s) : undef;
		my ($rd, $wr) = IO::Select->select(IO::Select->new($s), $wsel,
			undef, 0.5);
		if ($wr && @$wr) {
			my $n = syswrite($s, $out, length $out > 262144 ? 262144 : length $out);
			if (defined $n) {
				substr($out, 0, $n) = '';
			} elsif (!$!{EAGAIN}) {
				$out = '';	# the server stopped reading
				$src_done = 1;
				$r{send_error} = "$!";
			}
		}
		if ($rd && @$rd) {
			my $n = sysread($s, my $buf, 262144);
			if (!defined $n) {
				next if $!{EAGAIN};
				$r{read_error} = "$!";
				$r{closed} = 1;
				last;
			}
			if ($n == 0) {
				$r{closed} = 1;
				last;
			}
			$last = time;
			if (defined $head_end) {
				if ($framing eq 'chunked') {
					$dec .= $buf;
				} else {
					$feed->($buf);
				}
			} else {
				$in .= $buf;
				# an interim 100 Continue first
				while ($in =~ s{^HTTP/1\.[01] 1\d\d[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n}{}) {
					$r{continue_seen} = 1;
					$continued = 1;
				}
				my $e = index($in, "\r\n\r\n");
				if ($e >= 0) {
					$head_end = $e + 4;
					$r{raw_head} = substr($in, 0, $head_end);
					$r{head_at} = time - $t0;
					my ($line, @l) = split /\r\n/, substr($in, 0, $e);
					($r{version}, $r{status}) = $line =~ m{^HTTP/(\d\.\d) (\d{3})};
					for (@l) {
						my ($k, $v) = /^([^:]+):\s*(.*?)\s*$/ or next;
						$k = lc $k;
						$r{headers}{$k} = exists $r{headers}{$k}
							? "$r{headers}{$k}, $v" : $v;
					}
					$continued = 1;	# a final answer: send or stop
					$framing = ($r{headers}{'transfer-encoding'} // '') =~ /chunked/i
						? 'chunked' : defined $r{headers}{'content-length'}
						? 'length' : 'close';
					$clen = $r{headers}{'content-length'};
					$framing = 'none' if $o{head_request}
						|| $r{status} =~ /^(204|304)$/;
					my $rest = substr($in, $head_end);
					$in = '';
					if ($framing eq 'chunked') {
						$dec = $rest;
					} else {
						$feed->($rest);
					}
				}
			}
			if (defined $framing && $framing eq 'chunked') {
				# take whole chunks off the front of $dec
				for (;;) {
					if (!defined $cleft) {
						last unless $dec =~ /^([0-9a-fA-F]+)[^\r\n]*\r\n/;
						$cleft = hex $1;
						substr($dec, 0, length $&) = '';
						if ($cleft == 0) {
							if ($dec =~ /^(?:[^\r\n]+\r\n)*\r\n/) {
								$r{complete} = 1;
								$r{extra} = substr($dec, length $&);
								last;
							}
							$cleft = undef;
							$dec = "0\r\n$dec";
							last;
						}
					}
					last if length($dec) < $cleft + 2;
					$feed->(substr($dec, 0, $cleft));
					substr($dec, 0, $cleft + 2) = '';
					$cleft = undef;
				}
			}
			if (defined $framing) {
				$r{complete} = 1 if $framing eq 'none'
					|| ($framing eq 'length' && $got >= $clen);
				last if $r{complete};
			}
		}
		if (time - $last > $timeout) {
			$r{timed_out} = 1;
			last;
		}
	}
	$r{done_at} = time - $t0;
	$r{body_len} = $got;
	$r{body_md5} = $md5->hexdigest;
	$r{sent_md5} = $sent->hexdigest;
	$r{complete} = 1 if defined $framing && $framing eq 'close' && $r{closed};
	$r{sock} = $s;
	$s->blocking(1);
	return \%r;
}

# 1 MiB + 64 KiB of pseudo-random bytes, made once.
my $POOL;
sub pool {
	return $POOL if defined $POOL;
	my $x = 2463534242;
	$POOL = pack('N*', map { $x ^= ($x << 13) & 0xffffffff; $x ^= $x >> 17;
		$x ^= ($x << 5) & 0xffffffff; $x } 1 .. (1048576 + 65536) / 4);
	return $POOL;
}

sub _chunks {
	my ($data, $n) = @_;
	my $out = '';
	for (my $i = 0; $i < length $data; $i += $n) {
		my $p = substr($data, $i, $n);
		$out .= sprintf("%x\r\n%s\r\n", length $p, $p);
	}
	return $out;
}

1;
