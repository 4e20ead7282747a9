#!/usr/bin/perl
# An independent HTTP checker on the server's replies: httplint (from PyPI,
# the library behind REDbot) in a throwaway venv under tests/build/, made
# once and reused.  Every kind of reply the server gives for files,
# ranges, conditional requests and methods is linted with its request, and
# so are, when built, the GZIP_STATIC variants, a 401 of AUTH_HEADER and
# the JSON and HTML directory listings (chunked framing checked here).  No
# finding may be BAD.  A self-test shows that the checker does flag
# broken replies.  Skips with the reason when python3 -m venv or PyPI
# cannot be had.
#
#	MRHTTPD_HTTPLINT=spec	the pip requirement (default: the pinned one)

use strict;
use warnings;

use Fcntl qw(:flock O_RDWR O_CREAT);
use File::Path qw(remove_tree);
use IO::Compress::Gzip qw(gzip $GzipError);
use JSON::PP;
use Test::More;
use Time::HiRes ();
use MrhttpdTest qw(:DEFAULT slurp spew http_date);

my $SPEC = $ENV{MRHTTPD_HTTPLINT} // 'httplint==2026.10.4';

my $t = MrhttpdTest->new(conf => { DEFAULT_INDEX => 'index.html' });
my ($python, $why) = httplint_python($SPEC);
plan(skip_all => "httplint is not usable: $why") unless $python;

my $MTIME = 784111777;				# Sun, 06 Nov 1994 08:49:37 GMT
for my $f (['index.html', "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		. "<title>lint</title></head><body><p>lint me</p></body></html>\n"],
	['a.txt', "plain text\n"], ['style.css', "p { color: red }\n"],
	['app.js', "console.log(1);\n"], ['data.json', "{\"a\": 1}\n"],
	['dir/index.html', "<!DOCTYPE html>\n<title>d</title>\n"]) {
	utime($MTIME, $MTIME, $t->write_file(@$f));
}
$t->write_file('big.bin', join('', map { chr($_ % 251) } 1 .. 300_000));
my $fut = time + 86400;
utime($fut, $fut, $t->write_file('future.txt', "from the future\n"));
$t->run();

my $HOST = '127.0.0.1:' . $t->port;

# The ETag and Last-Modified of index.html, for the conditional requests.
my ($idx) = parse_responses(http_get('/index.html'));
my $ETAG = $idx->{headers}{etag} // '"none"';
my $LM = $idx->{headers}{'last-modified'} // 'none';

my $has_put = ($t->version_info->{features}{put} // 'no') eq 'yes';
# ranges and validators are linted where they are built (RANGES, VALIDATORS)
my ($R, $V) = ($t->feature('ranges'), $t->feature('validators'));
my @cases = (
	['GET /index.html', 200, 'GET /index.html'],
	['HEAD /index.html', 200, 'HEAD /index.html'],
	['GET /', 200, 'GET /'],
	(!$R ? () : (['range of /index.html', 206, 'GET /index.html', 'Range: bytes=0-9'],
	['suffix range', 206, 'GET /index.html', 'Range: bytes=-10'],
	['range to the end', 206, 'GET /index.html', 'Range: bytes=10-'],
	['range of a big file', 206, 'GET /big.bin', 'Range: bytes=100000-299999'],
	['range with a matching If-Range', $V ? 206 : 200, 'GET /index.html', 'Range: bytes=0-9',
		"If-Range: $ETAG"],
	['range with a stale If-Range', 200, 'GET /index.html', 'Range: bytes=0-9',
		'If-Range: "stale"'],
	['several ranges', 200, 'GET /index.html', 'Range: bytes=0-1,5-6'],
	['unsatisfiable range', 416, 'GET /index.html', 'Range: bytes=99999-'])),
	(!$V ? () : (['304 for If-None-Match', 304, 'GET /index.html', "If-None-Match: $ETAG"],
	['304 for If-Modified-Since', 304, 'GET /index.html', "If-Modified-Since: $LM"],
	['304 to HEAD', 304, 'HEAD /index.html', "If-None-Match: $ETAG"],
	['304 for a range request', 304, 'GET /index.html', 'Range: bytes=0-9',
		"If-None-Match: $ETAG"],
	['412 for If-Match', 412, 'GET /index.html', 'If-Match: "other"'],
	['412 for If-Unmodified-Since', 412, 'GET /index.html',
		'If-Unmodified-Since: Sat, 01 Jan 1994 00:00:00 GMT'])),
	['future mtime', 200, 'GET /future.txt'],
	['text/plain', 200, 'GET /a.txt'],
	['text/css', 200, 'GET /style.css'],
	['javascript', 200, 'GET /app.js'],
	['JSON', 200, 'GET /data.json'],
	['octet-stream', 200, 'GET /big.bin'],
	['OPTIONS *', 204, 'OPTIONS *'],
	['OPTIONS /index.html', 204, 'OPTIONS /index.html'],
	['POST', 405, 'POST /index.html', 'Content-Length: 0'],
	($has_put ? () : (['DELETE', 405, 'DELETE /index.html'])),
	['unknown method', 501, 'BREW /index.html'],
	['404', 404, 'GET /missing.html'],
	['301 for a directory', 301, 'GET /dir'],
	['absolute-form', 200, "GET http://$HOST/index.html"],
	['HTTP/1.0', 200, 'GET /index.html', undef],
);

# Capture each exchange: request and reply bytes, and when it happened.
my $dir = $t->testdir . '/lint';
mkdir $dir or die "mkdir $dir: $!";
my @jobs;
capture($HOST, @cases);

# The same for the variants other features make, when they are built:
# GZIP_STATIC (the conf of 45-validators-variants.t) and a 401 from
# AUTH_HEADER (the conf of 43-auth-prefix-gzip.t).
my $tg = MrhttpdTest->new(conf => { GZIP_STATIC => 1, DEFAULT_INDEX => 'index.html' });
if (($tg->version_info->{features}{'gzip-static'} // '') eq 'yes') {
	my $page = join('', map { "<p>line $_</p>\n" } 1 .. 200);
	utime($MTIME, $MTIME, $tg->write_file('page.html', "<!DOCTYPE html>\n$page"));
	gzip(\"<!DOCTYPE html>\n$page" => \my $gz, Minimal => 1) or die $GzipError;
	utime($MTIME, $MTIME, $tg->write_file('page.html.gz', $gz));
	$tg->run();
	my ($g) = parse_responses(http("GET /page.html HTTP/1.1\r\nHost: x\r\n"
		. "Accept-Encoding: gzip\r\nConnection: close\r\n\r\n"));
	my $getag = $g->{headers}{etag} // '"none"';
	my @AE = ('Accept-Encoding: gzip, deflate');
	capture('127.0.0.1:' . $tg->port,
		['gzip variant', 200, 'GET /page.html', @AE],
		['gzip variant to HEAD', 200, 'HEAD /page.html', @AE],
		['plain variant beside a .gz', 200, 'GET /page.html'],
		(!$R ? () : (['range of the gzip variant', 206, 'GET /page.html', @AE,
			'Range: bytes=0-99'], ['416 of the gzip variant', 416,
			'GET /page.html', @AE, 'Range: bytes=99999-'])),
		(!$V ? () : (['304 of the gzip variant', 304, 'GET /page.html', @AE,
			"If-None-Match: $getag"])));
} else {
	note('gzip-static not built: its replies are not linted');
}
my $ta = MrhttpdTest->new(conf => { AUTH_HEADER => 'Basic dGVzdDp0ZXN0',
	DEFAULT_INDEX => 'index.html' });
if (($ta->version_info->{features}{auth} // '') eq 'yes') {
	$ta->write_file('index.html', "<!DOCTYPE html>\n<title>secret</title>\n");
	$ta->run();
	capture('127.0.0.1:' . $ta->port,
		['401 without credentials', 401, 'GET /index.html'],
		['401 to HEAD', 401, 'HEAD /index.html'],
		['200 with credentials', 200, 'GET /index.html',
			'Authorization: Basic dGVzdDp0ZXN0']);
} else {
	note('auth not built: its 401 is not linted');
}

# Directory listings, when built (the confs of 44-listing.t): JSON and
# HTML, chunked over HTTP/1.1 and close-delimited over HTTP/1.0.
for my $mode ([1, 'JSON'], [3, 'HTML']) {
	my ($n, $name) = @$mode;
	my $tl = MrhttpdTest->new(conf => { AUTO_INDEX => $n, DEFAULT_INDEX => 'index.html' });
	unless (($tl->version_info->{features}{'auto-index'} // '') eq 'yes') {
		note("auto-index not built: listings are not linted");
		last;
	}
	$tl->write_file('list/a "quoted" <name> & more.txt', "a\n");
	$tl->write_file("list/\xc3\xbcmlaut.txt", "u\n");
	$tl->write_file('list/sub/x.txt', "x\n");
	$tl->run();
	capture('127.0.0.1:' . $tl->port,
		["$name listing", 200, 'GET /list/'],
		["$name listing to HEAD", 200, 'HEAD /list/'],
		["$name listing over HTTP/1.0", 200, 'GET /list/', undef]);
}

# A reply with known faults: the checker must call them BAD, or it is not
# checking anything.
spew("$dir/bad.req", "GET /x HTTP/1.1\r\nHost: $HOST\r\nUser-Agent: t\r\n\r\n");
spew("$dir/bad.res", "HTTP/1.1 304 Not Modified\r\nDate: " . http_date(time)
	. "\r\nLast-Modified: yesterday\r\nContent-Length: 3\r\n\r\nabc");
push @jobs, { what => 'self-test', req => "$dir/bad.req", res => "$dir/bad.res",
	time => Time::HiRes::time(), head => JSON::PP::false };
# and chunked framing, which the checker undoes itself: good, then bad
my $chunked = "HTTP/1.1 200 OK\r\nDate: " . http_date(time) . "\r\n"
	. "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n";
spew("$dir/chunk-ok.res", $chunked . "5\r\nhello\r\n1;x=y\r\n!\r\n0\r\n\r\n");
spew("$dir/chunk-bad.res", $chunked . "5\r\nhello!\r\n0\r\n\r\n");
push @jobs, map { { what => "self-test $_", req => "$dir/bad.req",
	res => "$dir/$_.res", time => Time::HiRes::time(), head => JSON::PP::false } }
	'chunk-ok', 'chunk-bad';

spew("$dir/jobs.json", encode_json(\@jobs));
spew("$dir/lint.py", lint_py());
my ($rc, $out) = run_cmd({ stdout => "$dir/out.json", stderr => "$dir/err.txt" },
	$python, "$dir/lint.py", "$dir/jobs.json");
my $res = eval { decode_json(slurp("$dir/out.json")) };
unless (ok($rc == 0 && ref $res eq 'ARRAY' && @$res == @jobs, 'httplint ran on every reply')) {
	diag("httplint failed (exit $rc):\n" . slurp("$dir/err.txt"));
	$t->done_testing();
	exit;
}

my ($self, $chunk_ok, $chunk_bad) = splice(@$res, -3);
ok((grep { $_->{level} eq 'BAD' } @{ $self->{notes} }) >= 2,
	'self-test: httplint flags a broken reply as BAD')
	or diag(explain $self);
ok(!(grep { $_->{level} eq 'BAD' } @{ $chunk_ok->{notes} }),
	'self-test: good chunked framing passes') or diag(explain $chunk_ok);
ok((grep { $_->{level} eq 'BAD' && $_->{summary} =~ /chunked/ } @{ $chunk_bad->{notes} }),
	'self-test: bad chunked framing is BAD') or diag(explain $chunk_bad);

for my $k (0 .. $#$res) {
	my $what = $jobs[$k]{what};
	my @notes = @{ $res->[$k]{notes} };
	ok(@notes > 0, "$what: httplint had something to say");
	my @bad = grep { $_->{level} eq 'BAD' } @notes;
	ok(!@bad, "$what: no BAD findings")
		or diag(join("\n", map { "[$_->{level}] $_->{summary}" } @notes)
			. "\n--- reply:\n" . substr(slurp($jobs[$k]{res}), 0, 600));
	note("$what: [$_->{level}] $_->{summary}") for @notes;
}

$t->done_testing();

###############################################################################

# capture($host, @cases): makes each request of @cases to $host (the
# default port being that server's), checks its status and keeps request,
# reply and time as a job for the checker.
sub capture {
	my ($host, @list) = @_;
	my ($port) = $host =~ /:(\d+)$/;
	for my $c (@list) {
		my ($what, $want, $line, @h) = @$c;
		my $v10 = @h && !defined $h[-1];
		@h = grep { defined } @h;
		my ($method) = $line =~ /^(\S+)/;
		my $req = "$line HTTP/" . ($v10 ? '1.0' : '1.1') . "\r\nHost: $host\r\n"
			. "User-Agent: mrhttpd-tests\r\n" . join('', map { "$_\r\n" } @h)
			. ($v10 ? '' : "Connection: close\r\n") . "\r\n";
		my $when = Time::HiRes::time();
		my $raw = http($req, port => $port);
		my ($r) = parse_responses($raw, head => $method eq 'HEAD');
		is($r && $r->{status}, $want, "$what: $want");
		my $i = @jobs + 1;
		spew("$dir/$i.req", $req);
		spew("$dir/$i.res", $raw);
		push @jobs, { what => $what, req => "$dir/$i.req", res => "$dir/$i.res",
			time => $when,
			head => $method eq 'HEAD' ? JSON::PP::true : JSON::PP::false };
	}
}




# httplint_python($spec): a python with httplint importable, from a venv in
# tests/build/ made on first use; (path) or (undef, reason).
sub httplint_python {
	my ($spec) = @_;
	(my $tag = $spec) =~ s/[^A-Za-z0-9._-]+/-/g;
	my $base = "$MrhttpdTest::ROOT/tests/build";
	my $venv = "$base/venv-$tag";
	my $py = "$venv/bin/python";
	sysopen(my $lock, "$venv.lock", O_RDWR | O_CREAT) or return (undef, "lock: $!");
	flock($lock, LOCK_EX) or return (undef, "flock: $!");

	return ($py) if -e "$venv/.ready"
		&& run_cmd($py, '-c', 'import httplint') == 0;
	remove_tree($venv);
	my ($sys) = grep { defined && -x } '/usr/bin/python3',
		MrhttpdTest::find_prog('python3');
	return (undef, 'python3 is not installed (apt-get install python3 python3-venv)')
		unless $sys;
	my @to = MrhttpdTest::find_prog('timeout') ? ('timeout', '600') : ();
	my ($rc, $out) = run_cmd(@to, $sys, '-m', 'venv', $venv);
	if ($rc != 0) {
		remove_tree($venv);
		return (undef, "'$sys -m venv' failed (apt-get install python3-venv): "
			. tail($out));
	}
	($rc, $out) = run_cmd(@to, $py, '-m', 'pip', 'install', '-q',
		'--disable-pip-version-check', '--timeout', '30', '--retries', '2', $spec);
	if ($rc != 0 || run_cmd($py, '-c', 'import httplint') != 0) {
		remove_tree($venv);
		return (undef, "pip install $spec failed (PyPI unreachable?): " . tail($out));
	}
	spew("$venv/.ready", "$spec\n");
	return ($py);
}

sub tail {
	my @l = grep { /\S/ } split /\n/, $_[0] // '';
	return join(' | ', @l[($#l > 2 ? $#l - 2 : 0) .. $#l]);
}

# The checker: reads a JSON list of {req, res, time, head} files, lints
# each reply with its request through httplint's Python API, and prints a
# JSON list of {notes: [{level, summary}]}, subnotes flattened in.
sub lint_py {
	return <<'PY';
import json
import sys

from httplint import HttpRequestLinter, HttpResponseLinter


def split(raw):
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    fields = []
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        fields.append((name, value.strip(b" \t")))
    return lines[0], fields, body


def dechunk(body):
    """The content of a chunked body; raises ValueError on bad framing."""
    out, pos = b"", 0
    while True:
        end = body.find(b"\r\n", pos)
        if end < 0:
            raise ValueError("chunk-size line not terminated")
        size_text = body[pos:end].split(b";", 1)[0]
        if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
            raise ValueError("bad chunk-size %r" % size_text)
        size = int(size_text, 16)
        pos = end + 2
        if size == 0:
            # no trailers are expected: just the final CRLF, then nothing
            if body[pos:] != b"\r\n":
                raise ValueError("bytes after the last chunk: %r" % body[pos:pos + 40])
            return out
        if len(body) < pos + size + 2 or body[pos + size:pos + size + 2] != b"\r\n":
            raise ValueError("chunk of %d bytes not followed by CRLF" % size)
        out += body[pos:pos + size]
        pos += size + 2


def flatten(notes):
    for n in notes:
        yield {"level": n.level.name, "summary": str(n.summary)}
        yield from flatten(getattr(n, "subnotes", []) or [])


def lint(job):
    with open(job["req"], "rb") as f:
        top, fields, _ = split(f.read())
    method, target, version = top.split(b" ")
    req = HttpRequestLinter(start_time=job["time"])
    req.process_request_topline(method, target, version)
    req.process_headers(fields)
    req.finish_content(True)

    with open(job["res"], "rb") as f:
        top, fields, body = split(f.read())
    version, status, phrase = (top.split(b" ", 2) + [b""])[:3]
    res = HttpResponseLinter(start_time=job["time"], _related=req)
    res.is_head_response = bool(job["head"])
    res.process_response_topline(version, status, phrase)
    res.process_headers(fields)
    extra = []
    te = b",".join(v for n, v in fields if n.lower() == b"transfer-encoding")
    if body and b"chunked" in te.lower():
        try:
            body = dechunk(body)
        except ValueError as e:
            extra.append({"level": "BAD", "summary": "chunked framing: %s" % e})
    if body:
        res.feed_content(body)
    res.finish_content(True)
    return {"notes": list(flatten(req.notes)) + list(flatten(res.notes)) + extra}


with open(sys.argv[1]) as f:
    jobs = json.load(f)
json.dump([lint(j) for j in jobs], sys.stdout)
PY
}
