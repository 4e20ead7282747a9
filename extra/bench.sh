#!/bin/sh
# bench.sh - mrhttpd side by side with h2o, nginx and lighttpd on loopback.
# "make bench" runs it; doc/PERFORMANCE.md explains the method and shows
# results.
#
# Every server runs alone, pinned to one CPU, the load generator (ab, wrk)
# pinned to the other, and all get the same runs.  For each run we record
# requests/s, failed requests (ab's failures plus non-2xx, wrk's socket
# errors plus non-2xx), the server's CPU time per request (utime+stime of
# its process tree and of its reaped children, from /proc before and after),
# its peak RSS (VmHWM summed over the tree), the load generator's CPU and
# the CPU everything else on the machine used meanwhile.  The last two say
# whether the generator, or a neighbour, was the limit.
#
# Output in BENCH_DIR: results.csv (one row per server and run, with the
# ratios mrhttpd/peer), raw.csv (every repetition), results.md (the tables
# in Markdown), results.png (gnuplot), and the tables on stdout.
#
# Environment:
#   BENCH_QUICK=1          smoke run for CI: tiny runs, no 19,000-client run,
#                          one repetition; well under a minute
#   BENCH_REPEAT=N         run everything N times (every server once, then
#                          again), report the median by
#                          requests/s (default 3, as the reference figures)
#   BENCH_SERVERS="..."    servers, in order (default: mrhttpd h2o nginx lighttpd)
#   BENCH_RUNS="..."       runs, in order (default: every one; ka19k only
#                          without BENCH_QUICK)
#   BENCH_DIR=DIR          build, docroot and results (default build/bench)
#   BENCH_SERVER_CPU=0     CPU for the servers (taskset); empty: no pinning
#   BENCH_CLIENT_CPU=1     CPU for the load generator; empty: no pinning
#   BENCH_QUIET_MAX=20     seconds to wait for an idle machine before a run
#   BENCH_OTHER_MAX=25     a run during which the rest of the machine used
#                          more than this % of one CPU is disturbed: it is
#                          done again, at most BENCH_RETRIES=2 times
#   BENCH_REPORT=1         run nothing: remake the tables and the chart from
#                          the last raw.csv
#   MRHTTPD_NO_INSTALL=1   never apt-get missing tools
#
# Exit status: 0, unless ab is missing, mrhttpd did not build, start or
# serve, died during the runs, or (BENCH_QUICK=1) failed a request.  Peers
# that are missing or fail are reported and skipped; slowness is never an
# error.  Every server started here is stopped by its PID on the way out,
# Ctrl-C included.

me=bench
say()
{
	printf '%s: %s\n' "$me" "$*"
}
warn()
{
	printf '%s: warning: %s\n' "$me" "$*" >&2
}
die()
{
	printf '%s: %s\n' "$me" "$*" >&2
	exit 1
}

cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
PATH=$PATH:/usr/sbin:/sbin

# --- settings -------------------------------------------------------------------
case ${BENCH_QUICK:-0} in 0|'') QUICK=0 ;; *) QUICK=1 ;; esac
REPEAT=${BENCH_REPEAT:-3}
case $REPEAT in ''|*[!0-9]*|0) die "BENCH_REPEAT: '$REPEAT' is not a count" ;; esac
QUIET_MAX=${BENCH_QUIET_MAX:-20}
case $QUIET_MAX in ''|*[!0-9]*) die "BENCH_QUIET_MAX: '$QUIET_MAX' is not a number of seconds" ;; esac
OTHER_MAX=${BENCH_OTHER_MAX:-25}
RETRIES=${BENCH_RETRIES:-2}
for v in "$OTHER_MAX" "$RETRIES"; do
	case $v in ''|*[!0-9]*) die "BENCH_OTHER_MAX, BENCH_RETRIES: '$v' is not a number" ;; esac
done
PAUSE=2		# seconds between runs: let TIME_WAIT sockets and threads go
if [ "$QUICK" = 1 ]; then
	REPEAT=1
	QUIET_MAX=0
	PAUSE=0
	RETRIES=${BENCH_RETRIES:-0}
fi
SERVERS=${BENCH_SERVERS:-mrhttpd h2o nginx lighttpd}
D=${BENCH_DIR:-build/bench}
case $D in /*) ;; *) D=$ROOT/$D ;; esac
DOCROOT=$D/htdocs
SERVER_CPU=${BENCH_SERVER_CPU-0}
CLIENT_CPU=${BENCH_CLIENT_CPU-1}
AB_TLIMIT=15		# ab -t: only cuts runs short on very slow servers
GEN_TIMEOUT=180		# a load generator still running after this is stuck
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)

if [ "$QUICK" = 1 ]; then
	RUNS="ka100 close100 wrk4k ka1000 1mib cgi"
else
	RUNS="ka100 close100 wrk4k ka1000 ka19k 1mib cgi"
fi
RUNS=${BENCH_RUNS:-$RUNS}

# run_spec ID: sets TOOL, C (concurrency), N (requests, or seconds for wrk),
# URLP, ARGS and DESC for run ID, full or quick.
q()
{
	if [ "$QUICK" = 1 ]; then C=$1 N=$2; else C=$3 N=$4; fi
}
run_spec()
{
	case $1 in
	ka100)	TOOL=ab URLP=/25b.txt; q 10 2000 100 200000
		ARGS="-k -c $C -n $N" DESC="25 B keep-alive" ;;
	close100) TOOL=ab URLP=/25b.txt; q 10 1000 100 50000
		ARGS="-c $C -n $N" DESC="25 B no keep-alive" ;;
	wrk4k)	TOOL=wrk URLP=/4k.txt; q 10 2 100 10
		ARGS="-t1 -c$C -d${N}s" DESC="4 KiB wrk keep-alive" ;;
	ka1000)	TOOL=ab URLP=/25b.txt; q 50 2000 1000 200000
		ARGS="-k -c $C -n $N" DESC="25 B keep-alive" ;;
	ka19k)	# as many clients as a 20,000-descriptor limit allows both
		# sides; slow answers are not failures here, stalls of 10 s are
		TOOL=wrk URLP=/25b.txt; q 100 2 19000 10
		ARGS="-t1 -c$C -d${N}s --timeout 10s" DESC="25 B wrk keep-alive" ;;
	1mib)	TOOL=ab URLP=/1m.bin; q 2 50 10 2000
		ARGS="-k -c $C -n $N" DESC="1 MiB keep-alive" ;;
	cgi)	TOOL=ab URLP=/cgi-bin/perftest.sh; q 2 20 10 5000
		ARGS="-c $C -n $N" DESC="CGI no keep-alive" ;;
	*)	die "unknown run $1" ;;
	esac
	DESC="$DESC c=$C"
}

# Everything goes as high as the hard limit allows: 19,000 clients need
# 19,000 descriptors in the generator and as many in the server.
ulimit -n "$(ulimit -H -n)" 2>/dev/null
NOFILE=$(ulimit -n)
case $NOFILE in unlimited) NOFILE=1048576 ;; ''|*[!0-9]*) NOFILE=1024 ;; esac

# --- tools ------------------------------------------------------------------------
# Missing tools are installed when we are root on Debian (tests/install-deps.sh
# knows how, and honours MRHTTPD_NO_INSTALL); a missing peer is skipped.
tools()
{
	need=
	command -v ab >/dev/null 2>&1 || need="$need apache2-utils"
	command -v wrk >/dev/null 2>&1 || need="$need wrk"
	command -v gnuplot >/dev/null 2>&1 || need="$need gnuplot-nox"
	case " $SERVERS " in *" nginx "*)
		command -v nginx >/dev/null 2>&1 || need="$need nginx-light" ;;
	esac
	case " $SERVERS " in *" lighttpd "*)
		command -v lighttpd >/dev/null 2>&1 || need="$need lighttpd" ;;
	esac
	case " $SERVERS " in *" h2o "*)
		command -v h2o >/dev/null 2>&1 || need="$need h2o" ;;
	esac
	if [ -n "$need" ]; then
		# shellcheck disable=SC2086
		sh tests/install-deps.sh $need
	fi
	command -v ab >/dev/null 2>&1 || die "ab (apache2-utils) is needed and missing"
	command -v perl >/dev/null 2>&1 || die "perl is needed and missing"
	HAVE_WRK=0
	command -v wrk >/dev/null 2>&1 && HAVE_WRK=1
	if [ -n "$SERVER_CPU$CLIENT_CPU" ]; then
		if ! command -v taskset >/dev/null 2>&1; then
			warn "no taskset: running unpinned"
			SERVER_CPU='' CLIENT_CPU=''
		elif [ "$(nproc 2>/dev/null || echo 1)" -lt 2 ]; then
			warn "fewer than 2 CPUs: running unpinned"
			SERVER_CPU='' CLIENT_CPU=''
		fi
	fi
}

# --- process bookkeeping ------------------------------------------------------------
STARTED=		# PIDs of the servers we started and have not stopped

# Prints "pid starttime" for PID and every descendant, from one pass over
# /proc (the kernel here has no /proc/PID/task/TID/children).
tree()
{
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" '
	{
		pid = $1; rest = $0
		sub(/^.*\) /, "", rest)	# the command name may hold spaces
		split(rest, f, " ")
		ppid[pid] = f[2]; start[pid] = f[20]
	}
	END {
		if (!(root in ppid))
			exit
		in_tree[root] = 1
		for (grew = 1; grew; ) {
			grew = 0
			for (p in ppid)
				if (!(p in in_tree) && (ppid[p] in in_tree)) {
					in_tree[p] = 1; grew = 1
				}
		}
		for (p in in_tree)
			print p, start[p]
	}'
}

# CPU ticks of PID's tree: utime+stime of each process plus what it has
# reaped from its children (CGI programs, for instance).
tree_cpu()
{
	_tc_sum=0
	for _tc_pid in $(tree "$1" | cut -d' ' -f1); do
		_tc_t=$(sed 's/^.*) //' "/proc/$_tc_pid/stat" 2>/dev/null |
		    awk '{ print $12 + $13 + $14 + $15 }')
		_tc_sum=$((_tc_sum + ${_tc_t:-0}))
	done
	echo "$_tc_sum"
}

# Peak RSS of PID's tree in kB: VmHWM summed over its processes.
tree_hwm()
{
	tree "$1" | while read -r p _; do
		cat "/proc/$p/status" 2>/dev/null
	done | awk '/^VmHWM:/ { s += $2 } END { print s + 0 }'
}

# True while PID runs (a zombie we have not reaped yet does not count).
alive()
{
	st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -n "$st" ] && [ "$st" != Z ]
}

# Stops a server we started: SIGTERM, up to 8 s to finish, SIGKILL; then
# SIGTERM to any descendant it left behind that is still the same process
# (same PID and start time), never anything by name.
stop_server()
{
	kids=$(tree "$1")
	kill -TERM "$1" 2>/dev/null
	i=0
	while alive "$1" && [ $i -lt 80 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	alive "$1" && kill -KILL "$1" 2>/dev/null
	printf '%s\n' "$kids" | while read -r p t; do
		[ -n "$p" ] && [ "$p" != "$1" ] || continue
		now=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $20 }')
		[ "$now" = "$t" ] && kill -TERM "$p" 2>/dev/null
	done
	wait "$1" 2>/dev/null
	rest=
	for p in $STARTED; do
		[ "$p" = "$1" ] || rest="$rest $p"
	done
	STARTED=$rest
}

cleanup()
{
	for p in $STARTED; do
		stop_server "$p"
	done
	rm -f "$D/.times0" "$D/.times1" "$D/.gen.out"
}
trap cleanup EXIT
trap 'cleanup; trap - EXIT; exit 130' INT
trap 'cleanup; trap - EXIT; exit 143' TERM HUP

# --- network helpers (perl is on every Debian; core modules only) --------------------
# Prints a free TCP port on 127.0.0.1.
free_port()
{
	perl -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new(Listen => 1,
	    LocalAddr => "127.0.0.1", LocalPort => 0, Proto => "tcp") or exit 1;
	    print $s->sockport, "\n"'
}

# True once 127.0.0.1:PORT accepts; false if PID died or 10 s passed.
wait_port()
{
	perl -MIO::Socket::INET -e 'my ($port, $pid) = @ARGV;
	    for (1 .. 100) {
		open(my $st, "<", "/proc/$pid/stat") or exit 1;
		exit 1 if <$st> =~ /\) Z /;
		exit 0 if IO::Socket::INET->new(PeerAddr => "127.0.0.1",
		    PeerPort => $port, Proto => "tcp");
		select(undef, undef, undef, 0.1);
	    }
	    exit 1' "$1" "$2"
}

# Prints "status server-header body" for a GET of PATH on 127.0.0.1:PORT,
# body being "script" when it starts with "#!" (a CGI program served as a
# file, by a server without CGI) and "-" otherwise.
probe()
{
	perl -MIO::Socket::INET -e 'my ($port, $path) = @ARGV;
	    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1",
		PeerPort => $port, Proto => "tcp", Timeout => 5) or exit 1;
	    print $s "GET $path HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
	    my ($st, $srv, $body) = ("-", "-", "-");
	    $SIG{ALRM} = sub { print "$st $srv $body\n"; exit 0 };
	    alarm 10;
	    while (<$s>) {
		last if /^\r?$/;
		$st = $1 if $. == 1 && m{^HTTP/\S+ (\d+)};
		$srv = $1 if /^Server:\s*(\S+)/i;
	    }
	    $body = "script" if defined($_ = <$s>) && /^#!/;
	    print "$st $srv $body\n"' "$1" "$2"
}

now_ms()
{
	date +%s%3N
}

# Busy ticks of all CPUs (user nice system irq softirq steal).
busy_ticks()
{
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

# Children's CPU in ticks from a saved "times" output (second line).
times_ticks()
{
	awk -v hz="$HZ" 'NR == 2 {
		s = 0
		for (i = 1; i <= 2; i++) {
			split($i, a, "m"); sub(/s$/, "", a[2]); s += a[1] * 60 + a[2]
		}
		printf "%d\n", s * hz + 0.5
	}' "$1"
}

# Waits, up to QUIET_MAX s, for a second in which the machine is nearly
# idle (under 5% of all CPUs): this machine is shared.
quiet()
{
	i=0
	while [ "$i" -lt "$QUIET_MAX" ]; do
		a=$(busy_ticks)
		sleep 1
		b=$(busy_ticks)
		[ $((b - a)) -le $((HZ * $(nproc) / 20)) ] && return 0
		i=$((i + 1))
	done
}

# --- build and docroot ----------------------------------------------------------------
build()
{
	mkdir -p "$D" "$DOCROOT/cgi-bin" || die "cannot create $D"
	# The shipped defaults, plus what a benchmark needs: no log, room for
	# 20,000 connections from one address, the foreground, no jail.
	cat > "$D/bench.conf.new" <<EOF
# generated by extra/bench.sh: the benchmark build of mrhttpd
PUBLIC_DIR=$DOCROOT
PRIVATE_DIR=
SERVER_ADDR=127.0.0.1
DEFAULT_INDEX=index.html
MAX_CONNECTIONS=30000
# every load generator is one address, 127.0.0.1
MAX_CONNECTIONS_PER_IP=0
LOG_LEVEL=0
LOG_FILE=
DETACH=0
SERVER_ROOT=
SYSTEM_USER=
PID_FILE=
CGI_PATH=/cgi-bin
CGI_DIR=$DOCROOT/cgi-bin
EOF
	# an unchanged file keeps its date, so make rebuilds only what changed
	if cmp -s "$D/bench.conf.new" "$D/bench.conf"; then
		rm -f "$D/bench.conf.new"
	else
		mv "$D/bench.conf.new" "$D/bench.conf"
	fi
	# which mrhttpd this is: the commit, "+" when src/ differs from it
	COMMIT=$(git log -1 --format=%h 2>/dev/null) || COMMIT=
	if [ -n "$COMMIT" ] && ! git diff --quiet HEAD -- src configure 2>/dev/null; then
		COMMIT=$COMMIT+
	fi
	say "building mrhttpd${COMMIT:+ $COMMIT} into $D"
	# a clean sub-make: nothing of "make bench VAR=..." leaks into it
	(unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
	 exec make --no-print-directory BUILD="$D" CONF="$D/bench.conf") ||
	    die "mrhttpd did not build"
	MRHTTPD=$D/mrhttpd

	printf 'mrhttpd benchmark: 25 B.\n' > "$DOCROOT/25b.txt"
	printf '<p>mrhttpd benchmark</p>\n' > "$DOCROOT/index.html"
	awk 'BEGIN { for (i = 0; i < 64; i++) printf "%063d\n", i }' > "$DOCROOT/4k.txt"
	dd if=/dev/zero of="$DOCROOT/1m.bin" bs=1024 count=1024 2>/dev/null
	cat > "$DOCROOT/cgi-bin/perftest.sh" <<'EOF'
#!/bin/sh
echo "Content-Type: text/plain"
echo
echo "mrhttpd perftest CGI"
EOF
	chmod 755 "$DOCROOT/cgi-bin/perftest.sh"
	chmod -R a+rX "$DOCROOT"
	[ "$(wc -c < "$DOCROOT/25b.txt")" -eq 25 ] && [ "$(wc -c < "$DOCROOT/4k.txt")" -eq 4096 ] ||
	    die "docroot: file sizes are wrong"
}

# --- servers ------------------------------------------------------------------------
# Fair peers: one worker, no access log, sendfile, keep-alive requests as
# unlimited as each allows, the same 15 s idle timeout as mrhttpd, a
# backlog of 4096 (mrhttpd's, and net.core.somaxconn here).
nginx_conf()	# DIR PORT
{
	user=
	[ "$(id -u)" = 0 ] && user="user root;"
	mkdir -p "$1/tmp"
	cat > "$1/nginx.conf" <<EOF
# generated by extra/bench.sh
$user
worker_processes 1;
daemon off;
pid $1/nginx.pid;
error_log $1/error.log error;
worker_rlimit_nofile $NOFILE;
events { worker_connections $((NOFILE - 100)); }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 1000000000;
	keepalive_timeout 15s;
	types { text/html html; text/plain txt; application/octet-stream bin; }
	default_type application/octet-stream;
	client_body_temp_path $1/tmp;
	proxy_temp_path $1/tmp;
	fastcgi_temp_path $1/tmp;
	uwsgi_temp_path $1/tmp;
	scgi_temp_path $1/tmp;
	server {
		listen 127.0.0.1:$2 backlog=4096;
		root $DOCROOT;
		index index.html;
	}
}
EOF
}

# lighttpd: max-keep-alive-requests is 16 bits (1000000 wraps to 16960),
# so 65535 is its "unlimited"; max-connections may not exceed max-fds/2.
lighttpd_conf()	# DIR PORT
{
	cat > "$1/lighttpd.conf" <<EOF
# generated by extra/bench.sh
server.document-root = "$DOCROOT"
server.bind = "127.0.0.1"
server.port = $2
server.modules = ( "mod_cgi" )
server.errorlog = "$1/error.log"
server.max-fds = $NOFILE
server.max-connections = $((NOFILE / 2))
server.max-keep-alive-requests = 65535
server.max-keep-alive-idle = 15
server.listen-backlog = 4096
server.network-backend = "sendfile"
index-file.names = ( "index.html" )
mimetype.assign = ( ".html" => "text/html", ".txt" => "text/plain",
    ".bin" => "application/octet-stream" )
\$HTTP["url"] =~ "^/cgi-bin/" { cgi.assign = ( ".sh" => "" ) }
EOF
}

# h2o: one thread, no access log (none is configured), the 15 s idle
# timeout; it sends files with pread and writev, which it cannot be told
# otherwise.  CGI through the FastCGI-to-CGI bridge its package ships,
# the way its documentation runs CGI programs.
h2o_conf()	# DIR PORT
{
	user=
	[ "$(id -u)" = 0 ] && user="user: root"
	cgi=
	[ -x /usr/share/h2o/fastcgi-cgi ] && cgi="        file.custom-handler:
          extension: .sh
          fastcgi.spawn: \"exec /usr/share/h2o/fastcgi-cgi\""
	cat > "$1/h2o.conf" <<EOF
# generated by extra/bench.sh
listen:
  host: 127.0.0.1
  port: $2
num-threads: 1
max-connections: $((NOFILE - 100))
$user
error-log: $1/error.log
pid-file: $1/h2o.pid
http1-request-timeout: 15
file.index: [ index.html ]
hosts:
  "default":
    paths:
      /:
        file.dir: $DOCROOT
$cgi
EOF
}

# start_server NAME PORT: starts NAME pinned to SERVER_CPU; sets SPID.
# False when it does not come up.
start_server()
{
	port=$2
	sdir=$D/srv/$1
	rm -rf "$sdir"
	mkdir -p "$sdir"
	case $1 in
	mrhttpd)
		set -- "$MRHTTPD" -f -a 127.0.0.1 -p "$2" -r "$DOCROOT" ;;
	nginx)
		nginx_conf "$sdir" "$2"
		set -- nginx -e "$sdir/error.log" -p "$sdir/" -c "$sdir/nginx.conf" ;;
	lighttpd)
		lighttpd_conf "$sdir" "$2"
		set -- lighttpd -D -f "$sdir/lighttpd.conf" ;;
	h2o)
		h2o_conf "$sdir" "$2"
		set -- h2o -c "$sdir/h2o.conf" ;;
	esac
	[ -n "$SERVER_CPU" ] && set -- taskset -c "$SERVER_CPU" "$@"
	# a simple command in the background: $! is the server itself once
	# taskset has exec'd it
	"$@" > "$sdir/server.log" 2>&1 < /dev/null &
	SPID=$!
	STARTED="$STARTED $SPID"
	wait_port "$port" "$SPID"
}

# --- one run ----------------------------------------------------------------------------
RAW=$D/raw.csv

# raw_row SERVER RUN REP [fields...]: appends one line (commas in notes
# become semicolons).
raw_row()
{
	line=
	for f in "$@"; do
		f=$(printf '%s' "$f" | tr ',\n' '; ')
		line="$line,$f"
	done
	printf '%s\n' "${line#,}" >> "$RAW"
}

# Parses ab or wrk output; prints "requests failed rps max_ms".
parse_gen()
{
	awk -v tool="$1" '
	function ms(v) {	# wrk latency: 1.5ms, 250.00us, 2.01s, 1.2m
		if (v ~ /us$/) return v / 1000
		if (v ~ /ms$/) return v + 0
		if (v ~ /m$/) return v * 60000
		if (v ~ /s$/) return v * 1000
		return v + 0
	}
	tool == "ab" && /^Complete requests:/ { done = $3 }
	tool == "ab" && /^Failed requests:/ { failed += $3 }
	tool == "ab" && /^Non-2xx responses:/ { failed += $3 }
	tool == "ab" && /^Requests per second:/ { rps = $4 }
	tool == "ab" && /\(longest request\)/ { max = $2 }
	tool == "wrk" && / requests in / { done = $1 }
	tool == "wrk" && /^ *Socket errors:/ {
		gsub(/,/, ""); failed += $4 + $6 + $8 + $10
	}
	tool == "wrk" && /^ *Non-2xx or 3xx responses:/ { failed += $5 }
	tool == "wrk" && /^Requests\/sec:/ { rps = $2 }
	tool == "wrk" && /^ *Latency / { max = ms($4) }
	END {
		printf "%s %d %s %s\n", (done == "" ? "-" : done), failed,
		    (rps == "" ? "-" : rps), (max == "" ? "-" : max)
	}'
}

# Ticks as % of one CPU over the run's wall time (ms).
pct()
{
	awk -v t="$1" -v hz="$HZ" -v w="$wall" 'BEGIN { printf "%.0f", t * 100000 / hz / w }'
}

# measure SERVER VERSION RUN REP: one run against SPID on PORT, one raw row.
measure()
{
	run_spec "$3"
	url=http://127.0.0.1:$PORT$URLP
	if [ "$TOOL" = ab ]; then
		# -r: a reset is a failed request, not the end of ab; -t before
		# -n, so -n still counts and -t only caps the time
		set -- "$1" "$2" "$3" "$4" ab -r -t "$AB_TLIMIT" $ARGS "$url"
	else
		set -- "$1" "$2" "$3" "$4" wrk $ARGS "$url"
	fi
	cmd="$5 $ARGS $URLP"
	server=$1 version=$2 run=$3 rep=$4
	shift 4
	[ -n "$CLIENT_CPU" ] && set -- taskset -c "$CLIENT_CPU" "$@"
	command -v timeout >/dev/null 2>&1 && set -- timeout "$GEN_TIMEOUT" "$@"

	quiet
	t0=$(now_ms)
	s0=$(tree_cpu "$SPID")
	b0=$(busy_ticks)
	times > "$D/.times0"
	"$@" > "$D/.gen.out" 2>&1
	grc=$?
	times > "$D/.times1"
	b1=$(busy_ticks)
	s1=$(tree_cpu "$SPID")
	t1=$(now_ms)
	hwm=$(tree_hwm "$SPID")

	set -- $(parse_gen "$TOOL" < "$D/.gen.out")
	done=$1 failed=$2 rps=$3 max=$4
	note=
	if [ "$rps" = - ]; then
		# the generator gave up: count what it did not complete
		[ "$done" = - ] && done=0
		if [ "$TOOL" = ab ]; then
			failed=$((N - done))
		else
			failed=$((failed > 0 ? failed : 1))
		fi
		rps=0
		note="$TOOL exit $grc: $(grep -v '^Completed\|^Finished\|^ *$' "$D/.gen.out" | tail -n 1)"
	fi
	wall=$((t1 - t0))
	[ "$wall" -gt 0 ] || wall=1
	sticks=$((s1 - s0))
	cticks=$(($(times_ticks "$D/.times1") - $(times_ticks "$D/.times0")))
	oticks=$((b1 - b0 - sticks - cticks))
	[ "$oticks" -ge 0 ] || oticks=0
	us=$(awk -v t="$sticks" -v hz="$HZ" -v n="$done" \
	    'BEGIN { if (n > 0) printf "%.2f", t * 1e6 / hz / n; else print "" }')
	cus=$(awk -v t="$cticks" -v hz="$HZ" -v n="$done" \
	    'BEGIN { if (n > 0) printf "%.2f", t * 1e6 / hz / n; else print "" }')
	OTHER_PCT=$(pct "$oticks")
	raw_row "$server" "$version" "$run" "$rep" "$DESC" "$cmd" "$done" "$failed" \
	    "$rps" "$max" "$sticks" "$us" "$(pct "$sticks")" "$(pct "$cticks")" \
	    "$(pct "$oticks")" "$wall" "$hwm" "$cus" "$note"
	say "$(printf '%-8s %-8s %d/%d %10s req/s %6s failed %8s us/req  server %3s%% client %3s%% other %3s%%  rss %s kB %s' \
	    "$server" "$run" "$rep" "$REPEAT" "$rps" "$failed" "${us:--}" \
	    "$(pct "$sticks")" "$(pct "$cticks")" "$(pct "$oticks")" "$hwm" "$note")"
}

# --- the runs ----------------------------------------------------------------------------
# serve_one NAME REP: starts NAME, makes every run once as repetition REP,
# stops it.  Sets BROKEN_<NAME>=1 when it cannot be measured any more.
serve_one()
{
	name=$1 rep=$2
	PORT=$(free_port) || die "no free port"
	if ! start_server "$name" "$PORT"; then
		warn "$name did not start on port $PORT:"
		tail -n 5 "$D/srv/$name/server.log" "$D/srv/$name/error.log" 2>/dev/null >&2
		stop_server "$SPID"
		[ "$name" = mrhttpd ] && die "mrhttpd did not start"
		eval "BROKEN_$name=1"
		return
	fi
	set -- $(probe "$PORT" /25b.txt)
	if [ "${1:-}" != 200 ]; then
		warn "$name answers ${1:-nothing} for /25b.txt: skipped"
		stop_server "$SPID"
		[ "$name" = mrhttpd ] && die "mrhttpd does not serve $DOCROOT"
		eval "BROKEN_$name=1"
		return
	fi
	version=${2:-$name}
	say "$version: pid $SPID, port $PORT, CPU ${SERVER_CPU:-any}; load generator CPU ${CLIENT_CPU:-any}; repetition $rep/$REPEAT"
	dead=
	for run in $RUNS; do
		run_spec "$run"
		why=
		if [ -n "$dead" ]; then
			why="n/a: $name died earlier"
		elif [ "$TOOL" = wrk ] && [ "$HAVE_WRK" = 0 ]; then
			why="n/a: wrk is not installed"
		elif [ $((C + 64)) -gt "$NOFILE" ]; then
			why="n/a: RLIMIT_NOFILE is $NOFILE"
		elif [ "$run" = cgi ]; then
			set -- $(probe "$PORT" "$URLP")
			case ${1:-}:${3:-} in
			2??:script) why="n/a: no CGI (the program is served as a file)" ;;
			2??:*) ;;
			*)	why="n/a: $URLP answers ${1:-nothing}" ;;
			esac
		fi
		if [ -n "$why" ]; then
			# said once, in the first repetition that finds it
			if ! grep -q "^$name,[^,]*,$run,[^,]*,.*,n/a:" "$RAW"; then
				raw_row "$name" "$version" "$run" "$rep" "$DESC" "" "" "" "" "" "" "" "" "" "" "" "" "" "$why"
				say "$(printf '%-8s %-8s %s' "$name" "$run" "$why")"
			fi
			continue
		fi
		retry=0
		while :; do
			measure "$name" "$version" "$run" "$rep"
			if ! alive "$SPID"; then
				dead=1
				warn "$name died during $run"
				raw_row "$name" "$version" "$run" "$rep" "$DESC" "" "" "" "" "" "" "" "" "" "" "" "" "" "$name died during this run"
				break
			fi
			[ "$PAUSE" -gt 0 ] && sleep "$PAUSE"
			[ "$OTHER_PCT" -gt "$OTHER_MAX" ] || break
			if [ "$retry" -lt "$RETRIES" ]; then
				# a neighbour took CPU: forget this one
				retry=$((retry + 1))
				sed '$d' "$RAW" > "$RAW.new" && mv "$RAW.new" "$RAW"
				say "$(printf '%-8s %-8s disturbed (other %s%% > %s%%): again' "$name" "$run" "$OTHER_PCT" "$OTHER_MAX")"
				continue
			fi
			# no retries left: keep it, marked
			sed "\$ s/,\$/,disturbed (other $OTHER_PCT% of a CPU)/" "$RAW" > "$RAW.new" &&
			    mv "$RAW.new" "$RAW"
			break
		done
	done
	if [ -n "$dead" ]; then
		[ "$name" = mrhttpd ] && MRHTTPD_BAD="mrhttpd died during the runs"
		eval "BROKEN_$name=1"
	else
		say "$name: peak RSS $(tree_hwm "$SPID") kB"
	fi
	stop_server "$SPID"
}

# Repetition by repetition, each server in turn, started fresh each time:
# a slow minute of the machine then falls on every server alike, not on
# the one whose three repetitions it happened to cover.
run_all()
{
	printf '%s\n' "server,version,run,rep,desc,command,requests,failed,rps,max_ms,server_ticks,cpu_us_per_req,server_cpu_pct,client_cpu_pct,other_cpu_pct,wall_ms,peak_rss_kb,client_us_per_req,note" > "$RAW"
	TSTART=$(date +%s)
	live=
	for name in $SERVERS; do
		case $name in
		mrhttpd) ;;
		nginx|lighttpd|h2o)
			if ! command -v "$name" >/dev/null 2>&1; then
				warn "$name is not installed: skipped"
				continue
			fi ;;
		*)	warn "unknown server $name: skipped"; continue ;;
		esac
		live="$live $name"
	done
	rep=1
	while [ "$rep" -le "$REPEAT" ]; do
		for name in $live; do
			eval "[ -z \"\${BROKEN_$name:-}\" ]" && serve_one "$name" "$rep"
		done
		rep=$((rep + 1))
	done
	ELAPSED=$(($(date +%s) - TSTART))
	MEASURED=$(date -u '+%Y-%m-%dT%H:%MZ')
	printf 'QUICK=%s REPEAT=%s ELAPSED=%s COMMIT=%s MEASURED=%s\n' "$QUICK" \
	    "$REPEAT" "$ELAPSED" "$COMMIT" "$MEASURED" > "$D/bench.meta"
}

# table FORMAT: the results as one table per measure, plain or Markdown.
table()
{
	awk -F, -v fmt="$1" -v runs="$RUNS" -v other_max="$OTHER_MAX" '
	NR == 1 { next }
	{
		if (!($1 in has)) { has[$1] = 1; order[++ns] = $1; ver[$1] = $2 }
		desc[$3] = $4
		v = ($8 == "" ? "n/a" : $8 + 0 >= 1000 ? sprintf("%.0f", $8) : $8)
		if ($18 ~ /^disturbed/) { v = v "*"; disturbed = 1 }
		rps[$1, $3] = v
		fl[$1, $3] = ($7 == "" ? "n/a" : $7)
		cpu[$1, $3] = ($10 == "" ? "n/a" : $10)
		rss[$1, $3] = ($14 == "" ? "n/a" : sprintf("%.1f", $14 / 1024))
		rr[$1, $3] = ($15 == "" ? "-" : $15)
		cr[$1, $3] = ($16 == "" ? "-" : $16)
		cli[$1, $3] = ($12 == "" ? "n/a" : $12)
		lat[$1, $3] = ($9 == "" ? "n/a" : sprintf("%.0f", $9))
		tot[$1, $3] = ($20 == "" ? "n/a" : $20)
	}
	function out(title, arr, ratio, rationame,    i, j, r, h, line, c) {
		if (fmt == "md") {
			printf "\n**%s**\n\n| run |", title
			for (j = 1; j <= ns; j++) printf " %s |", ver[order[j]]
			if (ratio)
				for (j = 1; j <= ns; j++)
					if (order[j] != "mrhttpd") printf " %s |", rationame order[j]
			printf "\n|---|"
			for (j = 1; j <= ns; j++) printf "---:|"
			if (ratio)
				for (j = 1; j <= ns; j++) if (order[j] != "mrhttpd") printf "---:|"
			printf "\n"
		} else {
			printf "\n%s\n%-40s", title, "run"
			for (j = 1; j <= ns; j++) printf " %16s", substr(ver[order[j]], 1, 16)
			if (ratio)
				for (j = 1; j <= ns; j++)
					if (order[j] != "mrhttpd") printf " %17s", rationame substr(order[j], 1, 9)
			printf "\n"
		}
		nr = split(runs, rv, " ")
		for (i = 1; i <= nr; i++) {
			r = rv[i]
			if (!(r in desc)) continue
			if (fmt == "md") printf "| %s (%s) |", r, desc[r]
			else printf "%-40s", substr(r " (" desc[r] ")", 1, 40)
			for (j = 1; j <= ns; j++) {
				c = ((order[j], r) in arr) ? arr[order[j], r] : "-"
				if (fmt == "md") printf " %s |", c; else printf " %16s", c
			}
			if (ratio)
				for (j = 1; j <= ns; j++) {
					if (order[j] == "mrhttpd") continue
					c = ((order[j], r) in ratio_arr) ? ratio_arr[order[j], r] : "-"
					if (fmt == "md") printf " %s |", c; else printf " %17s", c
				}
			printf "\n"
		}
	}
	END {
		for (k in rr) ratio_arr[k] = rr[k]
		out("Requests per second (median)", rps, 1, "mrhttpd/")
		if (disturbed)
			printf "%s* the rest of the machine used more than %s%% of a CPU during this run, every try\n",
			    (fmt == "md" ? "\n" : ""), other_max
		delete ratio_arr
		for (k in cr) ratio_arr[k] = cr[k]
		out("Server CPU time per request, microseconds", cpu, 1, "mrhttpd/")
		out("Server and load generator CPU time together per request, microseconds (who does the sending of a big file depends on the server: this is the whole cost)", tot, 0, "")
		out("Failed requests (all repetitions)", fl, 0, "")
		out("Longest request of all repetitions, ms (ab: longest request; wrk: highest latency)", lat, 0, "")
		out("Load generator CPU, % of one core", cli, 0, "")
		out("Peak RSS of the server so far, MB (VmHWM after the run)", rss, 0, "")
	}' "$RES"
}

# --- results ----------------------------------------------------------------------------------
# One row per server and run: the median repetition by requests/s (its
# CPU and client figures too), but the worst of all repetitions for failed
# requests (summed), the longest request and peak RSS (highest), and for
# the peers the ratios mrhttpd/peer of requests/s and of CPU per request.
report()
{
	RES=$D/results.csv
	awk -F, -v runs="$RUNS" -v servers="$SERVERS" '
	NR == 1 { next }
	{
		k = $1 SUBSEP $3
		n[k]++; row[k, n[k]] = $0
		if ($8 != "") fail[k] += $8
		if ($17 + 0 > hwm[k]) hwm[k] = $17 + 0
		if ($10 != "" && (!(k in mx) || $10 + 0 > mx[k] + 0)) mx[k] = $10
		if (!(k in seen)) { seen[k] = 1 }
	}
	END {
		print "server,version,run,desc,command,requests,failed,rps,max_ms,cpu_us_per_req,server_cpu_pct,client_cpu_pct,other_cpu_pct,peak_rss_kb,rps_ratio,cpu_ratio,repeats,note,client_us_per_req,total_us_per_req"
		ns = split(servers, sv, " "); nr = split(runs, rv, " ")
		for (i = 1; i <= nr; i++) {
			r = rv[i]; mk = "mrhttpd" SUBSEP r
			if (mk in seen) { split(pick(mk), m, ","); mrps = m[9]; mcpu = m[12] }
			else { mrps = ""; mcpu = "" }
			for (j = 1; j <= ns; j++) {
				k = sv[j] SUBSEP r
				if (!(k in seen))
					continue
				split(pick(k), f, ",")
				rr = cr = ""
				if (sv[j] != "mrhttpd" && mrps != "" && f[9] + 0 > 0)
					rr = sprintf("%.2f", mrps / f[9])
				if (sv[j] != "mrhttpd" && mcpu + 0 > 0 && f[12] + 0 > 0)
					cr = sprintf("%.2f", mcpu / f[12])
				fl = (f[8] == "" ? "" : fail[k] + 0)
				tot = (f[12] != "" && f[18] != "" ? sprintf("%.2f", f[12] + f[18]) : "")
				printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s\n",
				    f[1], f[2], r, f[5], f[6], f[7], fl, f[9], mx[k], f[12],
				    f[13], f[14], f[15], (hwm[k] ? hwm[k] : ""), rr, cr, n[k], f[19],
				    f[18], tot
			}
		}
	}
	# the median repetition by requests/s (the lower middle one for even counts)
	function pick(k,    i, j, c, t, a, x, y) {
		c = 0
		for (i = 1; i <= n[k]; i++) {
			split(row[k, i], x, ",")
			if (x[9] == "") continue
			a[++c] = row[k, i]
		}
		if (c == 0) return row[k, n[k]]
		for (i = 2; i <= c; i++)
			for (j = i; j > 1; j--) {
				split(a[j], x, ","); split(a[j - 1], y, ",")
				if (x[9] + 0 >= y[9] + 0) break
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return a[int((c + 1) / 2)]
	}' "$RAW" > "$RES"

	{
		table plain
		echo
		say "$(uname -srm), $(nproc) CPUs; server CPU ${SERVER_CPU:-any}, load generator CPU ${CLIENT_CPU:-any}; $REPEAT repetition(s); $ELAPSED s"
	} | tee "$D/results.txt"
	{
		echo "Measured $MEASURED on $(uname -srm), $(nproc) CPUs, mrhttpd ${COMMIT:-(no git)}, by extra/bench.sh ($([ "$QUICK" = 1 ] && echo "BENCH_QUICK=1, ")$REPEAT repetition(s), median; $ELAPSED s)."
		table md
	} > "$D/results.md"
	say "wrote $RES, $RAW, $D/results.md"

	# The chart, for what a reader comes for: per run, each server's
	# requests/s as a share of the fastest's (linear, 1 = the fastest), and
	# below its CPU time per request as a multiple of the cheapest's (1 =
	# the cheapest).  One colour per server; each run named under its bars.
	if command -v gnuplot >/dev/null 2>&1; then
		awk -F, -v runs="$RUNS" -v servers="$SERVERS" -v dir="$D" '
		NR == 1 { next }
		{
			seen[$1] = 1; desc[$3] = $4
			if ($8 != "" && $8 + 0 > 0) {
				rps[$1, $3] = $8
				if ($8 + 0 > best[$3]) best[$3] = $8 + 0
			}
			if ($10 != "" && $10 + 0 > 0) {
				cpu[$1, $3] = $10
				if (!($3 in low) || $10 + 0 < low[$3]) low[$3] = $10 + 0
			}
		}
		function row(file, arr, base, inverse,    j, v) {
			printf "%d", i - 1 > file
			for (j = 1; j <= ns; j++) {
				if (!(sv[j] in seen)) continue
				if ((sv[j], r) in arr)
					v = sprintf("%.3f", arr[sv[j], r] / base[r])
				else
					v = "-"
				printf " %s", v > file
			}
			printf "\n" > file
		}
		END {
			ns = split(servers, sv, " "); nr = split(runs, rv, " ")
			head = "x"
			for (j = 1; j <= ns; j++) if (sv[j] in seen) head = head " " sv[j]
			print head > (dir "/chart-rps.dat")
			print head > (dir "/chart-cpu.dat")
			tics = ""
			for (i = 1; i <= nr; i++) {
				r = rv[i]
				row(dir "/chart-rps.dat", rps, best)
				row(dir "/chart-cpu.dat", cpu, low)
				d = (r in desc) ? desc[r] : ""
				sub(/no keep-alive/, "close", d)
				sub(/keep-alive/, "ka", d)
				if ((p = index(d, " c=")) > 0)
					d = substr(d, 1, p - 1) "\\nc=" substr(d, p + 3)
				tics = tics (i > 1 ? ", " : "") sprintf("\"%s\\n%s\" %d", r, d, i - 1)
			}
			print "set xtics (" tics ")" > (dir "/chart-tics.gp")
		}' "$RES"
		cols=$(head -n 1 "$D/chart-rps.dat" | awk '{ print NF }')
		if [ "$cols" -ge 2 ] && gnuplot > "$D/gnuplot.log" 2>&1 <<EOF
set terminal png size 1200,960 font ",11"
set output "$D/results.png"
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set grid ytics
set key outside right top vertical
load "$D/chart-tics.gp"
set xtics nomirror
n = $cols - 1
# the middle of bar i of n in a run's cluster, and its value on top
x(i) = column(1) + (i - 2 - (n - 1) / 2.0) / (n + 1.0)
set multiplot layout 2,1 title "$(uname -r), $(nproc) CPUs: each server pinned to one, the load generator to the other; medians of $REPEAT" margins 0.06,0.86,0.09,0.93 spacing 0,0.14
set title "requests/s as a share of the fastest server's in each run (higher is better)"
set yrange [0:1.15]
set ytics 0.1
plot for [i=2:$cols] "$D/chart-rps.dat" using i title columnheader(i), \\
    for [i=2:$cols] "$D/chart-rps.dat" using (x(i)):(column(i)):(sprintf("%.2f", column(i))) \\
    with labels font ",8" offset 0,0.5 notitle
set title "server CPU time per request as a multiple of the cheapest server's (lower is better; bars cut at 3)"
set yrange [0:3.3]
set ytics 0.5
plot for [i=2:$cols] "$D/chart-cpu.dat" using i title columnheader(i), \\
    for [i=2:$cols] "$D/chart-cpu.dat" using (x(i)):(column(i) > 3 ? 3 : column(i)):(sprintf("%.2f", column(i))) \\
    with labels font ",8" offset 0,0.5 notitle
unset multiplot
EOF
		then
			say "wrote $D/results.png"
		else
			warn "gnuplot failed, see $D/gnuplot.log"
		fi
	else
		warn "no gnuplot: no chart"
	fi
}

# --- main ---------------------------------------------------------------------------------------
MRHTTPD_BAD=
if [ "${BENCH_REPORT:-0}" != 0 ]; then
	# tables and chart again from the last raw.csv, nothing run
	[ -s "$RAW" ] || die "BENCH_REPORT: no $RAW yet"
	RUNS=$(awk -F, 'NR > 1 && !seen[$3]++ { printf "%s ", $3 }' "$RAW")
	SERVERS=$(awk -F, 'NR > 1 && !seen[$1]++ { printf "%s ", $1 }' "$RAW")
	ELAPSED="?" COMMIT='' MEASURED="?"
	[ -f "$D/bench.meta" ] && . "$D/bench.meta"
else
	tools
	build
	run_all
fi
report

# --- verdict ----------------------------------------------------------------------------------
[ -z "$MRHTTPD_BAD" ] || die "$MRHTTPD_BAD"
if [ "$QUICK" = 1 ]; then
	bad=$(awk -F, '$1 == "mrhttpd" && $7 != "" && $7 != 0 { print $3 }' "$RES")
	[ -z "$bad" ] || die "smoke run: mrhttpd failed requests in:" $bad
fi
exit 0
