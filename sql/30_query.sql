-- The SQL front door (issue 44): an analyst's SELECT, compiled to the matrix mechanism.

-- The statement parsed and analyzed by PostgreSQL, described as the front door maps it (source,
-- grouping columns, aggregates, the WHERE condition), or refused naming what is not supported
-- (src/query/compile.c).  SECURITY INVOKER: analysis runs as the caller.
CREATE OR REPLACE FUNCTION dpm_internal.compile_query(sql text) RETURNS jsonb
AS 'MODULE_PATHNAME', 'dpm_compile_query' LANGUAGE C VOLATILE STRICT;
