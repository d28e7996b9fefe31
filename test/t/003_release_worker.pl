# The life of a resident release worker (src/release/worker.c), which needs server settings changed
# with a reload: releases in a row are served by one worker, which reads a strategy's matrices
# again when the catalog's copy changes; a terminated worker is replaced by the next release; an
# idle worker leaves after dpm.release_worker_idle, but for one that stays while a session is
# connected to its database (dpm.release_worker_keep); with 0 none stays.  (What a release computes,
# whichever worker serves it, is test/sql/release_worker.sql's.)
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use DpmatrixTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $db = 'dpm_rw';
my $node = dpm_node('release_worker', db => $db, conf => "dpm.release_worker_idle = '60s'");
my $q = sub { $node->safe_psql($db, shift) };
my $workers = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'dpmatrix release' AND datname = '$db'";
my $no_worker = "SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'dpmatrix release' AND datname = '$db')";
my $worker_pids = "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE backend_type = 'dpmatrix release' AND datname = '$db'";

is($q->("LOAD 'dpmatrix'; SHOW dpm.release_worker_idle"), '1min', 'the server runs with dpm.release_worker_idle = 60s');

$q->(q{
SET client_min_messages = warning;
CREATE TABLE rw_people AS SELECT g AS id, g % 64 AS v FROM generate_series(1, 3000) g;
SELECT dpm.register_source('rw_people', epsilon => 1000);
SELECT dpm.create_domain('rw_d', 'rw_people', '[{"name": "v", "bins": {"min": 0, "max": 64, "width": 1}}]');
-- 200 random queries: incompressible, so the workload and its strategies are stored out of line
-- (TOAST), which is what the worker keeps
SELECT setseed(0.25);
SELECT dpm.create_workload('rw_w', 'rw_d',
         (SELECT array_agg(r ORDER BY i) FROM
            (SELECT i, array_agg(round(random()::numeric, 4)::float8 ORDER BY j) AS r
               FROM generate_series(1, 200) i, generate_series(1, 64) j GROUP BY i) q));
-- the exact answers: the workload's matrix times the histogram (every v in 0 .. 63 occurs)
CREATE TABLE rw_truth AS
  SELECT i AS query, sum(w.matrix[i][h.v + 1] * h.c) AS truth
    FROM dpm.workloads w, generate_series(1, 200) i,
         (SELECT v, count(*)::float8 AS c FROM rw_people GROUP BY v) h
   WHERE w.name = 'rw_w' GROUP BY i;
CREATE TABLE rw_rel (k int, query int, answer float8, stderr float8);
});
my $s_eigen = $q->("SELECT dpm.optimize('rw_w', method => 'eigen')");
my $s_w = $q->("SELECT dpm.optimize('rw_w', method => 'workload')");

# release K with strategy S, its answers kept in rw_rel
my $release = sub {
	my ($k, $s) = @_;
	$q->("INSERT INTO rw_rel SELECT $k, query, answer, stderr
	        FROM dpm.answer('rw_w', epsilon => 10, strategy => $s, confidence => NULL)");
};

# --- releases in a row: one worker, which stays ---------------------------------------------------
$release->(1, $s_eigen);
my $worker = $q->($worker_pids);
like($worker, qr/^\d+$/, 'after a release, one release worker stays');
$release->(2, $s_eigen);
is($q->($worker_pids), $worker, 'the next release is served by the same worker');

# --- the catalog's copy of the strategy changes (by hand, as a superuser) --------------------------
# The worker keeps the strategy's matrices; it must read them again.  The errors of the release are
# then those dpm.explain computes in this backend from the new matrices, not the old ones.
$q->("CREATE TABLE rw_exp AS SELECT query, stderr FROM dpm.explain_queries('rw_w', epsilon => 10, strategy => $s_eigen, confidence => NULL)");
$q->("UPDATE dpm.strategies s SET matrix = o.matrix, pinv = o.pinv, profile = o.profile
        FROM dpm.strategies o WHERE s.id = $s_eigen AND o.id = $s_w");
$q->("CREATE TABLE rw_exp2 AS SELECT query, stderr FROM dpm.explain_queries('rw_w', epsilon => 10, strategy => $s_eigen, confidence => NULL)");
$release->(3, $s_eigen);
is($q->($worker_pids), $worker, 'the release after the change is served by the same worker');
is( $q->(
		"SELECT count(*) || ' ' || bool_and(abs(r.stderr - e2.stderr) <= 1e-9 * e2.stderr)
		     || ' ' || (max(abs(e2.stderr - e.stderr) / e.stderr) > 0.01)
		   FROM rw_rel r JOIN rw_exp2 e2 USING (query) JOIN rw_exp e USING (query) WHERE r.k = 3"),
	'200 true true',
	'its errors are the new matrices\', which differ from the old ones');
# every answer within 12 standard errors of the truth: a sum of independent Laplace draws exceeds
# that with probability below exp(-12 sqrt 2) = 4e-8, so below 1e-5 over this test's answers
is( $q->(
		"SELECT count(*) || ' ' || (max(abs(r.answer - t.truth) / r.stderr) < 12)
		   FROM rw_rel r JOIN rw_truth t USING (query) WHERE r.k = 3"),
	'200 true',
	'and its answers are near the truth');

# --- a terminated worker is replaced by the next release -------------------------------------------
is($q->("SELECT pg_terminate_backend($worker, 5000)"), 't', 'the worker is terminated');
is($q->($workers), '0', 'no worker is left');
is($q->("SELECT count(*) FROM dpm.answer('rw_w', epsilon => 10, strategy => $s_w, confidence => NULL)"),
	'200', 'the next release is answered');
my $new_worker = $q->($worker_pids);
ok($new_worker =~ /^\d+$/ && $new_worker ne $worker, "by a new worker ($new_worker, not $worker)");

# --- an idle worker leaves -------------------------------------------------------------------------
# (polled from another database: a session connected to the worker's would keep it, as below)
ok(set_server($node, 'dpm.release_worker_idle' => 100), 'dpm.release_worker_idle = 100ms, reloaded');
ok($node->poll_query_until('postgres', $no_worker), 'the idle worker leaves');

# --- but one stays while a session is connected to its database -------------------------------------
# It says so in pg_stat_activity once past its idle time, having given back the matrices it kept:
# the next release reads them again (its errors are those of the catalog's matrices, as above).
my $kept_query = "SELECT query = 'kept while sessions are connected to the database' FROM pg_stat_activity
                   WHERE backend_type = 'dpmatrix release' AND datname = '$db'";
my $session = $node->background_psql($db);
$session->query_safe('SET client_min_messages = warning');    # query_safe fails on a NOTICE
$session->query_safe("INSERT INTO rw_rel SELECT 6, query, answer, stderr
                        FROM dpm.answer('rw_w', epsilon => 10, strategy => $s_eigen, confidence => NULL)");
ok($node->poll_query_until('postgres', $kept_query),
	'past dpm.release_worker_idle, a worker stays while a session is connected to its database');
$worker = $node->safe_psql('postgres', $worker_pids);
$session->query_safe("INSERT INTO rw_rel SELECT 7, query, answer, stderr
                        FROM dpm.answer('rw_w', epsilon => 10, strategy => $s_eigen, confidence => NULL)");
is($node->safe_psql('postgres', $worker_pids), $worker, 'the next release is served by the kept worker');
is( $q->(
		"SELECT count(*) || ' ' || bool_and(abs(r.stderr - e2.stderr) <= 1e-9 * e2.stderr)
		   FROM rw_rel r JOIN rw_exp2 e2 USING (query) WHERE r.k IN (6, 7)"),
	'400 true',
	'its errors, and the one before, are those of the matrices in the catalog');
ok($node->poll_query_until('postgres', $kept_query), 'it is kept again');
$session->quit;
ok($node->poll_query_until('postgres', $no_worker), 'and leaves with the last session');

$session = $node->background_psql($db);
$session->query_safe('SET client_min_messages = warning');
ok(set_server($node, 'dpm.release_worker_keep' => 'off'), 'dpm.release_worker_keep = off, reloaded');
$session->query_safe("SELECT count(*) FROM dpm.answer('rw_w', epsilon => 10, strategy => $s_w, confidence => NULL)");
ok($node->poll_query_until('postgres', $no_worker),
	'with dpm.release_worker_keep off, the idle worker leaves though a session is connected');
$session->quit;
ok(set_server($node, 'dpm.release_worker_keep' => undef), 'dpm.release_worker_keep reset');

# --- none stays with dpm.release_worker_idle = 0 ---------------------------------------------------
ok(set_server($node, 'dpm.release_worker_idle' => 0), 'dpm.release_worker_idle = 0, reloaded');
is($q->("SELECT count(*) FROM dpm.answer('rw_w', epsilon => 10, strategy => $s_w, confidence => NULL)"),
	'200', 'a release is answered');
ok($node->poll_query_until('postgres', $no_worker), 'and its worker does not stay');
is( $q->(
		"SELECT count(*) || ' ' || bool_and(status = 'released')
		   FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id WHERE w.name = 'rw_w'"),
	'8 true',
	'every release of the workload was released');

# --- the caller's dpm.max_cells holds in the worker -------------------------------------------------
# A superuser may raise it for a session; the release's tables were checked against it before the
# charge, so the worker, which does not see the session, must use it too rather than fail after.
ok(set_server($node, 'dpm.max_cells' => 1000), 'dpm.max_cells = 1000 on the server, reloaded');
$q->(q{
SET client_min_messages = warning;
CREATE TABLE rw_wide AS SELECT g AS id, g % 40 AS a, (g / 40) % 40 AS b, (g / 7) % 40 AS c FROM generate_series(1, 2000) g;
SELECT dpm.register_source('rw_wide', 'id', 1, rho => 10);
SELECT dpm.create_domain('rw_wd', 'rw_wide', '[{"name": "a", "bins": {"min": 0, "max": 40, "width": 1}},
  {"name": "b", "bins": {"min": 0, "max": 40, "width": 1}}, {"name": "c", "bins": {"min": 0, "max": 40, "width": 1}}]');
SET dpm.max_cells = 5000;
SELECT dpm.create_workload('rw_ww', 'rw_wd', 'Marginals(2)');
});
is($q->("SELECT count(*) FROM dpm.domains WHERE name = 'rw_wd' AND n IS NULL"), '1', '64,000 cells: a wide domain');
is($q->("SET dpm.max_cells = 5000; SELECT count(*) FROM dpm.answer('rw_ww', rho => 1)"), '4800',
	'tables of 4,800 cells, allowed by the session, are released by the worker');
my ($ret, $out, $err) = $node->psql($db, "SELECT count(*) FROM dpm.answer('rw_ww', rho => 1)");
like($err, qr/more than dpm.max_cells \(1000\)/, 'under the server setting the same release is refused');
is( $q->(
		"SELECT count(*) || ' ' || bool_and(status = 'released')
		   FROM dpm.releases r JOIN dpm.workloads w ON w.id = r.workload_id WHERE w.name = 'rw_ww'"),
	'1 true',
	'before its charge: one release, released, and nothing charged for the refused one');

# --- an idle worker makes way ----------------------------------------------------------------------
# It may wait for minutes, so once idle it leaves when a statement needs its database to itself
# (DROP DATABASE waits at most 5 s for the other sessions to leave, then fails) or when another
# database's release needs the background worker slot it holds.
my $other = sub {
	my $name = shift;
	$node->safe_psql('postgres', "CREATE DATABASE $name");
	$node->safe_psql($name, q{
SET client_min_messages = warning;
CREATE EXTENSION dpmatrix;
CREATE TABLE o AS SELECT g % 10 AS v FROM generate_series(1, 100) g;
SELECT dpm.register_source('o', epsilon => 1000);
SELECT dpm.create_domain('o_d', 'o', '[{"name": "v", "bins": {"min": 0, "max": 10, "width": 1}}]');
SELECT dpm.create_workload('o_w', 'o_d', 'Identity(v)');
});
};
my $in_db = sub {
	my $name = shift;
	return "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'dpmatrix release' AND datname = '$name'";
};
ok(set_server($node, 'dpm.release_worker_idle' => 600000, 'dpm.max_cells' => undef),
	'dpm.release_worker_idle = 600s, reloaded');
$other->('dpm_rw2');
is($node->safe_psql('dpm_rw2', "SELECT count(*) FROM dpm.answer('o_w', epsilon => 1, confidence => NULL)"),
	'10', 'a release in a second database');
is($node->safe_psql('postgres', $in_db->('dpm_rw2')), '1', 'its worker waits for the next one');
($ret, $out, $err) = $node->psql('postgres', 'DROP DATABASE dpm_rw2');
is($ret, 0, "DROP DATABASE of it succeeds: the idle worker leaves ($err)");

# one background worker slot left for releases (the logical replication launcher takes the other)
$node->append_conf('postgresql.conf', "max_worker_processes = 2\nmax_parallel_workers_per_gather = 0");
$node->restart;
$other->('dpm_rw3');
is($q->("SELECT count(*) FROM dpm.answer('rw_w', epsilon => 10, strategy => $s_w, confidence => NULL)"),
	'200', "with max_worker_processes = 2, a release in $db");
is($node->safe_psql('postgres', $in_db->($db)), '1', 'its worker stays, holding the slot');
is( $node->safe_psql('dpm_rw3',
		"SET statement_timeout = '120s'; SELECT count(*) FROM dpm.answer('o_w', epsilon => 1, confidence => NULL)"),
	'10',
	"a release in another database is answered: the idle worker of $db made way");
is($node->safe_psql('postgres', $in_db->($db)), '0', "no worker is left in $db");

# --- a kept worker does not outlive DROP EXTENSION ----------------------------------------------------
ok(set_server($node, 'dpm.release_worker_idle' => 100), 'dpm.release_worker_idle = 100ms, reloaded');
$session = $node->background_psql('dpm_rw3');
$session->query_safe('SET client_min_messages = warning');
$session->query_safe("SELECT count(*) FROM dpm.answer('o_w', epsilon => 1, confidence => NULL)");
ok( $node->poll_query_until(
		'postgres', "SELECT query = 'kept while sessions are connected to the database' FROM pg_stat_activity
                      WHERE backend_type = 'dpmatrix release' AND datname = 'dpm_rw3'"),
	'a worker is kept for a session of dpm_rw3');
$session->query_safe('DROP EXTENSION dpmatrix CASCADE');
ok($node->poll_query_until('postgres', $in_db->('dpm_rw3'), '0'),
	'it leaves once the extension is dropped, the session still connected');
$session->quit;

$node->stop;
done_testing();
