#!/usr/bin/env bash
# odbc.sh -- a published release read over the wire the way BI tools read it: the PostgreSQL
# ODBC driver (psqlODBC, Debian's odbc-postgresql) through the unixODBC driver manager, driven
# from Python's pyodbc, logged in as a reporting role that holds no dpmatrix right but SELECT on
# the published view.  Lists the view and its column types through the driver's catalog
# functions (SQLTables, SQLColumns), reads and filters the rows, and checks that the role can
# reach nothing else.  Then an analyst's plain statements over the source, answered privately
# (issue 45).  Run by scripts/test.sh inside its throw-away cluster.
set -euo pipefail

DB=dpm_odbc
PASSWORD="odbc-$RANDOM$RANDOM"
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dpmatrix;
CREATE TABLE people AS
  SELECT g AS id, 10 + g % 60 AS age, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END AS sex
    FROM generate_series(1, 3000) g;
SELECT dpm.register_source('people', epsilon => 1e12);
SELECT dpm.create_domain('age_sex', 'people',
  '[{"name": "age_band", "column": "age", "bins": {"min": 10, "max": 70, "width": 20}}, {"name": "sex", "values": ["F", "M"]}]');
SELECT dpm.create_workload('pyramid', 'age_sex', 'Identity(age_band) * Identity(sex) + AllRange(age_band) + Total(age_band)');
CREATE TEMP TABLE a AS SELECT * FROM dpm.answer('pyramid', epsilon => 1, method => 'hierarchical');
CREATE SCHEMA reporting;
DROP ROLE IF EXISTS regress_odbc_reporter;
CREATE ROLE regress_odbc_reporter LOGIN PASSWORD '$PASSWORD';
GRANT USAGE ON SCHEMA reporting TO regress_odbc_reporter;
SELECT dpm.publish((SELECT max(id) FROM dpm.releases), 'reporting.population', 'regress_odbc_reporter');
-- an analyst whose plain statements are answered privately (at a budget so large that a count's
-- noise, sd under 0.01, rounds away)
SELECT count(*) FROM dpm.set_column_domains('people', '[{"column": "age", "bins": {"min": 10, "max": 70, "width": 10}},
                                                         {"column": "sex", "values": ["F", "M"]}]');
DROP ROLE IF EXISTS regress_odbc_analyst;
CREATE ROLE regress_odbc_analyst LOGIN PASSWORD '$PASSWORD' IN ROLE dpm_analyst;
ALTER ROLE regress_odbc_analyst SET session_preload_libraries = 'dpmatrix';
SELECT dpm.set_privacy_policy('people', 'regress_odbc_analyst', epsilon => 1e11, statement_epsilon => 1e8, plain_sql => true);
SQL

status=0
DPM_ODBC_CONN="DRIVER={PostgreSQL Unicode};SERVER=${PGHOST:-localhost};PORT=${PGPORT:-5432};DATABASE=$DB;UID=regress_odbc_reporter;PWD=$PASSWORD" \
DPM_ODBC_ANALYST="DRIVER={PostgreSQL Unicode};SERVER=${PGHOST:-localhost};PORT=${PGPORT:-5432};DATABASE=$DB;UID=regress_odbc_analyst;PWD=$PASSWORD" \
/usr/bin/python3 - <<'PY' || status=$?
import os, sys
import pyodbc

passed = failed = 0
def check(name, ok, detail=""):
    global passed, failed
    print(("ok     " if ok else "FAILED ") + name + ("" if ok else ": " + str(detail)))
    if ok:
        passed += 1
    else:
        failed += 1

con = pyodbc.connect(os.environ["DPM_ODBC_CONN"], autocommit=True)
cur = con.cursor()

views = [(t.table_schem, t.table_name, t.table_type) for t in cur.tables(schema="reporting")]
check("SQLTables lists the published view", ("reporting", "population", "VIEW") in views, views)

cols = {c.column_name: (c.data_type, c.type_name) for c in cur.columns(table="population", schema="reporting")}
expected = ["release_id", "released_at", "query", "label", "term", "term_spec", "age_band", "age_band_from", "age_band_to",
            "age_band_lo", "age_band_hi", "sex", "sex_from", "sex_to", "aggregate", "measure", "answer", "stderr", "ci_low",
            "ci_high", "confidence"]
check("SQLColumns gives one column per attribute", list(cols) == expected, list(cols))
check("answers are SQL_DOUBLE", all(cols[c][0] in (pyodbc.SQL_DOUBLE, pyodbc.SQL_FLOAT)
                                    for c in ("answer", "stderr", "ci_low", "ci_high")), cols)
check("release_id is SQL_BIGINT, query SQL_INTEGER",
      cols["release_id"][0] == pyodbc.SQL_BIGINT and cols["query"][0] == pyodbc.SQL_INTEGER, cols)
check("released_at is a timestamp", cols["released_at"][0] == pyodbc.SQL_TYPE_TIMESTAMP, cols)
check("term is SQL_INTEGER, term_spec character data", cols["term"][0] == pyodbc.SQL_INTEGER
      and cols["term_spec"][0] in (pyodbc.SQL_VARCHAR, pyodbc.SQL_LONGVARCHAR, pyodbc.SQL_WVARCHAR, pyodbc.SQL_WLONGVARCHAR), cols)
check("a run of bins has numeric bounds, for a chart's axis",
      all(cols[c][0] in (pyodbc.SQL_NUMERIC, pyodbc.SQL_DECIMAL) for c in ("age_band_lo", "age_band_hi")), cols)
check("attribute columns are character data",
      all(cols[c][0] in (pyodbc.SQL_VARCHAR, pyodbc.SQL_LONGVARCHAR, pyodbc.SQL_WVARCHAR, pyodbc.SQL_WLONGVARCHAR)
          for c in ("age_band", "sex", "age_band_from", "age_band_to")), cols)

rows = cur.execute("SELECT * FROM reporting.population ORDER BY query").fetchall()
# 3 x 2 cells, 6 ranges of 3 bands, 1 total
check("every query is a row", len(rows) == 13, len(rows))
check("intervals contain the answers", all(r.ci_low <= r.answer <= r.ci_high for r in rows))
cells = cur.execute("SELECT age_band, sex, answer FROM reporting.population "
                    "WHERE sex = ? AND age_band IS NOT NULL ORDER BY age_band", "F").fetchall()
check("a dashboard filters on an attribute without parsing labels",
      [c.age_band for c in cells] == ["[10,30)", "[30,50)", "[50,70)"], [tuple(c) for c in cells])
ranges = cur.execute("SELECT age_band_from, age_band_to FROM reporting.population "
                     "WHERE sex IS NULL AND age_band IS NULL AND age_band_from IS NOT NULL ORDER BY query").fetchall()
# (the range of all three bands is a total: it puts no condition on age_band)
check("ranges carry their first and last band", [tuple(r) for r in ranges] ==
      [("[10,30)", "[30,50)"), ("[30,50)", "[50,70)")], [tuple(r) for r in ranges])
total = cur.execute("SELECT age_band, age_band_from, sex FROM reporting.population WHERE label LIKE 'total%'").fetchall()
check("total rows have no attribute condition", len(total) == 2 and all(tuple(t) == (None, None, None) for t in total),
      [tuple(t) for t in total])

for what, sql in [("the catalog", "SELECT count(*) FROM dpm.releases"),
                  ("dpm.answer", "SELECT * FROM dpm.answer('pyramid', epsilon => 1)"),
                  ("the source", "SELECT count(*) FROM public.people")]:
    try:
        cur.execute(sql).fetchall()
        check("the reporting role cannot reach " + what, False, "it could")
    except pyodbc.Error as e:
        check("the reporting role cannot reach " + what, "permission denied" in str(e), e)

# plain SQL, as a BI tool sends it: the statement's own columns and types, a parameter, a refusal
analyst = pyodbc.connect(os.environ["DPM_ODBC_ANALYST"], autocommit=True).cursor()
tables = [t.table_name for t in analyst.tables(table="people", schema="public")]
source_cols = [c.column_name for c in analyst.columns(table="people", schema="public")]
check("the source and its columns are listed to the analyst (SQLTables, SQLColumns)",
      tables == ["people"] and source_cols == ["id", "age", "sex"], (tables, source_cols))
rows = analyst.execute("SELECT sex, count(*) AS n FROM people GROUP BY sex ORDER BY sex").fetchall()
check("a plain statement is answered privately", [tuple(r) for r in rows] == [("F", 1500), ("M", 1500)],
      [tuple(r) for r in rows])
check("its columns are the statement's, a count an integer",
      [d[0] for d in analyst.description] == ["sex", "n"] and analyst.description[1][1] is int, analyst.description)
n = analyst.execute("SELECT count(*) FROM people WHERE sex = ? AND age >= ?", "M", 30).fetchval()
check("a statement with parameters", n == 1000, n)
try:
    analyst.execute("SELECT * FROM people").fetchall()
    check("rows are refused", False, "they were returned")
except pyodbc.Error as e:
    check("rows are refused", "SQL front door does not support" in str(e), e)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY

psql -X -q -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE regress_odbc_reporter" -c "DROP ROLE regress_odbc_analyst" || true
exit $status
