# pg_dump of a database using dpmatrix restores into a fresh cluster with its catalog intact:
# sources, domains, workloads, strategies, releases, answers, the ledger and a published view; the
# budget left is the same, old releases replay, and new releases continue the sequences and are
# charged on top of the restored ledger.  On a PostgreSQL newer than 15, where PostgreSQL 15 with
# dpmatrix is installed too (scripts/test.sh tests 15 first), the same again from a 15 cluster,
# dumped with this version's pg_dump (as an upgrade by dump and restore is done).
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/../perl";
use DpmatrixTest;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# scenario(FROM, INSTALL_PATH): a database dumped from a cluster of INSTALL_PATH (undef: this
# version; FROM names it), restored into a fresh cluster of this version
sub scenario
{
	my ($from, $install_path) = @_;
	my $db = 'dpm_dump';
	my $old = dpm_node("dumped_$from", db => $db, install_path => $install_path);

	$old->safe_psql($db, q{
CREATE TABLE people AS
  SELECT g AS id, g % 50 AS age, CASE WHEN g % 3 = 0 THEN 'F' ELSE 'M' END AS sex FROM generate_series(1, 2000) g;
SELECT dpm.register_source('people', epsilon => 4.5);
SELECT dpm.create_domain('age_sex', 'people',
  '[{"name": "age", "bins": {"min": 0, "max": 50, "width": 10}}, {"name": "sex", "values": ["F", "M"]}]');
SELECT dpm.create_workload('ranges', 'age_sex', 'AllRange(age) * Identity(sex)');
SELECT dpm.create_workload('cells', 'age_sex', ARRAY[[1,0,0,0,0,0,0,0,0,0], [0,1,0,0,0,0,0,0,0,0]]::float8[]);
SELECT count(*) FROM dpm.answer('ranges', epsilon => 1, method => 'hierarchical');
SELECT count(*) FROM dpm.answer('cells', epsilon => 0.5, method => 'identity');
SELECT dpm.create_measure('age', 'people', 'age', 0, 60);
SELECT count(*) FROM dpm.answer('cells', epsilon => 0.5, method => 'identity', measure => 'age');
SELECT count(*) FROM dpm.answer('cells', epsilon => 0.5, method => 'identity', measure => 'age', aggregate => 'avg');
CREATE SCHEMA reporting;
SELECT dpm.publish(1, 'reporting.ranges');
	});

	# what must survive a dump and restore: one line "name|..." each
	my @snapshot = (
		"SELECT 'sources', count(*), md5(string_agg(format('%s %s %s %s', relation, model, budget_epsilon, max_contributions), ';' ORDER BY id)) FROM dpm.sources",
		"SELECT 'domains', count(*), md5(string_agg(format('%s %s %s', name, cell_expr, bin_labels), ';' ORDER BY id)) FROM dpm.domains",
		"SELECT 'workloads', count(*), md5(string_agg(format('%s %s %s %s', name, spec, matrix, spans), ';' ORDER BY id)) FROM dpm.workloads",
		"SELECT 'strategies', count(*), md5(string_agg(format('%s %s %s', method, matrix, profile_trace), ';' ORDER BY id)) FROM dpm.strategies",
		"SELECT 'releases', count(*), md5(string_agg(format('%s %s %s %s %s %s', id, status, epsilon, released_by, confidence, sum_share), ';' ORDER BY id)) FROM dpm.releases",
		"SELECT 'answers', count(*), md5(string_agg(format('%s %s %s %s %s', release_id, query, answer, stderr, ci_low), ';' ORDER BY release_id, query)) FROM dpm.release_answers",
		"SELECT 'ledger', count(*), md5(string_agg(format('%s %s %s', release_id, epsilon, charged_by), ';' ORDER BY id)) FROM dpm.ledger",
		"SELECT 'measures', count(*), md5(string_agg(format('%s %s %s %s %s', id, name, lo, hi, grid_exp), ';' ORDER BY id)) FROM dpm.measures",
		"SELECT 'measurements', count(*), md5(string_agg(format('%s %s %s %s', release_id, quantity, y, variance), ';' ORDER BY release_id, quantity)) FROM dpm.release_measurements",
		"SELECT 'derived', count(*), md5(string_agg(format('%s %s', query, answer), ';' ORDER BY query)) FROM dpm.release(1, inference => 'nnls')",
		"SELECT 'derived average', count(*), md5(string_agg(format('%s %s', query, answer), ';' ORDER BY query)) FROM dpm.release((SELECT max(id) FROM dpm.releases WHERE sum_share IS NOT NULL), inference => 'ls')",
		"SELECT 'budget', epsilon_spent, epsilon_remaining FROM dpm.budget('people')",
		"SELECT 'publications', count(*), md5(string_agg(format('%s %s', view_name, release_id), ';')) FROM dpm.publications",
		"SELECT 'view', count(*), md5(string_agg(format('%s %s %s %s', query, age_from, sex, answer), ';' ORDER BY query)) FROM reporting.ranges",
		"SELECT 'replay', count(*), md5(string_agg(format('%s %s', query, answer), ';' ORDER BY query)) FROM dpm.release(1)");
	my @before = map { $old->safe_psql($db, $_) } @snapshot;
	note "before the dump:\n", join("\n", @before);

	my $dir = PostgreSQL::Test::Utils::tempdir;
	# roles without passwords: the fresh cluster keeps its own superuser's
	# this version's pg_dump and pg_dumpall (the newer one, as for an upgrade), on the old server
	command_ok([ 'pg_dumpall', '-h', $old->host, '-p', $old->port, '-g', '--no-role-passwords', '-f', "$dir/globals.sql" ],
		"pg_dumpall -g of $from");
	command_ok([ 'pg_dump', '-h', $old->host, '-p', $old->port, '-Fc', '-d', $db, '-f', "$dir/db.dump" ], "pg_dump -Fc of $from");
	$old->stop;

	my $new = dpm_node("restored_$from");
	# roles first (the restoring superuser exists already: that one statement fails)
	$new->psql('postgres', slurp_file("$dir/globals.sql"), on_error_stop => 0);
	$new->safe_psql('postgres', "CREATE DATABASE $db");
	if ($from eq 'pg15')
	{
		# Debian 12's PostgreSQL 15.20 records an attribute option pg_attver on every column, which
		# 18 does not know, and pg_dump writes it out (ALTER TABLE ... SET (pg_attver=N)): those
		# statements are left out of what is restored, pg_restore's own SQL otherwise
		command_ok([ 'pg_restore', '-f', "$dir/db.sql", "$dir/db.dump" ], "pg_restore -f of $from");
		my $sql = slurp_file("$dir/db.sql");
		$sql =~ s/^ALTER [^\n]* SET \(pg_attver=\d+\);\n//mg;
		PostgreSQL::Test::Utils::append_to_file("$dir/db_restore.sql", $sql);
		$new->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $db, '-f', "$dir/db_restore.sql" ],
			"the dump of $from restores into a fresh cluster");
	}
	else
	{
		$new->command_ok([ 'pg_restore', '-d', $db, '--exit-on-error', "$dir/db.dump" ],
			"the dump of $from restores into a fresh cluster");
	}

	foreach my $i (0 .. $#snapshot)
	{
		my ($name) = split /\|/, $before[$i];
		is($new->safe_psql($db, $snapshot[$i]), $before[$i], "$name intact after restore ($from)");
	}

	$new->safe_psql($db, "SELECT count(*) FROM dpm.answer('cells', epsilon => 0.5, method => 'identity')");
	is($new->safe_psql($db, "SELECT max(id) || ' of ' || count(*) FROM dpm.releases"), '5 of 5',
		"a new release continues the sequences (release 5 of 5; $from)");
	is($new->safe_psql($db, "SELECT epsilon_spent FROM dpm.budget('people')"), '3.0',
		"the restored ledger counts toward the budget (3 of 4.5 spent; $from)");
	my ($ret, $out, $err) = $new->psql($db, "SELECT count(*) FROM dpm.answer('ranges', epsilon => 10)");
	like($err, qr/source "public.people" cannot pay for this release/, "the restored budget still refuses overspending ($from)");

	$new->stop;
}

$ENV{PGOPTIONS} = ($ENV{PGOPTIONS} // '') . ' -c client_min_messages=warning';
scenario('here', undef);
# from PostgreSQL 15 (Debian's), when this is a newer version and 15 has dpmatrix
my ($this) = PostgreSQL::Test::Utils::run_command([ 'pg_config', '--version' ]);
if ($this !~ /PostgreSQL 15\./ && -f '/usr/share/postgresql/15/extension/dpmatrix.control')
{
	scenario('pg15', '/usr/lib/postgresql/15');
}
else
{
	note "no dump from PostgreSQL 15: this is $this, or 15 has no dpmatrix";
}
done_testing();
