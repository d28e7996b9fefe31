# No analyst can block another (issue 41, item 6): what one role's releases may occupy is bounded.
#   1. a role's releases take at most dpm.release_workers - 1 workers of a database: with two
#      workers, one role's two releases, each held before its charge, take one worker, and another
#      role's release runs on the other and completes while they still wait;
#   2. within that cap, a role's small release runs beside its own held one;
#   3. a release of more answers than dpm.max_answers_per_release is refused before its charge;
#   4. so is one that would leave its role more than dpm.max_answers_per_role stored answers, set
#      for the role with ALTER ROLE; checked again by the worker under the source's lock, so that a
#      release planned before another of the same role was charged is refused too;
#   5. and under the role's lock, so that two releases of one role on different sources, the
#      second checked while the first is charged but not committed, do not both pass.
# Releases are held with locks (a session keeps a source's row locked, as a charge does), never
# with sleeps; nothing here depends on how long anything takes.
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use DpmatrixTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $db = 'dpm_quota';
my $quiet = '-c client_min_messages=warning';
$ENV{PGOPTIONS} = ($ENV{PGOPTIONS} // '') . " $quiet";
my $node = dpm_node('quota', db => $db);
sub sql { return $node->safe_psql($db, shift) }

# three sources of four cells each: alice's releases read a1 and a2, bob's b
sql(q{
CREATE ROLE regress_alice LOGIN IN ROLE dpm_analyst;
CREATE ROLE regress_bob IN ROLE dpm_analyst;
CREATE TABLE a1 AS SELECT i AS id, i % 4 AS v FROM generate_series(1, 1000) i;
CREATE TABLE a2 AS SELECT * FROM a1;
CREATE TABLE b AS SELECT * FROM a1;
SELECT dpm.register_source(t, epsilon => 1000) FROM unnest('{a1,a2,b}'::regclass[]) t;
SELECT dpm.create_domain('d_' || t, t, '[{"name": "v", "bins": {"min": 0, "max": 4, "width": 1}}]')
  FROM unnest('{a1,a2,b}'::text[]) t;
SET ROLE regress_alice;
SELECT dpm.create_workload('w_' || t, 'd_' || t, 'Prefix(v)') FROM unnest('{a1,a2,b}'::text[]) t;
});

# hold(SOURCE): a session that keeps the source's row locked until its quit
sub hold
{
	my $holder = $node->background_psql($db);
	$holder->query_safe("BEGIN; SELECT FROM dpm.sources WHERE relation = '$_[0]'::regclass FOR UPDATE");
	return $holder;
}
# answer(NAME, ROLE, SOURCE): dpm.answer of w_SOURCE in the background, as ROLE, as application NAME
sub answer
{
	my ($name, $role, $source) = @_;
	return bg_psql($node, $db,
		[ "SET ROLE $role", "SELECT count(*) FROM dpm.answer('w_$source', epsilon => 0.01)" ],
		name => $name, options => $quiet);
}
# waiting(NAME): the caller waits for its release (on its latch)
sub waiting
{
	return sql("SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = '$_[0]' AND wait_event = 'Extension')")
	  eq 't';
}
sub wait_until_waiting
{
	my $name = shift;
	return $node->poll_query_until($db,
		"SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = '$name' AND wait_event = 'Extension')");
}
# workers_locked(N): N release workers wait for a lock (a source's row)
sub workers_locked
{
	return $node->poll_query_until($db,
		"SELECT count(*) >= $_[0] FROM pg_stat_activity
		  WHERE backend_type = 'dpmatrix release' AND datname = '$db' AND wait_event_type = 'Lock'");
}
sub charges { return sql('SELECT count(*) FROM dpm.ledger') }
sub charges_of { return sql("SELECT count(*) FROM dpm.ledger WHERE charged_by = '$_[0]'::regrole") }

# --- 1. one role never holds every worker -------------------------------------------------------------
ok(set_server($node, 'dpm.release_workers' => 2, 'dpm.release_worker_idle' => 60000),
	'1. dpm.release_workers = 2, dpm.release_worker_idle = 60s');
my @holders = (hold('a1'), hold('a2'));
my $first = answer('first', 'regress_alice', 'a1');
ok(workers_locked(1), "1. a worker takes alice's first release and waits for its source");
my $second = answer('second', 'regress_alice', 'a2');
ok(wait_until_waiting('second'), "1. alice's second release, of another held source, waits");
# without the cap, a second worker would take it and wait for a2: bob's release would find none
is(sql("SET ROLE regress_bob; SELECT count(*) FROM dpm.answer('w_b', epsilon => 0.01)"), '4',
	"1. bob's release runs on the other worker and completes");
ok(waiting('first') && waiting('second'), "1. while alice's two releases still wait");
is( sql("SELECT count(*) FROM pg_stat_activity
          WHERE backend_type = 'dpmatrix release' AND datname = '$db' AND wait_event_type = 'Lock'"),
	'1', "1. alice's releases occupy one worker of two, never both");
is(charges_of('regress_alice'), '0', '1. nothing of alice is charged yet');
$_->quit for @holders;
is(join(' ', (bg_finish($first))[1], (bg_finish($second))[1]), '4 4', "1. alice's two releases then complete");
is(charges_of('regress_alice'), '2', '1. and are charged once each');

# --- 2. a small release beside its own held one -------------------------------------------------------
ok(set_server($node, 'dpm.release_workers' => 3), '2. dpm.release_workers = 3: two per role');
my $holder = hold('a1');
my $held = answer('held', 'regress_alice', 'a1');
ok(workers_locked(1), "2. a worker takes alice's release of a1 and waits for its source");
is(sql("SET ROLE regress_alice; SELECT count(*) FROM dpm.answer('w_a2', epsilon => 0.01)"), '4',
	"2. alice's release of a2 runs beside it and completes");
ok(waiting('held'), '2. while the first still waits');
$holder->quit;
is((bg_finish($held))[1], '4', '2. which then completes');

# --- 3. answers per release ----------------------------------------------------------------------------
my $before = charges();
my ($ret, $out, $err) = $node->psql($db,
	"SET dpm.max_answers_per_release = 3; SET ROLE regress_alice; SELECT count(*) FROM dpm.answer('w_b', epsilon => 0.01)");
like(
	$err,
	qr/ERROR:  a release of workload "w_b" would store 4 answers, the limit is 3 \(dpm.max_answers_per_release\)\nDETAIL:  Nothing was charged./,
	'3. a release of 4 answers, past dpm.max_answers_per_release = 3, is refused');
is(charges(), $before, '3. nothing was charged');

# --- 4. answers per role -------------------------------------------------------------------------------
# alice keeps 4 x 4 = 16 answers (sections 1 and 2); bob 4
is( sql(
		"SELECT string_agg(released_by || ' ' || n, ', ' ORDER BY released_by::text)
		   FROM (SELECT r.released_by, count(*) AS n FROM dpm.releases r JOIN dpm.release_answers a ON a.release_id = r.id
		          GROUP BY 1) s"),
	'regress_alice 16, regress_bob 4', '4. alice keeps 16 stored answers, bob 4');
sql('ALTER ROLE regress_alice SET dpm.max_answers_per_role = 23');
sub as_alice
{
	return $node->psql($db, "SELECT count(*) FROM dpm.answer('$_[0]', epsilon => 0.01)",
		extra_params => [ '-U', 'regress_alice' ]);
}
($ret, $out) = as_alice('w_b');
is($out, '4', '4. with dpm.max_answers_per_role = 23 for alice, 16 + 4 answers are allowed');
$before = charges();
($ret, $out, $err) = as_alice('w_b');
like(
	$err,
	qr/ERROR:  role regress_alice keeps 20 stored answers, and 4 more would pass the limit of 23 \(dpm.max_answers_per_role\)\nDETAIL:  Nothing was charged./,
	'4. 20 + 4 are refused');
is(charges(), $before, '4. nothing was charged');
is(sql("SET ROLE regress_bob; SELECT count(*) FROM dpm.answer('w_b', epsilon => 0.01)"), '4',
	"4. bob's releases are not alice's: his is answered");

# the worker checks again under the source's lock: two releases of alice are planned while she keeps
# 20 answers and may keep 27 (the first holds the source before its charge, the second waits for
# the source); only the first fits once it is charged
$before = charges();
$holder = hold('a1');
my @racers = map {
	bg_psql($node, $db,
		[ 'SET dpm.max_answers_per_role = 27', 'SET ROLE regress_alice', "SELECT count(*) FROM dpm.answer('w_a1', epsilon => 0.01)" ],
		name => "racer$_", options => $quiet)
} 1 .. 2;
ok(wait_until_waiting('racer1') && wait_until_waiting('racer2'), '4. two releases of alice are planned and wait');
ok(workers_locked(1), '4. one is taken and waits for the source');
$holder->quit;
my @said = map { my (undef, $o, $e) = bg_finish($_); "$o$e" } @racers;
is(scalar(grep { $_ eq '4' } @said), 1, '4. one of them is answered') or diag explain \@said;
is(scalar(grep { /role regress_alice keeps 24 stored answers, and 4 more would pass the limit of 27.*Nothing was charged/s } @said),
	1, '4. the other is refused by the worker, once the first is charged')
  or diag explain \@said;
is(charges(), $before + 1, '4. one charge');

# --- 5. the quota holds across sources -----------------------------------------------------------------
# alice keeps 24 answers and may keep 31: one more release of 4 fits, not two.  Her release of a1 is
# held after its quota check and before its commit (a session keeps the cached strategies of w_a1
# locked: recording the release, which references its strategy, waits for them); her release of a2,
# on another source, then reaches its own check.  It must wait for the first to commit, and count
# it: without the role's lock both count 24 and both are charged.
$before = charges();
my $strategy_holder = $node->background_psql($db);
is( $strategy_holder->query_safe(
		"BEGIN; SELECT count(*) > 0 FROM (SELECT FROM dpm.strategies s JOIN dpm.workloads w ON w.id = s.workload_id
		                                   WHERE w.name = 'w_a1' FOR UPDATE OF s) x"),
	't', "5. a session holds w_a1's cached strategies");
sub answer_within
{
	return bg_psql($node, $db,
		[ "SET dpm.max_answers_per_role = $_[1]", 'SET ROLE regress_alice',
		  "SELECT count(*) FROM dpm.answer('w_$_[0]', epsilon => 0.01)" ],
		name => "across_$_[0]", options => $quiet);
}
my @across = (answer_within('a1', 31));
ok(workers_locked(1), "5. alice's release of a1 passes its quota check and waits to record its release");
push @across, answer_within('a2', 31);
# either it waits for the role's lock (two workers wait), or it was charged beside the first
ok( $node->poll_query_until(
		$db, "SELECT (SELECT count(*) >= 2 FROM pg_stat_activity
		               WHERE backend_type = 'dpmatrix release' AND datname = '$db' AND wait_event_type = 'Lock')
		          OR (SELECT count(*) > $before FROM dpm.ledger)"),
	"5. alice's release of a2 reaches its charge");
is(charges(), $before, '5. and waits for the first, uncharged');
$strategy_holder->quit;
@said = map { my (undef, $o, $e) = bg_finish($_); "$o$e" } @across;
is($said[0], '4', "5. the release of a1 is answered") or diag explain \@said;
like(
	$said[1],
	qr/role regress_alice keeps 28 stored answers, and 4 more would pass the limit of 31.*Nothing was charged/s,
	'5. the release of a2 is refused, counting the first')
  or diag explain \@said;
is(charges(), $before + 1, '5. one charge');

$node->stop;
done_testing();
