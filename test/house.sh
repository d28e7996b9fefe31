#!/usr/bin/env bash
# house.sh -- the rules of the tree that no compiler checks, read from doc/dev/architecture.md so
# that the document and the check cannot disagree.  Runs from the top directory after the build
# (it reads the objects, src/*/*.o, and dpmatrix.so); needs no server.
#  - layers: every #include of a dpmatrix header, and every function or variable one object uses
#    from another (nm), goes from a folder to one on a lower line of the block under "What may
#    include what", or stays in its folder (a folder missing from the block fails); so an extern
#    declaration cannot hide what an #include would show;
#  - cycles: none between folders, none between the files of a folder (an edge is an #include or
#    a use of a symbol: a .c that calls a function of another .c depends on it);
#  - size: no C or SQL file of the repository over 800 lines;
#  - SQL parts: no two sql/NN_*.sql with the same number NN;
#  - names: every symbol dpmatrix.so exports is an fmgr entry (dpm_*, pg_finfo_*, _PG_init,
#    Pg_magic_func) or starts with a prefix the block under "Names" gives its folder (or the
#    folder's own name and "_");
#  - builds: every src/**/*.c has its object, so a Makefile whose OBJS misses a folder fails here.
# Prints each violation, one "ok" line per rule that holds, and "N passed, N failed" (one pass per
# include, use, file, part and symbol checked; one failure per violation).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
exec perl -x "${BASH_SOURCE[0]}" "$@"

#!perl
use strict;
use warnings;

my $DOC = 'doc/dev/architecture.md';
my $MAX_LINES = 800;
my ($passed, $failed) = (0, 0);
my %failures;			# rule -> failures, to print one "ok" line per rule without any

sub bad
{
	my ($rule, $what) = @_;
	print "FAILED $rule: $what\n";
	$failed++;
	$failures{$rule}++;
}

sub good
{
	$passed++;
}

sub rule_done
{
	my ($rule, $n) = @_;
	print "ok     $rule ($n checked)\n" unless $failures{$rule};
}

# The lines of the first fenced block after the heading "## $heading" of the document.
sub doc_block
{
	my ($heading) = @_;
	open my $fh, '<', $DOC or die "$DOC: $!\n";
	my ($in_section, $in_block, @lines) = (0, 0);
	while (<$fh>)
	{
		chomp;
		if (/^## (.*)/) { last if $in_section; $in_section = ($1 eq $heading); next; }
		next unless $in_section;
		if (/^```/) { last if $in_block; $in_block = 1; next; }
		push @lines, $_ if $in_block && /\S/;
	}
	die "$DOC: no block under \"## $heading\"\n" unless @lines;
	return @lines;
}

sub run
{
	my ($cmd) = @_;
	my @out = `$cmd`;
	die "$cmd failed\n" if $?;
	chomp @out;
	return @out;
}

sub dir_of { my ($p) = @_; return $p =~ m{^(.*)/[^/]+$} ? $1 : ''; }

# ---- the layers: "a b" on one line are one level; a line is above the lines after it
my @order = doc_block('What may include what');
my %level;
for my $i (0 .. $#order)
{
	$level{$_} = scalar(@order) - $i for split ' ', $order[$i];
}

# src's files, by path under src/; a file's folder is its directory ("" for src/ itself, whose
# files (pg_compat.h) any file may include)
my @files = sort map { s{^src/}{}r } run("find src -name '*.[ch]'");
my %is_file = map { $_ => 1 } @files;
sub folder { my ($f) = @_; return dir_of($f); }

my (%file_edges, %folder_edges);	# "from" -> { "to" -> "why" }

sub allowed
{
	my ($from, $to) = @_;
	return 1 if $from eq $to || $to eq '';
	return 0 if $from eq '';
	return 0 unless defined $level{$from} && defined $level{$to};
	return $level{$to} < $level{$from};
}

my %unknown_reported;
sub layer
{
	my ($rule, $from_file, $to_file, $why) = @_;
	my ($from, $to) = (folder($from_file), folder($to_file));
	for my $d ($from, $to)
	{
		next if $d eq '' || defined $level{$d} || $unknown_reported{$d}++;
		bad('layers', "src/$d/ is not in the block under \"What may include what\" of $DOC");
	}
	if (allowed($from, $to)) { good(); }
	elsif (defined $level{$from} && defined $level{$to}) { bad($rule, "$why: $from/ may not use $to/ (" .
		($level{$to} == $level{$from} ? 'same level' : 'a higher level') . ")"); }
	$file_edges{$from_file}{$to_file} //= $why if $from_file ne $to_file;
	$folder_edges{$from}{$to} //= $why if $from ne $to && $from ne '' && $to ne '';
}

my $includes = 0;
for my $f (@files)
{
	open my $fh, '<', "src/$f" or die "src/$f: $!\n";
	while (<$fh>)
	{
		next unless /^\s*#\s*include\s+"([^"]+)"/;
		my $h = $1;
		my $target = $is_file{$h} ? $h : $is_file{dir_of($f) . "/$h"} ? dir_of($f) . "/$h" : undef;
		next unless defined $target;	# PostgreSQL's or the system's
		$includes++;
		layer('layers', $f, $target, "src/$f:$. includes \"$h\"");
	}
}

# the uses of one object's symbols by another
my (%defined_in, %uses, @missing);
for my $c (grep { /\.c$/ } @files)
{
	my $o = "src/" . ($c =~ s/\.c$/.o/r);
	if (!-f $o) { push @missing, $c; next; }
	for (run("nm -g --defined-only $o")) { $defined_in{$1} = $c if /^\S*\s+[A-Za-z]\s+(\S+)$/; }
	for (run("nm -u $o")) { push @{$uses{$c}}, $1 if /^\s*U\s+(\S+)$/; }
}
my $uses = 0;
for my $c (sort keys %uses)
{
	my %seen;
	for my $s (@{$uses{$c}})
	{
		my $d = $defined_in{$s};
		next unless defined $d && $d ne $c && !$seen{"$d $s"}++;
		$uses++;
		layer('layers (symbols)', $c, $d, "src/$c uses $s of src/$d");
	}
}
rule_done('layers', $includes);
rule_done('layers (symbols)', $uses);

# ---- cycles: the strongly connected components of a graph with more than one node (Tarjan)
sub cycles
{
	my ($edges) = @_;
	my ($index, @stack, %on, %idx, %low, @sccs) = (0);
	my %nodes = map { $_ => 1 } keys %$edges, map { keys %$_ } values %$edges;
	my $visit;
	$visit = sub {
		my ($v) = @_;
		$idx{$v} = $low{$v} = $index++;
		push @stack, $v; $on{$v} = 1;
		for my $w (sort keys %{$edges->{$v} // {}})
		{
			if (!defined $idx{$w}) { $visit->($w); $low{$v} = $low{$w} if $low{$w} < $low{$v}; }
			elsif ($on{$w}) { $low{$v} = $idx{$w} if $idx{$w} < $low{$v}; }
		}
		if ($low{$v} == $idx{$v})
		{
			my @scc;
			while (1) { my $w = pop @stack; $on{$w} = 0; push @scc, $w; last if $w eq $v; }
			push @sccs, [sort @scc] if @scc > 1;
		}
	};
	$visit->($_) for grep { !defined $idx{$_} } sort keys %nodes;
	return @sccs;
}

sub explain_cycle
{
	my ($edges, $scc) = @_;
	my %in = map { $_ => 1 } @$scc;
	return join '; ', map { my $a = $_; map { $edges->{$a}{$_} } grep { $in{$_} } sort keys %{$edges->{$a}} } @$scc;
}

my @folder_sccs = cycles(\%folder_edges);
bad('no cycle between folders', join(' <-> ', @$_) . ': ' . explain_cycle(\%folder_edges, $_)) for @folder_sccs;
good() unless @folder_sccs;
rule_done('no cycle between folders', scalar keys %folder_edges);

# inside each folder: the edges between its own files
my %inside;
for my $a (keys %file_edges)
{
	for my $b (keys %{$file_edges{$a}})
	{
		$inside{$a}{$b} = $file_edges{$a}{$b} if dir_of($a) eq dir_of($b);
	}
}
my @file_sccs = cycles(\%inside);
bad('no cycle between the files of a folder', join(' <-> ', @$_) . ': ' . explain_cycle(\%inside, $_)) for @file_sccs;
good() unless @file_sccs;
rule_done('no cycle between the files of a folder', scalar keys %inside);

# ---- size: the repository's C and SQL files (not the install scripts the build concatenates)
my @sources = -d '.git' ? run("git ls-files -- '*.c' '*.h' '*.sql'")
	: map { s{^\./}{}r } run("find . -name '*.[ch]' -o -name '*.sql'");
@sources = grep { !m{^sql/dpmatrix--} && !m{^(results|tmp_check|log|output_iso)/} && -f $_ } @sources;
for my $f (sort @sources)
{
	open my $fh, '<', $f or die "$f: $!\n";
	1 while <$fh>;
	if ($. > $MAX_LINES) { bad('size', "$f has $. lines (at most $MAX_LINES)"); } else { good(); }
}
rule_done('size', scalar @sources);

# ---- SQL parts: one part per number
my %part;
my @parts = sort glob('sql/[0-9][0-9]_*.sql');
for my $p (@parts)
{
	my ($n) = $p =~ m{^sql/(\d\d)_};
	if ($part{$n}) { bad('SQL part numbers', "$p has the number of $part{$n}"); } else { good(); }
	$part{$n} //= $p;
}
rule_done('SQL part numbers', scalar @parts);

# ---- names: what dpmatrix.so exports
my %prefixes;
for (doc_block('Names'))
{
	my ($d, @p) = split ' ';
	$d =~ s{/$}{};
	$prefixes{$d} = \@p;
}
my @exported = -f 'dpmatrix.so' ? grep { defined } map { /^\S*\s+[A-Za-z]\s+(\S+)$/ ? $1 : undef }
	run('nm -D --defined-only dpmatrix.so') : ();
bad('names', 'no dpmatrix.so: build first') unless @exported;
my $names = 0;
for my $s (sort @exported)
{
	my $c = $defined_in{$s};
	next unless defined $c;		# the linker's own (_init, _end...)
	$names++;
	if ($s =~ /^(dpm_|pg_finfo_)/ || $s eq '_PG_init' || $s eq 'Pg_magic_func') { good(); next; }
	my $d = folder($c);
	my %u;
	my @ok = grep { !$u{$_}++ } ((split m{/}, $d)[-1] . '_', @{$prefixes{$d} // []});
	if (grep { index($s, $_) == 0 } @ok) { good(); }
	else { bad('names', "$s (src/$c) starts with none of " . join(' ', @ok) . " (\"Names\" in $DOC)"); }
}
rule_done('names', $names);

# ---- every C file is built
bad('builds', "src/$_ has no object: the Makefile's OBJS misses it") for @missing;
good() unless @missing;
rule_done('builds', scalar grep { /\.c$/ } @files);

print "$passed passed, $failed failed\n";
exit($failed ? 1 : 0);
