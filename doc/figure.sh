#!/usr/bin/env bash
# figure.sh -- the README's picture, doc/strategies.png, from real output: the ratio of each
# strategy's expected total error to the SVD lower bound (no strategy can go below 1) on a few
# workloads, under Gaussian noise, from dpm.optimize and the ratio it stores, on a throw-away cluster.  Needs
# dpmatrix installed (scripts/setup.sh); installs gnuplot (gnuplot-nox) if missing.
#   doc/figure.sh            writes doc/strategies.png and prints the numbers plotted
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != --in-cluster ]; then
	if ! command -v gnuplot >/dev/null; then
		sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends gnuplot-nox >/dev/null
	fi
	exec pg_virtualenv -t -v 15 -c "--locale=C.UTF-8 --encoding=UTF8" "$0" --in-cluster
fi

createdb dpm_figure
dat=$(mktemp -t dpmatrix-figure.XXXXXX)
tab=$(mktemp -t dpmatrix-figure.XXXXXX)
trap 'rm -f "$dat" "$tab"' EXIT
psql -X -q -v ON_ERROR_STOP=1 -d dpm_figure -o /dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION dpmatrix;
CREATE TABLE t AS SELECT g % 128 AS a, g % 8 AS b, g % 4 AS c, g % 2 AS d, g % 7 AS e FROM generate_series(1, 1000) g;
SELECT dpm.register_source('t', epsilon => 1, delta => 1e-6);
SELECT dpm.create_domain('one', 't', '[{"name": "a", "bins": {"min": 0, "max": 128, "width": 1}}]');
SELECT dpm.create_domain('four', 't', '[{"name": "e", "values": [0,1,2,3,4,5,6,7]},
  {"name": "b", "values": [0,1,2,3,4,5,6,7]}, {"name": "c", "values": [0,1,2,3]}, {"name": "d", "values": [0,1]}]');
SELECT dpm.create_workload('All ranges (128)', 'one', 'AllRange(a)');
SELECT dpm.create_workload('Prefix sums (128)', 'one', 'Prefix(a)');
SELECT dpm.create_workload('2-way marginals (512)', 'four',
  'Marginal(e, b) + Marginal(e, c) + Marginal(e, d) + Marginal(b, c) + Marginal(b, d) + Marginal(c, d)');
SQL
# (the strategy ids first: a statement does not see the rows dpm.optimize inserts during it)
psql -X -q -At -F $'\t' -d dpm_figure -c "SET client_min_messages = warning" -c "
CREATE TEMP TABLE ids AS
SELECT w.id AS wid, w.name, m.method, m.k, dpm.optimize(w.name, m.method, epsilon => 1, delta => 1e-6) AS sid
  FROM dpm.workloads w,
       unnest(ARRAY['identity', 'hierarchical', 'wavelet', 'eigen', 'gaussian_optimal', 'hdmm']) WITH ORDINALITY m(method, k)" -c "
SELECT '\"' || i.name || '\"', i.method, round(s.ratio_to_bound::numeric, 4)
  FROM ids i JOIN dpm.strategies s ON s.id = i.sid ORDER BY i.wid, i.k" >"$dat"
dropdb dpm_figure

gnuplot -e "dat='$dat'; tab='$tab'" - <<'GP'
set terminal pngcairo size 900,420 font "DejaVu Sans,10" noenhanced
set output "doc/strategies.png"
set title "Expected total error / SVD lower bound (Gaussian noise; 1 = no strategy can do better)"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xrange [-0.6:2.6]
set logscale y 2
set yrange [0.9:*]
set ytics (1, 1.5, 2, 4, 8, 16, 32, 64)
set grid ytics
set key outside right
set datafile separator "\t"
methods = "identity hierarchical wavelet eigen gaussian_optimal hdmm"
# one row per workload, one column per method
system("awk -F'\\t' '{v[$1\"|\"$2]=$3; if(!($1 in seen)){seen[$1]=1; order[++n]=$1}} END{split(\"identity hierarchical wavelet eigen gaussian_optimal hdmm\", m, \" \"); for(i=1;i<=n;i++){printf \"%s\", order[i]; for(j=1;j<=6;j++){k=order[i]\"|\"m[j]; printf \"\\t%s\", (k in v)?v[k]:\"NaN\"} printf \"\\n\"}}' ".dat." > ".tab)
plot for [j=2:7] tab using j:xtic(1) title word(methods, j-1)
GP
echo "wrote doc/strategies.png from:"
cat "$dat"
