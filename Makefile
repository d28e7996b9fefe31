# dpmatrix: PGXS build. Every .c under src/ (in a folder, or a folder of one: src/strategy/hdmm/) is part of the module.
EXTENSION = dpmatrix
EXTVERSION = 0.3

MODULE_big = dpmatrix
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*/*.c src/*/*/*.c)))

# The SQL is written in parts, one concern each, assembled in the order of their numbers.  The
# install script is every part.  Update scripts chain, as TimescaleDB's do: each version's own
# changes are sql/updates/FROM--TO.sql, and the script from any older version OLD is the changes
# of every step from OLD to $(EXTVERSION), in order, followed by every part that can run again
# (all but 00_schema and 02_catalog, which only create), so each function is written once.
SQL_PARTS = $(sort $(wildcard sql/[0-9][0-9]_*.sql))
SQL_ONCE = sql/00_schema.sql sql/02_catalog.sql
SQL_AGAIN = $(filter-out $(SQL_ONCE),$(SQL_PARTS))
SQL_STEPS = $(wildcard sql/updates/*--*.sql)
# the versions an update starts from: the FROM of every step
SQL_OLD_VERSIONS = $(foreach s,$(SQL_STEPS),$(firstword $(subst --, ,$(notdir $(s)))))
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql \
	$(foreach v,$(SQL_OLD_VERSIONS),sql/$(EXTENSION)--$(v)--$(EXTVERSION).sql)

TESTS = $(sort $(wildcard test/sql/*.sql))
REGRESS = $(patsubst test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test --load-extension=$(EXTENSION)
# isolation specs (isolationtester): budget races, pinned with locks (test/isolation/specs/*.spec)
ISOLATION_SPECS = $(sort $(wildcard test/isolation/specs/*.spec))
ISOLATION = $(patsubst test/isolation/specs/%.spec,%,$(ISOLATION_SPECS))
ISOLATION_OPTS = --inputdir=test/isolation
# no progress NOTICEs in the expected files: when they appear depends on the machine's speed; and
# every dpm.answer measures, as the tests were written for (reuse is tested where it is asked for:
# test/sql/estimates.sql); and method auto tries every candidate, however slow the machine (its
# time budget is tested where it is set: test/sql/optimizers.sql)
export PGOPTIONS = -c dpm.progress_interval=0 -c dpm.reuse=never -c dpm.auto_time_budget=-1
# TAP tests (PostgreSQL::Test::Cluster), each on clusters of its own, for what pg_regress cannot do:
# crashes, restarts, shared_preload_libraries, settings changed with a reload, dump and restore
TAP_TESTS = 1
PROVE_TESTS = $(sort $(wildcard test/t/*.pl))

PG_CONFIG ?= pg_config
PG_CPPFLAGS = -I$(srcdir)/src -std=gnu11 -Wall -Wmissing-prototypes
SHLIB_LINK = -lopenblas -llbfgsb -lm

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# a change to a header rebuilds what includes it (Debian's PGXS has no autodepend): gcc writes
# each object's dependencies next to it, for the object and its JIT bitcode
override CFLAGS += -MMD -MP -MT $@ -MT $(@:.o=.bc)
-include $(OBJS:.o=.d)
EXTRA_CLEAN += $(OBJS:.o=.d)

sql/$(EXTENSION)--$(EXTVERSION).sql: $(SQL_PARTS)
	cat $^ >$@

# the steps from $* on, by version order (sort -V: 0.10 after 0.9), then the parts
sql/$(EXTENSION)--%--$(EXTVERSION).sql: $(SQL_STEPS) $(SQL_AGAIN)
	cat $$(ls $(SQL_STEPS) | sort -V | sed -n '\|/$*--|,$$p') $(SQL_AGAIN) >$@
