# DpmatrixTest -- what the TAP tests in test/t share: a cluster of their own with dpmatrix,
# server settings changed with a reload, psql sessions running in the background, and the lock
# that holds a release between its charge and its noise.
#
# Waits poll (poll_query_until, pump_until) until what they wait for is there, never for a fixed
# time; each gives up after $PostgreSQL::Test::Utils::timeout_default seconds (180 by default).
package DpmatrixTest;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(dpm_node set_server bg_psql bg_wait_for bg_finish hold_answers);

# dpm_node(NAME, db => DB, conf => LINES, install_path => DIR): a started cluster (of the
# PostgreSQL installed in DIR, if given: another version than the one under test), with database
# DB (if given) where dpmatrix is created; LINES are added to postgresql.conf first
sub dpm_node
{
	my ($name, %opts) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name,
		defined $opts{install_path} ? (install_path => $opts{install_path}) : ());

	$node->init(extra => [ '--no-locale', '--encoding=UTF8' ]);
	$node->append_conf('postgresql.conf', $opts{conf}) if defined $opts{conf};
	$node->start;
	if (defined $opts{db})
	{
		$node->safe_psql('postgres', "CREATE DATABASE $opts{db}");
		$node->safe_psql($opts{db}, 'SET client_min_messages = warning; CREATE EXTENSION dpmatrix');
	}
	return $node;
}

# set_server(NODE, NAME => VALUE, ...): server-wide settings (ALTER SYSTEM; VALUE in the setting's
# base unit, undef to reset it), reloaded; returns true once a new session has every one of them
# (the postmaster reloads asynchronously).  The polling sessions load dpmatrix at their start, so
# that its settings are defined there.
sub set_server
{
	my ($node, %settings) = @_;
	my $sql = "LOAD 'dpmatrix';\n";
	my @want;

	foreach my $name (sort keys %settings)
	{
		my $value = $settings{$name};
		if (defined $value)
		{
			$sql .= "ALTER SYSTEM SET $name = '$value';\n";
			push @want, "(name = '$name' AND setting = '$value')";
		}
		else
		{
			$sql .= "ALTER SYSTEM RESET $name;\n";
			push @want, "(name = '$name' AND setting = boot_val)";
		}
	}
	$node->safe_psql('postgres', $sql . 'SELECT pg_reload_conf();');
	local $ENV{PGOPTIONS} = ($ENV{PGOPTIONS} // '') . ' -c session_preload_libraries=dpmatrix';
	return $node->poll_query_until('postgres',
		'SELECT count(*) = ' . scalar(@want) . ' FROM pg_settings WHERE ' . join(' OR ', @want));
}

# bg_psql(NODE, DB, SQL, name => APPLICATION_NAME, options => '-c a=b ...'): psql runs SQL (a
# string, or a list of statements run one after the other) in the background; returns the session
# for bg_wait_for and bg_finish.  options come after the test's PGOPTIONS (libpq's options
# parameter would replace them: the suite's dpm.reuse = never among them), so they win.
sub bg_psql
{
	my ($node, $db, $sql, %opts) = @_;
	my $bg = { in => '', out => '', err => '' };
	my $connstr = $node->connstr($db);

	$connstr .= " application_name=$opts{name}" if defined $opts{name};
	$connstr .= " options='" . join(' ', grep { defined } $ENV{PGOPTIONS}, $opts{options}) . "'"
	  if defined $opts{options};
	$bg->{timer} = IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default);
	$bg->{run} = IPC::Run::start(
		[
			$node->installed_command('psql'), '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $connstr,
			map { ('-c', $_) } (ref $sql ? @$sql : $sql)
		],
		'<', \$bg->{in}, '>', \$bg->{out}, '2>', \$bg->{err}, $bg->{timer});
	return $bg;
}

# bg_wait_for(SESSION, REGEXP): true once the session's stderr (its NOTICEs and errors) matches
sub bg_wait_for
{
	my ($bg, $re) = @_;
	return pump_until($bg->{run}, $bg->{timer}, \$bg->{err}, $re);
}

# bg_finish(SESSION): waits for psql to end; returns its exit status, stdout and stderr
sub bg_finish
{
	my ($bg) = @_;
	$bg->{run}->finish;
	chomp(my $out = $bg->{out});
	chomp(my $err = $bg->{err});
	return ($bg->{run}->result(0), $out, $err);
}

# hold_answers(NODE, DB): a session that keeps dpm.release_answer_blocks locked against writes until
# its quit (which commits).  A release worker that has charged a release then waits, in the
# transaction that measures it, before it stores the answers (dpm_internal.store_answers takes the
# table's lock before it reads the first answer): nothing of the fill is committed, and the release
# stays 'charged' as long as the test needs, without any fixed delay.  The worker gives up after
# its lock_timeout (30 s), so hold it only for a few statements.
sub hold_answers
{
	my ($node, $db) = @_;
	my $holder = $node->background_psql($db);

	$holder->query_safe('BEGIN; LOCK TABLE dpm.release_answer_blocks IN SHARE MODE');
	return $holder;
}

1;
