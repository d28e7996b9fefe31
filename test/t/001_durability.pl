# A charge cannot be lost.  dpm.answer charges the budget in a background worker's own transaction,
# committed (synchronously) before any noise is drawn; so no matter what happens to the caller
# afterwards, the charge stays and matches a release:
#   a.  the caller's transaction rolls back (also: ROLLBACK TO SAVEPOINT): the charge stays, and
#       dpm.release(id) replays exactly the numbers the caller saw;
#   b.  an error later in the same statement (in the select list, in the WHERE clause);
#   c.  the caller is cancelled while the worker is between charge and noise (pg_cancel_backend,
#       and statement_timeout): the caller gets an error, the release completes on its own;
#   d.  the caller's backend is terminated (pg_terminate_backend): the same;
#   d2. the release worker itself is terminated between charge and noise: the charge stands, the
#       caller is told so, the release stays 'charged' without answers, a replay says it was
#       interrupted, and the next release on the source works and marks it 'interrupted';
#   e.  the server crashes right after the answer, with synchronous_commit = off as the server
#       default and the WAL writer frozen (so that only WAL flushed by its own transaction can
#       survive; an ordinary commit made just before the crash is checked to be lost): the charge,
#       the release and its answers survive; and the server crashes in the middle of a release
#       (after the charge, before the noise): the charge survives, the release stays 'charged'
#       without answers until the next release on the source marks it 'interrupted'.
# After every case: the source's ledger grew by exactly the charge (sum and row count), and every
# ledger row matches one release row (same source, same epsilon, delta and rho) and vice versa.
#
# A release is held between its charge and its answers by a session that keeps
# dpm.release_answer_blocks locked (hold_answers), for as long as the case needs; nothing waits
# for a fixed time.  The first crash is an immediate shutdown (no checkpoint, crash recovery at the
# start), the second the kill -9 of the caller's backend (the postmaster resets every process, the
# worker's too).
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use DpmatrixTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $db = 'dpm_durability';
my $charge = 0.25;    # every answer here asks for epsilon 0.25
my $quiet = '-c client_min_messages=warning';
$ENV{PGOPTIONS} = ($ENV{PGOPTIONS} // '') . " $quiet";

# restart_after_crash: after the kill -9 of case e2 the postmaster resets and starts again
my $node = dpm_node('durability', db => $db, conf => 'restart_after_crash = on');
sub sql { return $node->safe_psql($db, shift) }

sql(q{
CREATE TABLE dur_people AS SELECT g AS id, g % 5 AS d FROM generate_series(1, 1000) g;
SELECT dpm.register_source('dur_people', epsilon => 100);
SELECT dpm.create_domain('dur_d', 'dur_people', '[{"name": "d", "values": [0, 1, 2, 3, 4]}]');
SELECT dpm.create_workload('dur_w', 'dur_d', 'Prefix(d)');
-- an ordinary table, written with the server's default commit mode (case e)
CREATE TABLE dur_control (id int);
});
my $src_id = sql("SELECT id FROM dpm.sources WHERE relation = 'dur_people'::regclass");
my $m = sql("SELECT m FROM dpm.workloads WHERE name = 'dur_w'");
my $answer = "SELECT count(*) FROM dpm.answer('dur_w', epsilon => $charge)";
my $answer_rows = "SELECT query, label, answer, stderr FROM dpm.answer('dur_w', epsilon => $charge) ORDER BY query";
note "source dur_people (id $src_id, budget epsilon 100), workload dur_w ($m queries), charge $charge per answer";

# --- the ledger of the source ----------------------------------------------------------------------
my ($asked, $before_sum, $before_n, $before_max) = (0);

sub ledger_state    # (sum, count) of the source's ledger
{
	return split ' ', sql("SELECT coalesce(sum(epsilon), 0) || ' ' || count(*) FROM dpm.ledger WHERE source_id = $src_id");
}

# begin_case: remember the ledger and the last release id
sub begin_case
{
	$asked++;
	($before_sum, $before_n) = ledger_state();
	$before_max = sql('SELECT coalesce(max(id), 0) FROM dpm.releases');
}

# new_release(NAME): the id of the one release made since begin_case (undef, and a failure, if not one)
sub new_release
{
	my ($name) = @_;
	my $ids = sql("SELECT string_agg(id::text, ' ' ORDER BY id) FROM dpm.releases WHERE id > $before_max");
	ok($ids =~ /^\d+$/, "$name: exactly one new release (ids: " . ($ids || 'none') . ')');
	return $ids =~ /^\d+$/ ? $ids : undef;
}

# end_case(NAME): the ledger grew by exactly one charge, and agrees with the releases
sub end_case
{
	my ($name) = @_;
	my ($sum, $n) = ledger_state();
	is(sql("SELECT ${sum}::numeric = ${before_sum}::numeric + $charge AND $n = $before_n + 1"), 't',
		"$name: the ledger grew by exactly one charge ($before_sum/$before_n rows -> $sum/$n rows)");
	is( sql(q{
		SELECT NOT EXISTS (SELECT FROM dpm.ledger l
		                    WHERE NOT EXISTS (SELECT FROM dpm.releases r
		                                       WHERE r.id = l.release_id AND r.source_id = l.source_id
		                                         AND r.epsilon IS NOT DISTINCT FROM l.epsilon AND r.delta = l.delta
		                                         AND r.rho IS NOT DISTINCT FROM l.rho))
		   AND NOT EXISTS (SELECT FROM dpm.releases r
		                    WHERE (SELECT count(*) FROM dpm.ledger l WHERE l.release_id = r.id) <> 1)
		   AND (SELECT sum(epsilon) FROM dpm.ledger) = (SELECT sum(epsilon) FROM dpm.releases)}),
		't', "$name: every charge matches a release row, and every release one charge");
}

# replay(ID): the stored answers of a release, one "query|label|answer|stderr" line each
sub replay { return sql("SELECT query, label, answer, stderr FROM dpm.release($_[0]) ORDER BY query") }

# released_ok(NAME, ID): the release reaches status 'released' and replays its answers
sub released_ok
{
	my ($name, $rid) = @_;
	ok($node->poll_query_until($db, "SELECT status = 'released' FROM dpm.releases WHERE id = $rid"),
		"$name: the release reaches status 'released' without its caller");
	is(sql("SELECT count(*) = $m AND bool_and(answer IS NOT NULL AND stderr > 0) FROM dpm.release($rid)"),
		't', "$name: dpm.release($rid) replays its $m answers");
}

# interrupted(NAME, ID): release ID, left 'charged' by a worker that stopped, replays as
# interrupted (charging nothing); the next answer on the source returns its rows, is charged once,
# and marks ID 'interrupted' with its charge kept
sub interrupted
{
	my ($name, $id) = @_;
	my (undef, $out, $err) = $node->psql($db, "SELECT * FROM dpm.release($id)");
	like("$out\n$err", qr/It was interrupted after it was charged/,
		"$name: replaying it says it was interrupted (its worker holds it no more)");
	begin_case();
	is(sql($answer), $m, "$name: the next answer gets a worker and returns its $m rows");
	new_release("$name: the next answer");
	end_case("$name: the next answer");
	is( sql(
			"SELECT r.status = 'interrupted' AND l.epsilon = $charge
			   FROM dpm.releases r JOIN dpm.ledger l ON l.release_id = r.id WHERE r.id = $id"),
		't', "$name: the next answer on the source marked the release 'interrupted', its charge kept");
}

# slow_answer(NAME, SETTINGS): an answer in the background, as application NAME
sub slow_answer
{
	my ($name, $settings) = @_;
	return bg_psql($node, $db, $answer, name => $name, options => join(' ', $quiet, $settings // ''));
}

# wait_charged(NAME): waits until the background answer's release is charged; returns its id
sub wait_charged
{
	my ($name) = @_;
	ok($node->poll_query_until($db, "SELECT EXISTS (SELECT FROM dpm.releases WHERE id > $before_max)"),
		"$name: the release was charged while the caller waited");
	return sql("SELECT coalesce(min(id), 0) FROM dpm.releases WHERE id > $before_max");
}

# --- a. rollback -----------------------------------------------------------------------------------
begin_case();
my $answers = sql("BEGIN; $answer_rows; ROLLBACK;");
is(scalar(split /\n/, $answers), $m, "a. rollback: the answer returned $m rows");
my $rid = new_release('a. rollback');
end_case('a. rollback');
is(sql("SELECT status FROM dpm.releases WHERE id = $rid"), 'released', "a. rollback: the release is 'released'");
is(replay($rid), $answers, "a. rollback: dpm.release($rid) replays exactly the numbers the caller saw");
my @state = ledger_state();
replay($rid);
is(join(' ', ledger_state()), join(' ', @state), 'a. rollback: replaying costs nothing');

begin_case();
$answers = sql("BEGIN; SAVEPOINT s; $answer_rows; ROLLBACK TO SAVEPOINT s; COMMIT;");
$rid = new_release('a. rollback to savepoint');
end_case('a. rollback to savepoint');
is(replay($rid), $answers, "a. rollback to savepoint: dpm.release($rid) replays the numbers the caller saw");

# --- b. an error later in the same statement ------------------------------------------------------
begin_case();
my ($ret, $out, $err) = $node->psql($db, "SELECT a.answer / 0 FROM dpm.answer('dur_w', epsilon => $charge) a");
like($err, qr/division by zero/, 'b. error in the select list: the statement failed (division by zero)');
$rid = new_release('b. error in the select list');
end_case('b. error in the select list');
is(sql("SELECT count(*) FROM dpm.release($rid)"), $m, 'b. error in the select list: the release is replayable');

begin_case();
($ret, $out, $err) = $node->psql($db,
	"SELECT * FROM dpm.answer('dur_w', epsilon => $charge) a WHERE 1 / (a.query - a.query) = 1");
like($err, qr/division by zero/, 'b. error in the WHERE clause: the statement failed (division by zero)');
$rid = new_release('b. error in the WHERE clause');
end_case('b. error in the WHERE clause');
is(sql("SELECT count(*) FROM dpm.release($rid)"), $m, 'b. error in the WHERE clause: the release is replayable');

# --- c. a cancelled caller ---------------------------------------------------------------------------
begin_case();
my $hold = hold_answers($node, $db);
my $bg = slow_answer('dpm_dur_cancel');
$rid = wait_charged('c. pg_cancel_backend');
is( sql(
		"SELECT bool_and(pg_cancel_backend(a.pid)) AND count(*) = 1
		        AND (SELECT status FROM dpm.releases WHERE id = $rid) = 'charged'
		   FROM pg_stat_activity a WHERE a.application_name = 'dpm_dur_cancel'"),
	't', 'c. pg_cancel_backend: the caller was cancelled while its release was in flight');
($ret, $out, $err) = bg_finish($bg);
ok($ret != 0 && $err =~ /canceling statement due to user request/,
	'c. pg_cancel_backend: the caller got an error (canceling statement due to user request)');
like($err, qr/Release $rid was charged before the call stopped/,
	"c. pg_cancel_backend: the caller was told that release $rid was charged");
$hold->quit;
end_case('c. pg_cancel_backend');
released_ok('c. pg_cancel_backend', $rid);

# The timeout must strike after the charge, which comes soon after the call starts but not at a
# time known in advance: a call stopped before its charge charges nothing (the ledger shows it),
# and is made again with twice the timeout.
begin_case();
$hold = hold_answers($node, $db);
for (my $timeout = 1; $timeout <= 16; $timeout *= 2)
{
	($ret, $out, $err) = bg_finish(slow_answer('dpm_dur_timeout', "-c statement_timeout=${timeout}s"));
	last if $err !~ /Nothing was charged/;
	note "statement_timeout = ${timeout}s struck before the charge: again with twice as much";
}
ok($ret != 0 && $err =~ /canceling statement due to statement timeout/,
	'c. statement_timeout: the caller got an error (canceling statement due to statement timeout)');
$rid = wait_charged('c. statement_timeout');
like($err, qr/Release $rid was charged before the call stopped/,
	"c. statement_timeout: the caller was told that release $rid was charged");
$hold->quit;
end_case('c. statement_timeout');
released_ok('c. statement_timeout', $rid);

# --- d. a terminated caller -----------------------------------------------------------------------
begin_case();
$hold = hold_answers($node, $db);
$bg = slow_answer('dpm_dur_kill');
$rid = wait_charged('d. pg_terminate_backend');
is( sql(
		"SELECT bool_and(pg_terminate_backend(a.pid)) AND count(*) = 1
		        AND (SELECT status FROM dpm.releases WHERE id = $rid) = 'charged'
		   FROM pg_stat_activity a WHERE a.application_name = 'dpm_dur_kill'"),
	't', "d. pg_terminate_backend: the caller's backend was terminated while its release was in flight");
($ret, $out, $err) = bg_finish($bg);
ok($ret != 0 && $err =~ /terminating connection due to administrator command/,
	"d. pg_terminate_backend: the caller's session ended with an error");
$hold->quit;
end_case('d. pg_terminate_backend');
released_ok('d. pg_terminate_backend', $rid);

# --- d2. a terminated release worker ----------------------------------------------------------------
# The worker (resident or not) is terminated between the charge and the noise: the charge stands,
# the caller is told so, and the next release gets a worker again.
begin_case();
$hold = hold_answers($node, $db);
$bg = slow_answer('dpm_dur_worker');
$rid = wait_charged('d2. worker terminated');
is( sql(
		"SELECT bool_and(pg_terminate_backend(a.pid)) AND count(*) >= 1
		   FROM pg_stat_activity a WHERE a.backend_type = 'dpmatrix release' AND a.datname = current_database()"),
	't', 'd2. worker terminated: the release worker was terminated while the caller waited');
($ret, $out, $err) = bg_finish($bg);
like($err, qr/the worker computing release $rid stopped before it finished/,
	'd2. worker terminated: the caller was told the charge stands');
$hold->quit;
end_case('d2. worker terminated');
is( sql(
		"SELECT status = 'charged' AND NOT EXISTS (SELECT FROM dpm.release_answers a WHERE a.release_id = r.id)
		   FROM dpm.releases r WHERE id = $rid"),
	't', "d2. worker terminated: the release stays 'charged', without answers");
interrupted('d2. worker terminated', $rid);

# --- e. server crashes, with asynchronous commit as the server default --------------------------------
# A crash of the server processes (not of the machine) keeps whatever WAL was written to the
# kernel, and the WAL writer writes an asynchronous commit out within milliseconds.  So before each
# crash the WAL writer is frozen (SIGSTOP; the crash kills it): then only a commit that flushed its
# own WAL survives.  The table dur_control, written with the server's default (asynchronous)
# commit just before the crash, shows that the crash does lose such a commit.
ok(set_server($node, synchronous_commit => 'off'), 'e. set-up: synchronous_commit = off is the server default');

sub freeze_walwriter
{
	my ($name) = @_;
	my $ww = sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'");
	ok($ww =~ /^\d+$/ && kill('STOP', $ww) == 1, "$name: the WAL writer is frozen");
}

# control_lost(NAME): the asynchronous commit into dur_control was lost in the crash
sub control_lost
{
	my ($name) = @_;
	is(sql('SELECT count(*) FROM dur_control'), '0',
		"$name: the crash lost an ordinary asynchronous commit made just before it (so the test can tell)");
	sql('TRUNCATE dur_control');
}

# e1. a crash right after the answer
begin_case();
freeze_walwriter('e1. crash after the answer');
$answers = sql($answer_rows);
sql('INSERT INTO dur_control VALUES (1)');
$node->stop('immediate');
ok($node->start(fail_ok => 1), 'e1. crash after the answer (immediate stop): the server is back');
control_lost('e1. crash after the answer');
$rid = new_release('e1. crash after the answer');
end_case('e1. crash after the answer');
is(sql("SELECT status FROM dpm.releases WHERE id = $rid"), 'released',
	"e1. crash after the answer: the release is still 'released'");
ok(scalar(split /\n/, $answers) == $m && replay($rid) eq $answers,
	"e1. crash after the answer: dpm.release($rid) replays the numbers the caller saw");

# e2. a crash in the middle of a release: after the charge, before the noise.  The postmaster
# resets everything, the worker included; the charge stays, the release never gets answers.
begin_case();
freeze_walwriter('e2. crash mid-release');
$hold = hold_answers($node, $db);
$bg = slow_answer('dpm_dur_crash');
$rid = wait_charged('e2. crash mid-release');
my $caller = sql("SELECT pid FROM pg_stat_activity WHERE application_name = 'dpm_dur_crash'");
my $checkpointer = sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'");
sql('INSERT INTO dur_control VALUES (2)');
ok(kill('KILL', $caller) == 1, "e2. crash mid-release: kill -9 of the caller's backend");
# back when the server accepts connections again with a new checkpointer (so it did restart).
# poll_query_until dies, rather than retries, when its psql exits before reading the query from
# its stdin (a connection refused during the restart: a broken pipe), as happens at random: each
# such attempt is retried, within the time poll_query_until itself allows
my $back = 0;
my $until = time() + $PostgreSQL::Test::Utils::timeout_default;
while (!$back && time() < $until)
{
	$back = eval {
		$node->poll_query_until('postgres',
			"SELECT pid <> $checkpointer FROM pg_stat_activity WHERE backend_type = 'checkpointer'");
	};
	note "poll_query_until died: $@" if !defined $back;
}
ok($back, 'e2. crash mid-release: the server is back');
eval { $hold->quit };    # its backend went with the crash
control_lost('e2. crash mid-release');
($ret, $out, $err) = bg_finish($bg);
ok($ret != 0, 'e2. crash mid-release: the caller got an error');
$rid = new_release('e2. crash mid-release');
end_case('e2. crash mid-release');
is( sql(
		"SELECT status = 'charged' AND NOT EXISTS (SELECT FROM dpm.release_answers a WHERE a.release_id = r.id)
		   FROM dpm.releases r WHERE id = $rid"),
	't', "e2. crash mid-release: the release is still 'charged', without answers");
interrupted('e2. crash mid-release', $rid);

ok(set_server($node, synchronous_commit => undef), 'e. clean-up: synchronous_commit is back to on');

# --- the whole ledger ------------------------------------------------------------------------------
is(sql("SELECT count(*) = $asked AND sum(epsilon) = $asked * $charge FROM dpm.ledger WHERE source_id = $src_id"),
	't', "all: the ledger has one charge per answer asked for ($asked), and agrees with the releases");
is( sql(
		"SELECT epsilon_spent = $asked * $charge AND epsilon_remaining = 100 - $asked * $charge AND releases = $asked
		   FROM dpm.budget('dur_people')"),
	't', 'all: dpm.budget agrees with the ledger');

$node->stop;
done_testing();
