# Releases wait in a queue served by a bounded pool of release workers, and nothing is charged for
# a call that stops before its charge (src/release/queue.h); the pool's size and the limit per role
# are server settings, changed here with a reload:
#   1. a strategy is optimized in the caller's own backend: cancelled while it optimizes, the call
#      charges nothing and no release worker was ever involved;
#   2. a caller cancelled while its release is queued, or taken by a worker that has not charged
#      it yet, is told that nothing was charged, and nothing is;
#   3. at most dpm.release_workers workers serve a database, whatever the number of callers, and
#      every queued release completes; a source whose row is held holds one worker, never the pool:
#      another source's release is served meanwhile;
#   4. a role may have at most dpm.max_releases_per_role releases in flight: one more is refused at
#      once, before anything is charged;
#   5. a caller cancelled after the charge is told which release was charged, and it completes;
#   6. a caller whose own transaction holds a lock its worker needs is told of the deadlock, and
#      whether it was charged: before the charge (the source table) nothing is; after it (where the
#      answers go) the release completes once that transaction ends.
# Races are pinned with locks, never with sleeps: a "holder" session keeps the source's row locked
# (as a charge does) until the test lets it go, so a worker taking a release blocks before the
# charge; or keeps dpm.release_answer_blocks locked, so that a worker blocks after it.
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use DpmatrixTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $db = 'dpm_queue';
my $quiet = '-c client_min_messages=warning';
$ENV{PGOPTIONS} = ($ENV{PGOPTIONS} // '') . " $quiet";
my $node = dpm_node('queue', db => $db);
sub sql { return $node->safe_psql($db, shift) }

sql(q{
CREATE ROLE regress_alice IN ROLE dpm_analyst;
CREATE ROLE regress_bob IN ROLE dpm_analyst;
CREATE TABLE q_people AS SELECT i AS id, i % 1024 AS v FROM generate_series(1, 20000) i;
SELECT dpm.register_source('q_people', epsilon => 1000);
SELECT dpm.create_domain('q_d', 'q_people', '[{"name": "v", "bins": {"min": 0, "max": 4, "width": 1}}]');
SELECT dpm.create_domain('q_big', 'q_people', '[{"name": "v", "bins": {"min": 0, "max": 1024, "width": 1}}]');
CREATE TABLE q_other AS SELECT * FROM q_people;
SELECT dpm.register_source('q_other', epsilon => 1000);
SELECT dpm.create_domain('q_od', 'q_other', '[{"name": "v", "bins": {"min": 0, "max": 4, "width": 1}}]');
SET ROLE regress_alice;
SELECT dpm.create_workload('q_w', 'q_d', 'Prefix(v)');
SELECT dpm.optimize('q_w', method => 'identity');
SELECT dpm.create_workload('q_bigw', 'q_big', 'Prefix(v)');
SELECT dpm.create_workload('q_ow', 'q_od', 'Prefix(v)');
});

# hold_source: a session that keeps the source's row locked until its quit
sub hold_source
{
	my $holder = $node->background_psql($db);
	$holder->query_safe("BEGIN; SELECT FROM dpm.sources WHERE relation = 'q_people'::regclass FOR UPDATE");
	return $holder;
}

# answer(NAME, ROLE, ARGS, WORKLOAD): dpm.answer in the background, as ROLE, as application NAME
sub answer
{
	my ($name, $role, $args, $workload) = @_;
	return bg_psql($node, $db,
		[ "SET ROLE $role", 'SELECT count(*) FROM dpm.answer(' . ($workload // "'q_w'") . ', epsilon => 0.01' . ($args // '') . ')' ],
		name => $name, options => $quiet);
}
# the output of a background answer: stdout, then stderr
sub outcome { my (undef, $out, $err) = bg_finish(shift); return "$out\n$err" }

sub pid_of { return sql("SELECT pid FROM pg_stat_activity WHERE application_name = '$_[0]'") }
# waiting(NAME): the caller waits for its release (on its latch)
sub waiting
{
	return $node->poll_query_until($db,
		"SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = '$_[0]' AND wait_event = 'Extension')");
}
# workers_locked(N): N release workers wait for a lock (the source's row)
sub workers_locked
{
	my $n = shift // 1;
	return $node->poll_query_until($db,
		"SELECT count(*) >= $n FROM pg_stat_activity
		  WHERE backend_type = 'dpmatrix release' AND datname = '$db' AND wait_event_type = 'Lock'");
}
sub workers { return sql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'dpmatrix release' AND datname = '$db'") }
sub charges
{
	return sql("SELECT count(*) FROM dpm.ledger l JOIN dpm.sources s ON s.id = l.source_id WHERE s.relation = 'q_people'::regclass");
}

# --- 1. optimization runs in the caller ----------------------------------------------------------------
# gaussian_optimal over 1024 cells takes seconds.  The source is held, so even an optimization that
# ended before the cancel could not be charged.
ok(set_server($node, 'dpm.release_worker_idle' => 0), '1. dpm.release_worker_idle = 0');
my $holder = hold_source();
my $opt = answer('opt', 'regress_alice', ", delta => 0, method => 'gaussian_optimal'", "'q_bigw'");
my $computing = "SELECT count(*) FROM pg_stat_activity
                  WHERE application_name = 'opt' AND query LIKE '%dpm.answer%' AND state = 'active' AND wait_event IS NULL";
$node->poll_query_until($db, "SELECT ($computing) = 1");
my $busy = sql($computing);
my $w = workers();
sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'opt'");
my $said = outcome($opt);
$holder->quit;
ok($busy eq '1' && $w eq '0',
	"1. optimization: the caller's own backend computes while no release worker exists ($busy busy, $w workers)");
ok($said =~ /canceling statement due to user request/ && $said !~ /withdrawn|was charged/,
	"1. optimization: the cancel stops it with the caller's error, before the release was queued")
  or diag $said;
is( sql(
		"SELECT NOT EXISTS (SELECT FROM dpm.releases)
		    AND NOT EXISTS (SELECT FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id WHERE w.name = 'q_bigw')"),
	't', '1. optimization: nothing was charged, and no strategy was stored');

# --- 2. cancelled before the charge ---------------------------------------------------------------
ok(set_server($node, 'dpm.release_worker_idle' => 60000, 'dpm.release_workers' => 1),
	'2. dpm.release_worker_idle = 60s, dpm.release_workers = 1');
$holder = hold_source();
my $taken = answer('taken', 'regress_alice');
ok(workers_locked(), '2. a worker takes the first release and waits for the source');
my $queued = answer('queued', 'regress_bob');
ok(waiting('queued'), '2. the second release waits');
is(workers(), '1', '2. with one worker busy, a second release is queued (1 worker)');
sql('SELECT pg_cancel_backend(' . pid_of('queued') . ')');
$said = outcome($queued);
like($said, qr/Nothing was charged: the release was withdrawn before its charge/,
	'2. cancelled while queued: the caller is told nothing was charged');
sql('SELECT pg_cancel_backend(' . pid_of('taken') . ')');
$said = outcome($taken);
like($said, qr/Nothing was charged: the release was withdrawn before its charge/,
	'2. cancelled while its worker waited to charge: the caller is told nothing was charged');
$holder->quit;
# the one worker serves the next release only once it is done with the cancelled one
is(sql("SET ROLE regress_alice; SELECT count(*) FROM dpm.answer('q_w', epsilon => 0.01)"), '4',
	'2. the next release is served');
is(sql('SELECT count(*) || \' \' || (SELECT count(*) FROM dpm.ledger) FROM dpm.releases'), '1 1',
	'2. and nothing was charged for the cancelled ones: one release, one charge');

# --- 3. a bounded pool ----------------------------------------------------------------------------
ok(set_server($node, 'dpm.release_workers' => 2), '3. dpm.release_workers = 2');
$holder = hold_source();
my @many = map { answer("many$_", 'regress_bob') } 1 .. 8;
ok(!grep({ !waiting("many$_") } 1 .. 8), '3. eight callers wait for their releases');
ok(workers_locked(1), '3. a worker waits for the source');
is(sql("SET ROLE regress_alice; SELECT count(*) FROM dpm.answer('q_ow', epsilon => 0.01)"), '4',
	"3. another source's release is served while the first source is held");
is(workers(), '2', '3. eight callers, dpm.release_workers = 2: two release workers');
is( sql("SELECT count(*) FROM pg_stat_activity
          WHERE backend_type = 'dpmatrix release' AND datname = '$db' AND wait_event_type = 'Lock'"),
	'1', '3. one worker, never both, waits for the held source');
ok(!grep({ !waiting("many$_") } 1 .. 8), '3. the eight callers still wait');
$holder->quit;
is(join(' ', map { my (undef, $out) = bg_finish($_); $out } @many), join(' ', ('4') x 8),
	'3. every queued release completed with its answers');
ok(workers() <= 2, '3. the pool never grew: at most two release workers');

# --- 4. a limit per role -----------------------------------------------------------------------------
ok(set_server($node, 'dpm.max_releases_per_role' => 1), '4. dpm.max_releases_per_role = 1');
my $before = charges();
$holder = hold_source();
my $first = answer('first', 'regress_alice');
ok(workers_locked(), "4. a worker takes the role's first release and waits for the source");
my ($ret, $out, $err) = $node->psql($db,
	"SET ROLE regress_alice; SELECT count(*) FROM dpm.answer('q_w', epsilon => 0.01)");
like($err, qr/role regress_alice already has 1 releases queued or being computed/,
	'4. a second release of the same role is refused at once (53400)');
my $other = answer('other', 'regress_bob');
ok(waiting('other'), "4. another role's release waits");
$holder->quit;
is(join(' ', (bg_finish($first))[1], (bg_finish($other))[1]), '4 4',
	"4. the first release and another role's complete");
is(charges(), $before + 2, '4. exactly those two were charged');
ok(set_server($node, 'dpm.max_releases_per_role' => undef), '4. dpm.max_releases_per_role reset');

# --- 5. cancelled after the charge ---------------------------------------------------------------
$before = charges();
my $hold = hold_answers($node, $db);
my $late = answer('late', 'regress_alice');
ok($node->poll_query_until($db, "SELECT EXISTS (SELECT FROM dpm.releases WHERE status = 'charged')"),
	'5. the release is charged');
my $rid = sql("SELECT max(id) FROM dpm.releases WHERE status = 'charged'");
sql('SELECT pg_cancel_backend(' . pid_of('late') . ')');
$said = outcome($late);
$hold->quit;
like($said, qr/Release $rid was charged before the call stopped/,
	"5. cancelled after the charge: the caller is told release $rid was charged");
ok($node->poll_query_until($db, "SELECT status = 'released' FROM dpm.releases WHERE id = $rid"), '5. and it completes');
is(charges(), $before + 1, '5. one charge');

# --- 6. a deadlock with the caller ------------------------------------------------------------
# answer_holding(WHAT): the answer of a session whose transaction holds a lock on WHAT; its error, then the
# release it left (if any) once the transaction has ended
sub answer_holding
{
	my $what = shift;
	my $lock = $node->background_psql($db, on_error_stop => 0);
	$lock->query_safe("BEGIN; LOCK TABLE $what IN ACCESS EXCLUSIVE MODE");
	$lock->query("SELECT count(*) FROM dpm.answer('q_w', epsilon => 0.01)");
	my $said = $lock->{stderr};
	$lock->query('ROLLBACK');
	$lock->quit;
	return $said;
}
# the source table: the worker needs it before the charge
$before = charges();
$said = answer_holding('q_people');
like($said, qr/deadlock detected: the release worker waits for a lock this transaction holds.*Nothing was charged/s,
	"6. a lock on the source, before the charge: the caller is told of the deadlock, and that nothing was charged");
is(charges(), $before, '6. nothing was charged');
# where the answers are stored: the worker needs it after the charge
$said = answer_holding('dpm.release_answer_blocks');
$rid = sql("SELECT max(id) FROM dpm.releases");
like($said, qr/deadlock detected: the release worker waits for a lock this transaction holds.*Release $rid was charged before the call stopped/s,
	"6. a lock the worker needs after the charge: the caller is told of the deadlock and that release $rid was charged");
ok($node->poll_query_until($db, "SELECT status = 'released' FROM dpm.releases WHERE id = $rid"),
	'6. the release completes once the transaction ends');
is(charges(), $before + 1, '6. one charge');

$node->stop;
done_testing();
