#!/usr/bin/env bash
# jdbc.sh -- plain SQL over a source from pgJDBC (Debian's libpostgresql-jdbc-java, the driver
# Metabase, DBeaver and Tableau use), the way a BI tool sends it: an analyst whose privacy policy
# says plain_sql, the library loaded at connection (session_preload_libraries), typing the
# statement as if she could read the table.  Checks the statement's own columns and JDBC types, a
# prepared statement with a parameter executed past pgJDBC's switch to a named server-side
# statement, a cursor read in batches (setFetchSize), the catalog the tool lists tables and columns
# from, and that selecting rows is refused with a message a BI user understands.  Counts are
# compared with the truth at a budget so large that a count's noise (sd under 0.01) rounds away.
# Run by scripts/test.sh inside its throw-away cluster.
set -euo pipefail

DB=dpm_jdbc
PASSWORD="jdbc-$RANDOM$RANDOM"
JAR=/usr/share/java/postgresql.jar
if [ ! -f "$JAR" ] || ! command -v java >/dev/null; then
	echo "jdbc.sh: no $JAR or java (scripts/setup.sh installs libpostgresql-jdbc-java and a JDK)"
	echo "0 passed, 1 failed"
	exit 1
fi
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<SQL
SET client_min_messages = warning;
CREATE EXTENSION dpmatrix;
CREATE TABLE people AS
  SELECT g AS id, 10 + g % 60 AS age, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END AS sex,
         (ARRAY['north', 'south', 'east', 'west'])[1 + g % 4] AS region, (g % 100)::numeric AS spent
    FROM generate_series(1, 4000) g;
SELECT dpm.register_source('people', epsilon => 1e12);
SELECT count(*) FROM dpm.set_column_domains('people', '[
  {"column": "age", "bins": {"min": 10, "max": 70, "width": 10}},
  {"column": "sex", "values": ["F", "M"]},
  {"column": "region", "values": ["north", "south", "east", "west"]},
  {"column": "spent", "measure": {"lo": 0, "hi": 100}}]');
DROP ROLE IF EXISTS regress_jdbc_analyst;
CREATE ROLE regress_jdbc_analyst LOGIN PASSWORD '$PASSWORD' IN ROLE dpm_analyst;
ALTER ROLE regress_jdbc_analyst SET session_preload_libraries = 'dpmatrix';
SELECT dpm.set_privacy_policy('people', 'regress_jdbc_analyst', epsilon => 1e11, statement_epsilon => 1e8,
                              plain_sql => true);
SQL
TRUTH=$(psql -X -q -At -d "$DB" -c "SELECT string_agg(region || '=' || n, ',' ORDER BY region)
                                     FROM (SELECT region, count(*) AS n FROM people GROUP BY region) t")

dir=$(mktemp -d)
cat >"$dir/PlainSql.java" <<'JAVA'
import java.sql.*;
import java.util.*;

public class PlainSql {
    static int passed = 0, failed = 0;

    static void check(String name, boolean ok, Object detail) {
        System.out.println((ok ? "ok     " : "FAILED ") + name + (ok ? "" : ": " + detail));
        if (ok) passed++; else failed++;
    }

    public static void main(String[] args) throws Exception {
        Map<String, Long> truth = new TreeMap<>();
        for (String kv : System.getenv("DPM_TRUTH").split(","))
            truth.put(kv.split("=")[0], Long.parseLong(kv.split("=")[1]));
        try (Connection c = DriverManager.getConnection(System.getenv("DPM_JDBC_URL"), "regress_jdbc_analyst",
                                                        System.getenv("DPM_JDBC_PASSWORD"))) {
            // a plain statement: its own columns, with their types
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT region, count(*) AS n, avg(spent) AS mean FROM people "
                                              + "GROUP BY region ORDER BY region")) {
                ResultSetMetaData m = r.getMetaData();
                check("the statement's columns", m.getColumnCount() == 3 && m.getColumnLabel(1).equals("region")
                      && m.getColumnLabel(2).equals("n") && m.getColumnLabel(3).equals("mean"), m.getColumnCount());
                check("a count is BIGINT", m.getColumnType(2) == Types.BIGINT, m.getColumnTypeName(2));
                check("an average of a numeric column is NUMERIC", m.getColumnType(3) == Types.NUMERIC,
                      m.getColumnTypeName(3));
                Map<String, Long> got = new TreeMap<>();
                while (r.next())
                    got.put(r.getString(1), r.getLong(2));
                check("the counts, in the statement's order", got.equals(truth), got + " vs " + truth);
            }
            // a prepared statement with a parameter, past the fifth execution (a named server-side statement)
            try (PreparedStatement p = c.prepareStatement("SELECT count(*) AS n FROM people WHERE region = ?")) {
                boolean all = true;
                for (int i = 0; i < 7; i++) {
                    String region = i % 2 == 0 ? "north" : "east";
                    p.setString(1, region);
                    try (ResultSet r = p.executeQuery()) {
                        all &= r.next() && r.getLong(1) == truth.get(region);
                    }
                }
                check("a prepared statement's parameter is bound each time", all, "");
            }
            // a cursor, read two rows at a time
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.setFetchSize(2);
                try (ResultSet r = s.executeQuery("SELECT region, sex, count(*) FROM people GROUP BY region, sex")) {
                    int rows = 0;
                    long total = 0;
                    while (r.next()) {
                        rows++;
                        total += r.getLong(3);
                    }
                    check("a cursor reads every group", rows == 8 && total == 4000, rows + " rows, " + total);
                }
            }
            c.commit();
            c.setAutoCommit(true);
            // the catalog a tool lists tables and columns from
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet t = md.getTables(null, "public", "people", null)) {
                check("the source is listed", t.next(), "not listed");
            }
            List<String> cols = new ArrayList<>();
            try (ResultSet r = md.getColumns(null, "public", "people", null)) {
                while (r.next())
                    cols.add(r.getString("COLUMN_NAME"));
            }
            check("its columns are listed", cols.equals(List.of("id", "age", "sex", "region", "spent")), cols);
            // rows are refused, saying why
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT * FROM people LIMIT 10");
                check("selecting rows is refused", false, "it was answered");
            } catch (SQLException e) {
                check("selecting rows is refused", e.getMessage().contains("SQL front door does not support SELECT without aggregates"),
                      e.getMessage());
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
JAVA

status=0
DPM_TRUTH=$TRUTH DPM_JDBC_PASSWORD=$PASSWORD \
DPM_JDBC_URL="jdbc:postgresql://localhost:${PGPORT:-5432}/$DB" \
	java -cp "$JAR" "$dir/PlainSql.java" || status=$?
rm -rf "$dir"
psql -X -q -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE regress_jdbc_analyst" || true
exit $status
