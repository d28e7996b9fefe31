-- dpmatrix: differentially private linear counting queries with the matrix mechanism.
-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION dpmatrix" to load this file. \quit

-- The install script is assembled from the parts sql/NN_*.sql in the order of their numbers
-- (see the Makefile); the parts from 01 on are also the body of every update script, so each
-- of them can run again over an installed version: CREATE OR REPLACE only.  This part and
-- 02_catalog.sql run once, at install; an update script changes what they made itself.

-- The extension creates its schemas: a schema planted in advance makes the install fail instead
-- of being trusted.  dpm holds the interface the README documents; dpm_internal what it is built
-- from, which no analyst may call.
CREATE SCHEMA dpm;
COMMENT ON SCHEMA dpm IS 'dpmatrix: differentially private answers to linear counting queries';
CREATE SCHEMA dpm_internal;
COMMENT ON SCHEMA dpm_internal IS 'dpmatrix internals: called by the functions of schema dpm; not a stable interface';
