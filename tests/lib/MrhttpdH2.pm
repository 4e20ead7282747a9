package MrhttpdH2;
# MrhttpdH2.pm - HTTP/2 on a raw socket, for the tests that must send what
# no well-behaved client sends (floods, a zero window, a cut preface):
# frames built and read by hand (RFC 9113 4.1), header blocks in HPACK's
# plainest form (RFC 7541 6.2.2: literal, never indexed, no Huffman).
# Also h2spec, found in PATH or where tests/install-deps.sh put it.

use strict;
use warnings;
use Exporter 'import';
use IO::Select;
use Time::HiRes qw(time sleep);
use MrhttpdTest ();

our @EXPORT = qw(h2_open h2_frame h2_settings h2_headers h2_block h2_read
	h2_goaway h2_preface h2spec_prog
	H2_DATA H2_HEADERS H2_RST H2_SETTINGS H2_PING H2_GOAWAY H2_WINDOW
	H2_CONTINUATION);

use constant { H2_DATA => 0, H2_HEADERS => 1, H2_RST => 3, H2_SETTINGS => 4,
	H2_PING => 6, H2_GOAWAY => 7, H2_WINDOW => 8, H2_CONTINUATION => 9 };

sub h2_preface { return "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" }

# h2_frame(TYPE, FLAGS, STREAM, PAYLOAD): one frame's bytes.
sub h2_frame {
	my ($type, $flags, $id, $payload) = @_;
	my $n = length $payload;
	return pack('CnCCN', $n >> 16, $n & 0xffff, $type, $flags, $id)
		. $payload;
}

# h2_settings(ID => VALUE, ...): a SETTINGS frame.
sub h2_settings {
	my %s = @_;
	return h2_frame(H2_SETTINGS, 0, 0,
		join('', map { pack('nN', $_, $s{$_}) } sort keys %s));
}

sub _len { my ($n) = @_; return chr($n) if $n < 127;
	my $s = chr(127); $n -= 127;
	while ($n >= 128) { $s .= chr(($n & 127) | 128); $n >>= 7 }
	return $s . chr($n) }

# h2_block(NAME => VALUE, ...): a header block.
sub h2_block {
	my @kv = @_;
	my $b = '';
	while (my ($k, $v) = splice(@kv, 0, 2)) {
		$b .= "\x00" . _len(length $k) . $k . _len(length $v) . $v;
	}
	return $b;
}

# h2_headers(STREAM, PATH, [END_STREAM], [extra fields]): a GET's HEADERS.
sub h2_headers {
	my ($id, $path, $end, @more) = @_;
	return h2_frame(H2_HEADERS, 4 | ($end // 1 ? 1 : 0), $id,
		h2_block(':method' => 'GET', ':scheme' => 'http',
			':path' => $path, ':authority' => 'localhost', @more));
}

# h2_open(PORT, [SETTINGS...]): a socket that has sent the preface and
# SETTINGS.
sub h2_open {
	my ($port, %set) = @_;
	my $s = MrhttpdTest::http_connect(port => $port);
	MrhttpdTest::http_send($s, h2_preface() . h2_settings(%set)) or return;
	return $s;
}

# h2_read($sock, SECS, [STOP], [RATE]): frames until the server closes,
# SECS pass, or STOP->(frame) is true; read at RATE bytes a second if given.  Returns the frames ({type, flags, id,
# payload}), and whether the connection was closed.
sub h2_read {
	my ($s, $secs, $stop, $rate) = @_;
	my ($buf, @f, $closed) = ('');
	my $deadline = time + $secs;
	my $sel = IO::Select->new($s);
	while (1) {
		while (length $buf >= 9) {
			my ($h, $l, $type, $flags, $id) = unpack('CnCCN', $buf);
			my $n = $h << 16 | $l;
			last if length $buf < 9 + $n;
			push @f, { type => $type, flags => $flags,
				id => $id & 0x7fffffff,
				payload => substr($buf, 9, $n) };
			substr($buf, 0, 9 + $n) = '';
			return (\@f, 0) if $stop && $stop->($f[-1]);
		}
		my $left = $deadline - time;
		last if $left <= 0 || !$sel->can_read($left);
		my $n = sysread($s, my $chunk, $rate ? 16384 : 65536);
		if (!$n) { $closed = 1; last }
		$buf .= $chunk;
		sleep $n / $rate if $rate;
	}
	return (\@f, $closed);
}

# h2_goaway(FRAMES): the error code of the GOAWAY among them, or undef.
sub h2_goaway {
	my ($f) = @_;
	for (@$f) {
		return unpack('x4N', $_->{payload}) if $_->{type} == H2_GOAWAY;
	}
	return;
}

# h2spec_prog(): h2spec's path, or undef.
sub h2spec_prog {
	my $own = "$MrhttpdTest::ROOT/tests/build/bin/h2spec";
	return -x $own ? $own : MrhttpdTest::find_prog('h2spec');
}

1;
