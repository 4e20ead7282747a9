#!/usr/bin/perl
# Directory listings (AUTO_INDEX 1 JSON, 2 XML, 3 HTML).  For each format a
# server lists a directory of hostile names: quotes, <, &, ', backslash,
# newline, tab, UTF-8, an invalid UTF-8 byte, '?', '#', a space, U+2028, a
# C1 control, a noncharacter, an overlong form, a surrogate, directories
# with odd names, links, an empty and a 5 MB file.  Checked: status, headers,
# chunked framing (HTTP/1.1) and close-delimited bodies (HTTP/1.0), that
# the document parses and gives back every name, size and time, that
# links fetch their files, XSLT_HEADER, DEFAULT_INDEX first, the 301 for
# a directory without its slash, HEAD, keep-alive after a listing, a
# listing big enough for many chunks, PATH_PREFIX, and no listing with
# AUTO_INDEX=0.  Order: directories first, each group in byte order, and
# a group too big for the server's arena sorted as far as it fits, then a
# marker, then the rest, every entry once; no marker when all fit.  The
# HTML page is also loaded in headless Chromium when it is installed; its
# screenshots are kept in tests/build/listing-*.png.

use strict;
use warnings;

use Encode ();
use File::Copy qw(copy);
use File::Temp qw(tempdir);
use JSON::PP ();
use POSIX ();
use Test::More;
use MrhttpdTest qw(:DEFAULT slurp);

my $MTIME = 981173106;			# 2001-02-03T04:05:06Z
my $ISO = '2001-02-03T04:05:06Z';
my $HUMAN = '2001-02-03 04:05:06';
my $BIG = 5 * 1024 * 1024;

# name (bytes) => content; every file has its own, so a link that fetches
# the wrong file shows
my %files = (
	'a"b' => "quote\n",
	'<script>' => "script\n",
	'x&y' => "amp\n",
	"it's" => "apos\n",
	'back\\slash' => "backslash\n",
	"new\nline" => "newline\n",
	"tab\tname" => "tab\n",
	"\xc3\xbcmlaut" => "umlaut\n",
	"bad\xffbyte" => "invalid utf-8\n",
	'q?mark' => "question\n",
	'hash#' => "hash\n",
	'sp ace' => "space\n",
	'empty' => '',
	'big.bin' => undef,		# $BIG bytes
	"ls\xe2\x80\xa8sep" => "U+2028\n",
	"c1\xc2\x85" => "C1 control\n",
	"nc\xef\xbf\xbe" => "noncharacter\n",
	"ov\xc0\xaf" => "overlong /\n",
	"sur\xed\xa0\x80" => "surrogate\n",
);
# Where the formats differ, or Encode's idea of invalid UTF-8 does: each
# invalid byte is one U+FFFD; U+FFFE is valid UTF-8, but not XML or HTML.
my %SHOWN = (
	"c1\xc2\x85" => { json => "c1\x{85}", xml => "c1\x{85}",
		html => "c1\x{fffd}" },
	"nc\xef\xbf\xbe" => { json => "nc\x{fffe}", xml => "nc\x{fffd}",
		html => "nc\x{fffd}" },
	"ov\xc0\xaf" => { map { $_ => "ov\x{fffd}\x{fffd}" } qw(json xml html) },
	"sur\xed\xa0\x80" => { map { $_ => "sur\x{fffd}\x{fffd}\x{fffd}" }
		qw(json xml html) },
);
my @dirs = ('sub', 'dir "quoted" & <odd>');

# order/: names that byte order sorts otherwise than case-blind, locale
# or creation order would: case, digits, punctuation, UTF-8 (in code
# point order, as its bytes are) and an invalid byte, which goes last.
# They are created in this scrambled order.
my @ORDER_FILES = ('b', "\xc3\xa9t\xc3\xa9", 'B', 'a-b', '_x', 'A',
	"\xffhigh", '10', 'ab', '~t', 'Z9', '9', "\xe2\x82\xac", 'a', 'z',
	'a.b', "\xf0\x9f\x98\x80", 'aB', 'Ab', "a\xc3\xa9", 'a~');
my @ORDER_DIRS = ('zdir', 'Adir', "\xc3\xa9dir", 'adir', 'Zdir', '0dir');
# over/: 2,000 files of 40-byte names, far more than the arena holds,
# and 3 directories; overdirs/: 300 such directories and 20 files.
sub long_name { sprintf('%s-%04d-%s', $_[0], ($_[1] * 7919) % $_[2], 'n' x 26) }
my @OVER_FILES = map { long_name('file', $_, 2000) . '.dat' } 0 .. 1999;
my @OVER_DIRS = ('sub-b', 'sub-c', 'sub-a');
my @OVERDIRS_DIRS = map { long_name('dir', $_, 300) } 0 .. 299;
my @OVERDIRS_FILES = map { long_name('f', $_, 20) } 0 .. 19;

my %TYPE = (json => 'application/json', xml => 'application/xml',
	html => 'text/html; charset=utf-8');

# Fills htdocs: d/ with the names, many/ with 400 long names, idx/ with an
# index file, empty/ with nothing, plus what must not be listed.
sub populate {
	my ($t) = @_;
	my $d = $t->htdocs . '/d';
	mkdir $d or die "mkdir $d: $!";
	for my $n (sort keys %files) {
		open my $fh, '>:raw', "$d/$n" or die "create $n: $!";
		if (defined $files{$n}) {
			print $fh $files{$n};
		} else {
			print $fh "\0" x $BIG;
		}
		close $fh or die;
		utime($MTIME, $MTIME, "$d/$n") or die;
	}
	for my $n (@dirs) {
		mkdir "$d/$n" or die;
		utime($MTIME, $MTIME, "$d/$n") or die;
	}
	$t->write_file('d/.hidden', "hidden\n");
	symlink('sub', "$d/link-to-dir") or die;
	symlink('q?mark', "$d/link-to-file") or die;
	symlink('nowhere', "$d/dangling") or die;
	POSIX::mkfifo("$d/fifo", 0644) or die "mkfifo: $!";
	$t->write_file("many/entry-$_-" . ('x' x 60) . '.txt', "$_\n")
		for 1 .. 400;
	my $h = $t->htdocs;
	$t->write_file("order/$_", "$_\n") for @ORDER_FILES;
	mkdir "$h/order/$_" or die for @ORDER_DIRS;
	$t->write_file("over/$_", '') for @OVER_FILES;
	mkdir "$h/over/$_" or die for @OVER_DIRS;
	make_dirs("$h/overdirs", @OVERDIRS_DIRS);
	$t->write_file("overdirs/$_", '') for @OVERDIRS_FILES;
	$t->write_file('idx/index.html', "the index\n");
	$t->write_file('idx/other.txt', "other\n");
	mkdir $t->htdocs . '/empty' or die;
}

sub make_dirs {
	my ($base, @names) = @_;
	mkdir $base;
	mkdir "$base/$_" or die "mkdir $_: $!" for @names;
}

# What each format shows for a name: its bytes as UTF-8 with invalid
# bytes as U+FFFD, and, for XML and HTML, what they cannot carry too.
sub shown {
	my ($bytes, $fmt) = @_;
	return $SHOWN{$bytes}{$fmt} if $SHOWN{$bytes};
	my $s = Encode::decode('UTF-8', "$bytes", Encode::FB_DEFAULT);
	$s =~ s/[\x00-\x08\x0b\x0c\x0e-\x1f]/\x{fffd}/g if $fmt eq 'xml';
	$s =~ s/[\x00-\x1f\x7f-\x9f]/\x{fffd}/g if $fmt eq 'html';
	return $s;
}

# RFC 3629 UTF-8 (Encode's strict UTF-8 refuses noncharacters as well).
sub valid_utf8 {
	(my $s = $_[0]) =~ s/[\x00-\x7f]|[\xc2-\xdf][\x80-\xbf]
		|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}
		|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}
		|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}//gx;
	return $s eq '';
}

# One request on its own connection; returns (status, headers, body
# as sent, raw, closed flag).
sub fetch {
	my ($req) = @_;
	my $closed;
	my $raw = http($req, closed => \$closed);
	my ($status, $h, $body) = split_head($raw);
	return ($status, $h, $body, $raw, $closed);
}

sub split_head {
	my ($raw) = @_;
	my $i = index($raw, "\r\n\r\n");
	return (0, {}, '') if $i < 0;
	my ($line, @lines) = split /\r\n/, substr($raw, 0, $i);
	my ($status) = $line =~ m{^HTTP/1\.1 (\d{3}) };
	my %h;
	for (@lines) {
		my ($k, $v) = /^([^:]+):\s*(.*)$/ or next;
		$h{lc $k} = exists $h{lc $k} ? "$h{lc $k}, $v" : $v;
	}
	return ($status // 0, \%h, substr($raw, $i + 4));
}

# Strict chunked decoding.  Returns (body, chunks, rest) or (undef, why).
sub dechunk {
	my ($data) = @_;
	my ($out, $n) = ('', 0);
	for (;;) {
		$data =~ s/\A([0-9A-Fa-f]+)\r\n// or return (undef, 'bad size line');
		my $len = hex $1;
		if ($len == 0) {
			$data =~ s/\A\r\n// or return (undef, 'no CRLF after last chunk');
			return ($out, $n, $data);
		}
		return (undef, 'chunk cut short') if length($data) < $len + 2;
		$out .= substr($data, 0, $len);
		return (undef, 'no CRLF after chunk data')
			if substr($data, $len, 2) ne "\r\n";
		substr($data, 0, $len + 2) = '';
		$n++;
	}
}

# GET over HTTP/1.1 (chunked) and HTTP/1.0 (close-delimited): checks both
# framings and that they carry the same document; returns the body.
sub get_listing {
	my ($path, $type, $what) = @_;
	my ($st, $h, $body, undef, $closed) = fetch("GET $path HTTP/1.1\r\n"
		. "Host: x\r\nConnection: close\r\n\r\n");
	is($st, 200, "$what: 200");
	is($h->{'content-type'}, $type, "$what: Content-Type $type");
	is($h->{'cache-control'}, 'no-cache', "$what: Cache-Control: no-cache");
	is($h->{'transfer-encoding'}, 'chunked', "$what: HTTP/1.1 is chunked");
	ok(!defined $h->{'content-length'}, "$what: ... without Content-Length");
	my ($doc, $chunks, $rest) = dechunk($body);
	ok(defined $doc, "$what: chunked framing parses") or diag($chunks);
	is($rest, '', "$what: nothing after the last chunk");
	ok(valid_utf8($doc // ''), "$what: the body is valid UTF-8");

	my ($st0, $h0, $body0, undef, $closed0) = fetch("GET $path HTTP/1.0\r\n"
		. "Host: x\r\nConnection: keep-alive\r\n\r\n");
	is($st0, 200, "$what: HTTP/1.0 200");
	ok(!defined $h0->{'transfer-encoding'} && !defined $h0->{'content-length'},
		"$what: HTTP/1.0 has neither chunks nor a length");
	like($h0->{connection} // '', qr/^close$/i,
		"$what: HTTP/1.0 says Connection: close, even asked for keep-alive");
	ok($closed0, "$what: ... and closes");
	# the timestamps may differ by a second between the two
	(my $a = $doc // '') =~ s/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/T/g;
	(my $b = $body0) =~ s/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/T/g;
	is($b, $a, "$what: HTTP/1.0 gets the same document");
	return wantarray ? ($doc, $chunks) : $doc;
}

# The common checks that do not depend on the format.
sub common_checks {
	my ($t, $fmt) = @_;
	my ($st, $h, $body) = fetch("GET /d HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n");
	is($st, 301, "$fmt: /d without slash: 301");
	is($h->{location}, '/d/', "$fmt: ... to /d/");

	($st, $h, $body) = fetch("GET /idx/ HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n");
	is($st, 200, "$fmt: directory with DEFAULT_INDEX: 200");
	is($body, "the index\n", "$fmt: ... the index file, not a listing");

	# HEAD: same head, no body; then the connection goes on
	my $raw = http("HEAD /d/ HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET /d/empty HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	my ($hs, $hh, $after) = split_head($raw);
	is($hs, 200, "$fmt: HEAD 200");
	is($hh->{'transfer-encoding'}, 'chunked',
		"$fmt: HEAD announces what GET would send");
	like($after, qr{\AHTTP/1\.1 200 }, "$fmt: HEAD has no body: the next "
		. 'response follows the head at once');
	($st, $h, $body) = fetch("HEAD /d/ HTTP/1.0\r\nHost: x\r\n\r\n");
	is($body, '', "$fmt: HTTP/1.0 HEAD has no body");

	# keep-alive after a chunked listing: pipelined
	$raw = http("GET /d/ HTTP/1.1\r\nHost: x\r\n\r\n"
		. "GET /d/q%3Fmark HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	my ($s1, $h1, $rest) = split_head($raw);
	my ($doc, $n, $tail) = dechunk($rest);
	is($s1, 200, "$fmt: pipelined: listing first");
	ok(defined $doc, "$fmt: ... chunked framing intact");
	my ($s2, $h2, $b2) = split_head($tail // '');
	is($s2, 200, "$fmt: ... then the second response on the same connection");
	is($b2, $files{'q?mark'}, "$fmt: ... with its body");

	# many entries: many chunks, nothing lost
	my ($many, $chunks) = get_listing('/many/', $TYPE{$fmt}, "$fmt many");
	cmp_ok($chunks // 0, '>', 3, "$fmt: a big listing goes in several chunks");
	my $count = () = ($many // '') =~ /(?:>|"name":")entry-\d+-x{60}\.txt/g;
	is($count, 400, "$fmt: ... with all 400 entries");

	# empty directory
	($st, $h, $body) = fetch("GET /empty/ HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n");
	is($st, 200, "$fmt: empty directory: 200");
	ok(defined((dechunk($body))[0]), "$fmt: ... well framed");

	order_checks($fmt, '/order/', \@ORDER_DIRS, \@ORDER_FILES, '');
	order_checks($fmt, '/over/', \@OVER_DIRS, \@OVER_FILES, 'f');
	order_checks($fmt, '/overdirs/', \@OVERDIRS_DIRS, \@OVERDIRS_FILES, 'd');
}

# The entries of a listing in order, by group: { d => [names as bytes],
# f => [...] }, with undef where a marker says the rest of the group is
# not sorted.  JSON has no such marker: its "sorted" member is returned
# as well (undef without).  $back maps a name as shown to its bytes.
sub listed {
	my ($fmt, $doc, $back) = @_;
	my (@items, $sorted);
	my $bytes = sub { $back->{ $_[0] } // Encode::encode('UTF-8', $_[0]) };
	if ($fmt eq 'json') {
		my $j = eval { JSON::PP->new->utf8->decode($doc) } // {};
		push @items, [$_->{type} eq 'dir' ? 'd' : 'f', $bytes->($_->{name})]
			for @{ $j->{entries} // [] };
		$sorted = $j->{sorted};
	} elsif ($fmt eq 'xml') {
		while ($doc =~ m{<entry><name>(.*?)</name><type>(.*?)</type>
		    |(<!--\ The\ entries\ below\ are\ not\ sorted)}gsx) {
			push(@items, undef), next if defined $3;
			my $n = Encode::decode('UTF-8', decode_entities($1));
			push @items, [$2 eq 'dir' ? 'd' : 'f', $bytes->($n)];
		}
	} else {
		while ($doc =~ m{<tr><td><a\ href="([^"]*)">
		    |(<tr><td\ colspan="3">The\ entries\ below\ are\ not)}gx) {
			push(@items, undef), next if defined $2;
			next if $1 eq '../';
			my $n = pct_decode($1);
			push @items, [$n =~ s{/$}{} ? 'd' : 'f', $n];
		}
	}
	# a marker belongs to the group of the entry after it
	my %group = (d => [], f => []);
	for my $i (0 .. $#items) {
		my $it = $items[$i] // $items[$i + 1] // ['?'];
		push @{ $group{ $it->[0] } }, $items[$i] ? $it->[1] : undef;
	}
	my $kinds = join '', map { $_ ? $_->[0] : 'M' } @items;
	return ($kinds, \%group, $sorted);
}

# How many names at the start of a list are in byte order.
sub sorted_run {
	my @n = @_;
	my $i = 1;
	$i++ while $i < @n && $n[$i - 1] lt $n[$i];
	return @n ? $i : 0;
}

# A listing of $path: directories first, each group sorted up to its
# marker, a marker only in the group $cut names ('d', 'f', or ''), every
# name once, and the document valid.
sub order_checks {
	my ($fmt, $path, $dirs, $files, $cut) = @_;
	my $what = "$fmt $path";
	my $doc = get_listing($path, $TYPE{$fmt}, $what) // '';
	my %back = map { shown($_, $fmt) => $_ } @$dirs, @$files;
	my ($kinds, $got, $sorted) = listed($fmt, $doc, \%back);
	like($kinds, qr/^d*(?:Md+)?f*(?:Mf+)?$/, "$what: directories first");
	my %want = (d => $dirs, f => $files);
	for my $k ('d', 'f') {
		my @names = grep { defined } @{ $got->{$k} };
		is(join("\0", sort @names), join("\0", sort @{ $want{$k} }),
			"$what: $k: every entry listed once");
		my ($head, $m) = (0, 0);
		$head++ while $head < @{ $got->{$k} } && defined $got->{$k}[$head];
		$m = $head < @{ $got->{$k} };
		if ($fmt eq 'json') {
			# the marker is "sorted":false: the sorted part is the run
			$head = sorted_run(@names);
			$m = defined $sorted && !$sorted && $head < @names;
		}
		is($m ? 1 : 0, $cut eq $k ? 1 : 0,
			"$what: $k: " . ($cut eq $k ? 'a marker' : 'no marker'));
		is(sorted_run(@names[0 .. $head - 1]), $head,
			"$what: $k: in byte order" . ($m ? ' up to the marker' : ''));
		cmp_ok($head, $m ? '>=' : '==', $m ? 100 : scalar @names,
			"$what: $k: " . ($m ? 'at least 100 sorted' : 'all sorted'));
	}
	valid_doc($fmt, $doc, $what);
	is(defined $sorted ? ($sorted ? 'true' : 'false') : 'none',
		$cut ? 'false' : 'none', "$what: JSON \"sorted\" member")
		if $fmt eq 'json';
}

sub valid_doc {
	my ($fmt, $doc, $what) = @_;
	if ($fmt eq 'json') {
		ok(eval { JSON::PP->new->utf8->decode($doc) }, "$what: JSON parses")
			or diag($@);
	} elsif ($fmt eq 'xml') {
		is(xml_wellformed($doc), '', "$what: XML well-formed");
	} else {
		like($doc, qr{</tbody>\n</table>\n</body>\n</html>\n\z},
			"$what: HTML complete");
	}
}

sub decode_entities {
	my ($s) = @_;
	$s =~ s/&#(\d+);/chr $1/ge;
	$s =~ s/&#x([0-9a-fA-F]+);/chr hex $1/ge;
	my %e = (lt => '<', gt => '>', quot => '"', apos => "'", amp => '&');
	$s =~ s/&(lt|gt|quot|apos|amp);/$e{$1}/g;
	return $s;
}

# Well-formedness without a parser: tags nest, text has no stray < or &,
# every character is an XML 1.0 Char.  xmllint, when there, checks too.
sub xml_wellformed {
	my ($doc) = @_;
	my $s = Encode::decode('UTF-8', "$doc", Encode::FB_CROAK);
	return 'invalid character'
		if $s =~ /[^\x09\x0a\x0d\x20-\x{d7ff}\x{e000}-\x{fffd}
		    \x{10000}-\x{10ffff}]/x;
	$s =~ s/\A<\?xml [^?]*\?>\s*// or return 'no declaration';
	$s =~ s/\A<\?xml-stylesheet [^?]*\?>\s*//;
	my @stack;
	# \G and /gc walk the document once: s/\A...// would copy it per tag
	while ((pos($s) // 0) < length $s) {
		if ($s =~ /\G<([A-Za-z]\w*)>/gc) {
			push @stack, $1;
		} elsif ($s =~ m{\G</([A-Za-z]\w*)>}gc) {
			return "unbalanced </$1>" unless @stack && pop(@stack) eq $1;
			return 'text after the root' if !@stack && $s =~ /\G.*\S/gcs;
		} elsif ($s =~ /\G<!--(?:[^-]|-(?!-))*-->/gc) {
			# a comment: no "--" inside, none ending in "-"
		} elsif ($s =~ /\G([^<]+)/gc) {
			my $text = $1;
			return 'text outside the root' if !@stack && $text =~ /\S/;
			$text =~ s/&(?:lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);//g;
			return "stray & or > in text" if $text =~ /[&]/;
		} else {
			return 'bad markup at ' . substr($s, pos($s) // 0, 20);
		}
	}
	return @stack ? 'unclosed elements' : '';
}


sub with_file {
	my ($data, $suffix) = @_;
	my $dir = tempdir(CLEANUP => 1);
	my $f = "$dir/doc$suffix";
	open my $fh, '>:raw', $f or die;
	print $fh $data;
	close $fh;
	return $f;
}

###############################################################################
# AUTO_INDEX=1: JSON

{
	my $t = MrhttpdTest->new(conf => { AUTO_INDEX => 1,
		DEFAULT_INDEX => 'index.html' });
	$t->has('auto-index');
	populate($t);
	$t->run();

	my $doc = get_listing('/d/', $TYPE{json}, 'json');
	my $j = eval { JSON::PP->new->utf8->decode($doc) };
	ok($j, 'json: parses with JSON::PP') or diag($@);
	$j //= { entries => [] };
	is($j->{path}, '/d/', 'json: path');
	like($j->{timestamp} // '', qr/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
		'json: timestamp is ISO 8601 UTC');
	like($j->{server} // '', qr{^mrhttpd/}, 'json: server');
	my %got = map { $_->{name} => $_ } @{ $j->{entries} };
	for my $n (sort keys %files) {
		my $e = $got{ shown($n, 'json') };
		my $q = join '', map { sprintf '\\x%02x', ord } split //, $n;
		ok($e, "json: name $q is there, decoded") or next;
		is($e->{size}, defined $files{$n} ? length $files{$n} : $BIG,
			"json: $q size");
		is($e->{modified}, $ISO, "json: $q modified");
		isnt($e->{type}, 'dir', "json: $q is no directory");
	}
	is($got{sub}{type}, 'dir', 'json: subdirectory has type dir');
	is($got{'dir "quoted" & <odd>'}{type} // '', 'dir',
		'json: a directory with an odd name');
	is($got{'link-to-dir'}{type} // '', 'dir', 'json: a link to a directory is one');
	is($got{'link-to-file'}{size} // -1, length $files{'q?mark'},
		'json: a link to a file has its size');
	ok(!exists $got{$_}, "json: $_ is not listed")
		for qw(.hidden . .. dangling fifo);
	is(scalar(keys %got), scalar(keys %files) + @dirs + 2,
		'json: nothing else listed');
	my @types = map { $_->{type} eq 'dir' ? 'd' : 'f' } @{ $j->{entries} };
	like(join('', @types), qr/^d*f*$/, 'json: directories come first');
	is($got{'big.bin'}{type}, 'application/octet-stream',
		'json: type from the suffix table');
	ok(!ref $got{empty}{size} && $doc =~ /"size":0[,}]/,
		'json: size is a JSON number');
	like($doc, qr/"new\\u000aline"/, 'json: newline escaped as \u000a');
	like($doc, qr/"ls\\u2028sep"/, 'json: U+2028 escaped for JavaScript');

	SKIP: {
		skip 'python3 is not installed', 1
			unless MrhttpdTest::find_prog('python3');
		my ($rc, $out) = run_cmd('python3', '-m', 'json.tool',
			with_file($doc, '.json'));
		is($rc, 0, 'json: python3 -m json.tool parses it') or diag($out);
	}
	SKIP: {
		skip 'jq is not installed', 1 unless MrhttpdTest::find_prog('jq');
		my ($rc, $out) = run_cmd('jq', '-e', '.entries | length',
			with_file($doc, '.json'));
		is($rc, 0, 'json: jq parses it') or diag($out);
	}
	common_checks($t, 'json');
	# no validators: If-None-Match: * matches it, an If-Match with a
	# tag does not (RFC 9110 13.1.1, 13.1.2); they went unread (helper-75)
	my ($st) = fetch("GET /d/ HTTP/1.1\r\nHost: x\r\nIf-None-Match: *\r\nConnection: close\r\n\r\n");
	is($st, 304, 'json: If-None-Match: * gives 304');
	($st) = fetch("GET /d/ HTTP/1.1\r\nHost: x\r\nIf-Match: \"zz\"\r\nConnection: close\r\n\r\n");
	is($st, 412, 'json: If-Match with a tag gives 412');
	($st) = fetch("GET /d/ HTTP/1.1\r\nHost: x\r\nIf-Match: *\r\nConnection: close\r\n\r\n");
	is($st, 200, 'json: If-Match: * gives the listing');
	$t->stop();
}

###############################################################################
# AUTO_INDEX=2: XML, with XSLT_HEADER

{
	my $xslt = '<?xml-stylesheet href="/html.xslt" type="text/xsl"?>';
	my $t = MrhttpdTest->new(conf => { AUTO_INDEX => 2,
		XSLT_HEADER => $xslt, DEFAULT_INDEX => 'index.html' });
	populate($t);
	$t->run();

	my $doc = get_listing('/d/', $TYPE{xml}, 'xml');
	like($doc, qr/\A<\?xml\ version="1\.0"\ encoding="UTF-8"\?>\n
		\Q$xslt\E\n<directory>/x,
		'xml: XSLT_HEADER right after the XML declaration');
	is(xml_wellformed($doc), '', 'xml: well-formed (built-in check)');
	SKIP: {
		skip 'xmllint is not installed (libxml2-utils)', 1
			unless MrhttpdTest::find_prog('xmllint');
		my ($rc, $out) = run_cmd('xmllint', '--noout', with_file($doc, '.xml'));
		is($rc, 0, 'xml: xmllint --noout passes') or diag($out);
	}
	my ($path) = $doc =~ m{<path>(.*?)</path>};
	is($path, '/d/', 'xml: path');
	my %got;
	while ($doc =~ m{<entry><name>(.*?)</name><type>(.*?)</type>
	    <size>(\d+)</size><modified>(.*?)</modified></entry>}gsx) {
		my $name = Encode::decode('UTF-8', decode_entities($1),
			Encode::FB_CROAK);
		$got{$name} = { type => $2, size => $3, modified => $4 };
	}
	for my $n (sort keys %files) {
		my $e = $got{ shown($n, 'xml') };
		my $q = join '', map { sprintf '\\x%02x', ord } split //, $n;
		ok($e, "xml: name $q is there, decoded") or next;
		is($e->{size}, defined $files{$n} ? length $files{$n} : $BIG,
			"xml: $q size");
		is($e->{modified}, $ISO, "xml: $q modified");
	}
	is($got{sub}{type}, 'dir', 'xml: subdirectory has type dir');
	ok(!exists $got{$_}, "xml: $_ is not listed") for qw(.hidden dangling fifo);
	is(scalar(keys %got), scalar(keys %files) + @dirs + 2,
		'xml: nothing else listed');
	unlike($doc, qr/<script>/, 'xml: no raw <script>');
	common_checks($t, 'xml');
	$t->stop();
}

###############################################################################
# AUTO_INDEX=3: HTML

# The rows of a listing: [href, text, bytes or undef, size shown, time].
sub html_rows {
	my ($doc) = @_;
	my @rows;
	while ($doc =~ m{<tr><td><a\ href="([^"]*)">([^<]*)</a></td>
	    <td(?:\ class="s")?(?:\ title="(\d+)\ bytes")?>([^<]*)</td>
	    <td>([^<]*)</td></tr>}gx) {
		push @rows, [$1, $2, $3, $4, $5];
	}
	return @rows;
}

sub pct_decode {
	my ($s) = @_;
	$s =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge;
	return $s;
}

# Whether the links of a DOM Chromium dumped come in order: after the
# parent's, directories, then files, each group in byte order.
sub dom_sorted {
	my ($dom) = @_;
	my @names = map { pct_decode($_) }
		($dom // '') =~ /<tr><td><a href="([^"]*)">/g;
	shift @names if @names && $names[0] eq '../';
	my @d = grep { m{/$} } @names;
	my @f = grep { !m{/$} } @names;
	return @f > 0 && join("\0", @names) eq join("\0", @d, @f)
		&& sorted_run(map { s{/$}{}r } @d) == @d
		&& sorted_run(@f) == @f;
}

{
	my $t = MrhttpdTest->new(conf => { AUTO_INDEX => 3,
		DEFAULT_INDEX => 'index.html' });
	populate($t);
	$t->run();

	my $doc = get_listing('/d/', $TYPE{html}, 'html');
	like($doc, qr/\A<!DOCTYPE html>\n<html lang="en">/, 'html: HTML5 doctype');
	like($doc, qr{<title>Index of /d/</title>}, 'html: title names the path');
	like($doc, qr{<h1>Index of /d/</h1>}, 'html: heading names the path');
	unlike($doc, qr/<script|<link|src=|url\(/i,
		'html: no script and no external resources');
	my @rows = html_rows($doc);
	is($rows[0][0], '../', 'html: first a link to the parent directory');
	shift @rows;
	my %got = map { pct_decode($_->[0]) => $_ } @rows;
	for my $n (sort keys %files) {
		my $q = join '', map { sprintf '\\x%02x', ord } split //, $n;
		my $r = $got{$n};
		ok($r, "html: href of $q percent-decodes to the exact name") or next;
		like($r->[0], qr/^[A-Za-z0-9._~%-]+$/,
			"html: href of $q is percent-encoded");
		is(Encode::decode('UTF-8', decode_entities($r->[1]), Encode::FB_CROAK),
			shown($n, 'html'), "html: text of $q shows the name");
		is($r->[2], defined $files{$n} ? length $files{$n} : $BIG,
			"html: $q size in bytes");
		is($r->[4], $HUMAN, "html: $q last modified");
	}
	is($got{'big.bin'}[3], '5.0 MiB', 'html: size for people');
	is($got{'sub/'}[1], 'sub/', 'html: a directory ends in /');
	ok($got{'dir "quoted" & <odd>/'}, 'html: a directory with an odd name');
	is($got{'sub/'}[3], '-', 'html: ... and shows no size');
	my @kinds = map { $_->[0] =~ m{/$} ? 'd' : 'f' } @rows;
	like(join('', @kinds), qr/^d+f+$/, 'html: directories come first');
	is(scalar(@rows), scalar(keys %files) + @dirs + 2, 'html: nothing else listed');

	# every link fetches its file
	for my $n (sort keys %files) {
		next unless $got{$n} && defined $files{$n};
		my $q = join '', map { sprintf '\\x%02x', ord } split //, $n;
		my ($st, $h, $body) = fetch("GET /d/$got{$n}[0] HTTP/1.1\r\n"
			. "Host: x\r\nConnection: close\r\n\r\n");
		is("$st $body", "200 $files{$n}", "html: the link of $q fetches it");
	}
	my ($st, $h) = fetch("HEAD /d/big.bin HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n");
	is($h->{'content-length'}, $BIG, 'html: the link of big.bin: its length');
	($st, $h, my $body) = fetch("GET /d/sub/ HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n");
	is($st, 200, 'html: the link of sub/ lists it');
	like((dechunk($body))[0] // '', qr{<h1>Index of /d/sub/</h1>},
		'html: ... as /d/sub/');
	($st, $h, $body) = fetch("GET /d/dir%20%22quoted%22%20%26%20%3Codd%3E/"
		. " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	like((dechunk($body))[0] // '',
		qr{<h1>Index of /d/dir &quot;quoted&quot; &amp; &lt;odd&gt;/</h1>},
		'html: a decoded path is escaped in the heading');

	# the root has no parent link
	($st, $h, $body) = fetch("GET / HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n");
	my $root = (dechunk($body))[0] // '';
	like($root, qr{<h1>Index of /</h1>}, 'html: root listing');
	unlike($root, qr/Parent directory/, 'html: ... without a parent link');

	common_checks($t, 'html');

	SKIP: {
		my $chromium = MrhttpdTest::find_prog('chromium')
			// MrhttpdTest::find_prog('chromium-browser');
		skip 'chromium is not installed (apt-get install chromium)', 10
			unless $chromium;
		my $ud = tempdir(CLEANUP => 1);
		my @cmd = ('timeout', '120', $chromium, '--headless', '--no-sandbox',
			'--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
			"--user-data-dir=$ud", '--window-size=1000,1200');
		my $url = "http://127.0.0.1:" . $t->port . '/d/';
		my $rc = run_cmd({ stdout => "$ud/dom.html",
			stderr => "$ud/err" }, @cmd, '--dump-dom', $url);
		my $dom = slurp("$ud/dom.html");
		is($rc, 0, 'chromium: --dump-dom ran');
		my $text = Encode::decode('UTF-8', $dom, Encode::FB_DEFAULT);
		my @missing;
		my @names = grep { defined $files{$_} || $_ eq 'big.bin' } keys %files;
		for my $n (@names) {
			my $want = shown($n, 'html');
			# the DOM serialiser escapes & < > in text
			$want =~ s/&/&amp;/g;
			$want =~ s/</&lt;/g;
			$want =~ s/>/&gt;/g;
			push @missing, $want unless index($text, ">$want</a>") >= 0;
		}
		ok(!@missing, 'chromium: every name is rendered as a link text')
			or diag("missing: @missing");
		ok($text =~ /<a href="q%3Fmark">q\?mark<\/a>/,
			'chromium: the q?mark link keeps its encoded href');
		unlike($text, qr/<script/i, 'chromium: no script element in the DOM');
		ok(dom_sorted($dom), 'chromium: /d/ links in order: directories, '
			. 'then files, each in byte order');
		$rc = run_cmd({ stdout => "$ud/order.html", stderr => "$ud/err" },
			@cmd, '--dump-dom', "${url}../order/");
		ok($rc == 0 && dom_sorted(slurp("$ud/order.html")),
			'chromium: /order/ links in order as well');

		$rc = run_cmd({ stdout => "$ud/out", stderr => "$ud/err2" }, @cmd,
			"--screenshot=$ud/shot.png", $url);
		is($rc, 0, 'chromium: --screenshot ran');
		my $png = slurp("$ud/shot.png");
		ok(substr($png, 0, 8) eq "\x89PNG\r\n\x1a\n" && length($png) > 10000,
			'chromium: a screenshot of the page was taken')
			or diag(length($png) . ' bytes');
		$rc = run_cmd({ stdout => "$ud/out", stderr => "$ud/err3" }, @cmd,
			"--screenshot=$ud/order.png", "${url}../order/");
		is($rc, 0, 'chromium: --screenshot of /order/ ran');
		my $keep = "$MrhttpdTest::ROOT/tests/build/listing";
		ok(copy("$ud/shot.png", "$keep-d.png")
			&& copy("$ud/order.png", "$keep-order.png"),
			'chromium: screenshots kept in tests/build/listing-*.png');
	}
	$t->stop();
}

###############################################################################
# PATH_PREFIX: the path shown and the links keep the prefix

{
	my $t = MrhttpdTest->new(conf => { AUTO_INDEX => 3,
		PATH_PREFIX => '/app' });
	$t->has('path-prefix');
	$t->write_file('f?.txt', "prefixed\n");
	$t->write_file('sub/g.txt', "in sub\n");
	$t->run();
	my ($st, $h, $body) = fetch("GET /app/ HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n");
	my $doc = (dechunk($body))[0] // '';
	like($doc, qr{<h1>Index of /app/</h1>}, 'prefix: the path has the prefix');
	unlike($doc, qr/Parent directory/, 'prefix: /app/ is the root');
	my %rows = map { $_->[1] => $_->[0] } html_rows($doc);
	is($rows{'f?.txt'}, 'f%3F.txt', 'prefix: relative link');
	($st, $h, $body) = fetch("GET /app/$rows{'f?.txt'} HTTP/1.1\r\n"
		. "Host: x\r\nConnection: close\r\n\r\n");
	is($body, "prefixed\n", 'prefix: ... that fetches the file');

	# "/app" alone is the root named without its slash: redirected, as
	# any directory is, so that relative links resolve below /app/
	($st, $h) = fetch("GET /app HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n");
	is($st, 301, 'prefix: /app alone is redirected');
	is($h->{location}, '/app/', '... to /app/');
	$t->stop();
}

###############################################################################
# AUTO_INDEX=0: no listing

{
	my $t = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html' });
	$t->write_file('d/file.txt', "x\n");
	$t->run();
	my ($st, $h, $body) = fetch("GET /d/ HTTP/1.1\r\nHost: x\r\n"
		. "Connection: close\r\n\r\n");
	like($st, qr/^40[34]$/, 'AUTO_INDEX=0: a directory without index is refused');
	unlike($body, qr/file\.txt/, 'AUTO_INDEX=0: ... and not listed');
	$t->stop();
}

MrhttpdTest->done_testing();
