# Long work reports progress (src/progress/progress.h): NOTICE lines every dpm.progress_interval
# seconds (none with 0) from the optimizers, method auto and a caller waiting for its release; and, once
# dpmatrix is in shared_preload_libraries (a restart), the view dpm.progress shows another
# session's optimization until its transaction ends, and shows each analyst only her own work.
#
# Nothing here depends on the machine's speed: the optimizer runs in a loop for a given time, a
# release is held between its charge and its noise by a lock until its caller has reported it, and
# an optimization stays in dpm.progress while its session keeps the transaction open.
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use DpmatrixTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $db = 'dpm_progress';
my $node = dpm_node('progress', db => $db);
sub sql { return $node->safe_psql($db, shift) }

# min_sensitivity on all the ranges of 40 cells, a strategy of 820 rows: many short sweeps of
# rotations, each a progress update
sql(q{
CREATE TABLE pm AS
  SELECT array_agg(r ORDER BY a, b) AS m FROM
    (SELECT a, b, array_agg((j BETWEEN a AND b)::int::float8 ORDER BY j) AS r
       FROM generate_series(1, 40) a, generate_series(1, 40) b, generate_series(1, 40) j
      WHERE a <= b GROUP BY a, b) q;
GRANT SELECT ON pm TO PUBLIC;
});
my $optimize = "SELECT array_length(dpm.strategy(m, 'min_sensitivity'), 1) FROM pm";
# the same optimization again and again, for SECONDS at least: one activity, as one statement
sub optimize_for
{
	my ($seconds) = @_;
	return "DO \$\$ BEGIN
	          WHILE clock_timestamp() - statement_timestamp() < interval '$seconds s' LOOP
	            PERFORM dpm.strategy((SELECT m FROM pm), 'min_sensitivity');
	          END LOOP;
	        END \$\$";
}

# --- NOTICE lines ------------------------------------------------------------------------------------
my $start = time;
my ($ret, $out, $err) = $node->psql($db, 'SET dpm.progress_interval = 1; ' . optimize_for(3.5));
my $took = sprintf('%.1f', time - $start);
$err =~ s/^psql:<stdin>:\d+: //mg;
my @lines = grep { /min_sensitivity/ } split /\n/, $err;
my @elapsed = map { /, ([0-9.]+) s$/ ? $1 : () } @lines;
ok($ret == 0 && @lines > 0
	  && !grep({ !/^NOTICE:  min_sensitivity: iteration \d+, objective [0-9.e+-]+, [0-9.]+ s$/ } @lines),
	'NOTICE lines while an optimizer runs (' . scalar(@lines) . " over $took s)")
  or diag $err;
# one a second: at least 2 in 3.5 s, at most one more than the whole seconds the call took, and
# each (by its elapsed time, printed to 0.1 s) a second after the one before
ok( @lines >= 2
	  && @lines <= $took + 1
	  && !grep({ $elapsed[$_] - $elapsed[ $_ - 1 ] < 0.9 } 1 .. $#elapsed),
	'at a steady pace (elapsed: ' . join(', ', @elapsed) . ')');
($ret, $out, $err) = $node->psql($db, 'SET dpm.progress_interval = 0; ' . optimize_for(2));
ok($ret == 0 && $err !~ /iteration/, 'dpm.progress_interval = 0 silences them') or diag $err;

# a release: the caller waits for its worker and says how far it is
sql(q{
SET client_min_messages = warning;
CREATE TABLE pt AS SELECT g % 4 AS k FROM generate_series(1, 100) g;
SELECT dpm.register_source('pt', epsilon => 5);
SELECT dpm.create_domain('pt_d', 'pt', '[{"name": "k", "values": [0, 1, 2, 3]}]');
SELECT dpm.create_workload('pt_w', 'pt_d', 'Identity(k)');
});
my $hold = hold_answers($node, $db);
my $bg = bg_psql($node, $db, "SELECT count(*) FROM dpm.answer('pt_w', epsilon => 1)",
	options => '-c dpm.progress_interval=1');
my $said = bg_wait_for($bg, qr/^NOTICE:  release \d+ is charged and its answers are being computed \(\d+ s\)$/m);
$hold->quit;
($ret, $out, $err) = bg_finish($bg);
ok($said && $ret == 0 && $out eq '4', "a waiting dpm.answer reports its release's progress") or diag $err;

# method auto says which candidate it is on, before each one once dpm.progress_interval has passed:
# Prefix over 2048 cells under Laplace noise builds six dense candidates, eigen's among them
# (seconds here, and more than one on any machine this runs on), before hdmm, which then runs for
# tens of seconds; the test waits for a line, then cancels the optimization
sql(q{
SET client_min_messages = warning;
CREATE TABLE pa AS SELECT g % 2048 AS k FROM generate_series(1, 4096) g;
SELECT dpm.register_source('pa', epsilon => 5);
SELECT dpm.create_domain('pa_d', 'pa', '[{"name": "k", "bins": {"min": 0, "max": 2048, "width": 1}}]');
SELECT dpm.create_workload('pa_w', 'pa_d', 'Prefix(k)');
});
$bg = bg_psql($node, $db, "SELECT dpm.optimize('pa_w')", name => 'auto_progress',
	options => '-c dpm.progress_interval=1');
$said = bg_wait_for($bg, qr/^NOTICE:  auto: trying \w+, candidate \d+ of \d+; best so far \w+, [0-9.]+ s$/m);
sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'auto_progress'");
($ret, $out, $err) = bg_finish($bg);
ok($said && $ret != 0 && $err =~ /canceling statement due to user request/,
	'method auto says which candidate it is on, and can be cancelled')
  or diag $err;

# --- without the preload ------------------------------------------------------------------------------
# a session keeps an optimization's activity until its transaction ends
my $busy = $node->background_psql($db);
$busy->query_safe('SET dpm.progress_interval = 0');
my $busy_pid = $busy->query_safe('SELECT pg_backend_pid()');
$busy->query_safe("BEGIN; $optimize");
($ret, $out, $err) = $node->psql($db, 'SELECT count(*) FROM dpm.progress');
ok($out eq '0' && $err =~ /not in shared_preload_libraries/,
	'without the preload dpm.progress is empty, even while another session has work, and says why');
$busy->query_safe('COMMIT');
$busy->quit;

# --- with dpmatrix preloaded: another session sees the work -----------------------------------------
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'dpmatrix'");
$node->restart;
($ret, $out, $err) = $node->psql($db, 'SHOW shared_preload_libraries; SELECT count(*) FROM dpm.progress');
ok($out eq "dpmatrix\n0" && $err eq '', 'the cluster restarts with dpmatrix preloaded');

my $watch = "SELECT activity || ' ' || (objective > 0) || ' ' || (started <= updated) || ' ' || (elapsed >= interval '0')
               FROM dpm.progress WHERE pid = %d";
my $connected = "SELECT count(*) FROM pg_stat_activity WHERE pid = %d";
$busy = $node->background_psql($db);
$busy->query_safe('SET dpm.progress_interval = 0');
$busy_pid = $busy->query_safe('SELECT pg_backend_pid()');
$busy->query_safe("BEGIN; $optimize");
is(sql(sprintf($watch, $busy_pid)), 'min_sensitivity true true true',
	"dpm.progress shows the other session's optimization while its transaction lasts");
$busy->query_safe('COMMIT');
is(sql(sprintf($watch, $busy_pid)) . ' / ' . sql(sprintf($connected, $busy_pid)), ' / 1',
	'and forgets it when the transaction commits, the session still connected');
$busy->query_safe("BEGIN; $optimize");
is(sql(sprintf($watch, $busy_pid)), 'min_sensitivity true true true', 'a second optimization shows again');
$busy->query_safe('ROLLBACK');
is(sql(sprintf($watch, $busy_pid)) . ' / ' . sql(sprintf($connected, $busy_pid)), ' / 1',
	'and is forgotten when the transaction rolls back');
$busy->quit;

# an analyst sees her own work, not another analyst's; custodians see all
sql('CREATE ROLE regress_progress_a IN ROLE dpm_analyst; CREATE ROLE regress_progress_b IN ROLE dpm_analyst');
$busy = $node->background_psql($db);
$busy->query_safe('SET dpm.progress_interval = 0; SET ROLE regress_progress_a');
$busy_pid = $busy->query_safe('SELECT pg_backend_pid()');
$busy->query_safe("BEGIN; $optimize");
my $count = "SELECT count(*) FROM dpm.progress WHERE pid = $busy_pid";
is(sql("SET ROLE regress_progress_a; $count"), '1', 'an analyst sees her own optimization in dpm.progress (from another session)');
is(sql("SET ROLE regress_progress_b; $count"), '0', 'another analyst does not see it');
is(sql($count), '1', 'a superuser sees it');
$busy->query_safe('COMMIT');
$busy->quit;
sql('DROP ROLE regress_progress_a; DROP ROLE regress_progress_b');

$node->stop;
done_testing();
