# dpmatrix: PGXS build. Every .c under src/ is part of the module.
EXTENSION = dpmatrix
EXTVERSION = 0.1

MODULE_big = dpmatrix
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*/*.c)))

DATA = sql/$(EXTENSION)--$(EXTVERSION).sql
EXTRA_CLEAN = sql/$(EXTENSION)--$(EXTVERSION).sql

TESTS = $(sort $(wildcard test/sql/*.sql))
REGRESS = $(patsubst test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=test --load-extension=$(EXTENSION)
# isolation specs (isolationtester): budget races, pinned with locks (test/isolation/specs/*.spec)
ISOLATION_SPECS = $(sort $(wildcard test/isolation/specs/*.spec))
ISOLATION = $(patsubst test/isolation/specs/%.spec,%,$(ISOLATION_SPECS))
ISOLATION_OPTS = --inputdir=test/isolation
# no progress NOTICEs in the expected files: when they appear depends on the machine's speed
export PGOPTIONS = -c dpm.progress_interval=0

PG_CONFIG ?= pg_config
PG_CPPFLAGS = -I$(srcdir)/src -std=gnu11 -Wall -Wmissing-prototypes
SHLIB_LINK = -lopenblas -llbfgsb -lm

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The install script is kept unversioned and copied to the versioned name at build time.
sql/$(EXTENSION)--$(EXTVERSION).sql: sql/$(EXTENSION).sql
	cp $< $@

all: sql/$(EXTENSION)--$(EXTVERSION).sql
