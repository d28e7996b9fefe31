/*
 * workload.h -- workloads over a domain: the spec algebra, the per-attribute
 * query blocks it is built from, and a readable label for every query.
 *
 * A workload is a union of terms; a term is the Kronecker product of one
 * block per domain attribute, in domain order (Total for the attributes a
 * term does not mention), because cells are numbered in mixed radix with the
 * last attribute varying fastest.  Plain C over linalg's Mat: nothing here
 * knows fmgr.
 */
#ifndef DPM_WORKLOAD_H
#define DPM_WORKLOAD_H

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"

#include "linalg/linalg.h"

/* one attribute of a domain: its bins, in order */
typedef struct WorkloadAttr
{
	char	   *name;
	int			size;			/* number of bins, k >= 1 */
	char	  **labels;			/* k bin labels */
	double	   *lo;				/* k lower bounds; NaN for bins that are not intervals */
	double	   *hi;				/* k exclusive upper bounds; NaN likewise */
	bool		is_interval;	/* every bin is a numeric interval (set by the check) */
	bool		is_ordered;		/* and each starts where the one before ends (likewise) */
} WorkloadAttr;

typedef struct WorkloadDomain
{
	int			nattrs;
	WorkloadAttr *attrs;
	/*
	 * n = product of the sizes (set by the check); 0 for a wide domain, one
	 * with no dense cell index (dpm.domains.n NULL): only what a marginal
	 * workload needs is ever built over it
	 */
	int			cells;
	bool		wide;
	char	   *name;			/* the domain's, for messages; may be NULL */
} WorkloadDomain;

typedef enum BlockKind
{
	BLOCK_IDENTITY,
	BLOCK_TOTAL,
	BLOCK_PREFIX,
	BLOCK_ALLRANGE,
	BLOCK_HIERARCHICAL,
	BLOCK_RANGES
} BlockKind;

/*
 * The queries of one term on one attribute.  The row count is known without
 * building the matrix, so the size of a whole workload can be checked
 * before anything large is allocated.
 */
typedef struct WorkloadBlock
{
	BlockKind	kind;
	int			size;			/* k, the attribute's bins */
	double		rows;			/* queries in the block */
	int			branching;		/* BLOCK_HIERARCHICAL only */
	Mat		   *matrix;			/* rows x k; built on first use, given for Ranges */
	/* row r counts bins lo[r] .. hi[r] - 1 (workload_block_runs); NULL if not built or no runs */
	int		   *lo;
	int		   *hi;
	bool		runs_checked;	/* workload_block_runs has looked: NULL lo means some row is no run */
} WorkloadBlock;

/* a product term: one block per attribute, NULL meaning Total */
typedef struct WorkloadTerm
{
	WorkloadBlock **blocks;
	int		   *where;			/* spec position of each block, for error messages */
	double		weight;			/* how much its queries matter: 3 * Total(a); 1 by default */
} WorkloadTerm;

typedef struct Workload
{
	Mat		   *matrix;			/* m x n, one query a row; NULL when not built */
	char	  **labels;			/* m labels */
	double	   *weights;		/* m query weights, NULL when all are 1 */
	/*
	 * m x 2d, row-major: for query q and attribute a, the first and last bin
	 * (1-based) of the contiguous run it counts, 0 and 0 when it puts no
	 * condition on a, -1 and -1 when the condition is not such a run
	 */
	int		   *spans;
} Workload;

/* workload.c */
extern void workload_domain_check(WorkloadDomain *dom);
/* an error unless the domain has a dense cell index, naming what needed one */
extern void workload_require_dense(const WorkloadDomain *dom, const char *what);
extern double workload_rows(const WorkloadDomain *dom, List *terms);
extern int	workload_count(const WorkloadDomain *dom, List *terms);
extern void workload_check_size(const WorkloadDomain *dom, List *terms);
/* the matrix (unless want_matrix is false: NULL), the labels and the spans (unless want_spans is false) */
extern Workload *workload_build(const WorkloadDomain *dom, List *terms, bool want_matrix, bool want_spans);
/* per query, in order: its number (0-based), weight, label and, when asked for, its 2d spans */
typedef void (*WorkloadQueryFn) (void *arg, int query, double weight, const char *label, const int *span);
extern void workload_each_query(const WorkloadDomain *dom, List *terms, bool want_spans,
								WorkloadQueryFn fn, void *arg);

/* spec_gram.c: W^T W of a parsed spec, n x n, without W */
extern Mat *workload_gram(const WorkloadDomain *dom, List *terms);

/*
 * W^T W as a sum over the terms of Kronecker products, kept as factors:
 * factors[t][a] is the Gram matrix of term t's block on attribute a.
 */
typedef struct KronGram
{
	int			nterms;
	int			nattrs;
	int		   *sizes;			/* bins per attribute */
	Mat		 ***factors;			/* the first factor of each term carries its weight^2 */
	BlockKind **kinds;			/* the block behind each factor */
	double	   *weights;		/* weight^2 of each term */
} KronGram;

extern KronGram *workload_kron_gram(const WorkloadDomain *dom, List *terms);
/*
 * each term's blocks, blocks[t][a], with their runs (or, for Ranges that are
 * not runs, their matrices) built: never a matrix of a block that has runs;
 * *m receives the number of queries
 */
extern WorkloadBlock ***workload_blocks(const KronGram *kg, List *terms, double *m);

/*
 * marginals.c: the terms as marginals, for ResidualPlanner: term j keeps
 * attrs[j * width ..] (1-based, increasing, 0 pads) with weight
 * weights[j]; (*blocks)[j * width + c] is the block on kept attribute c of
 * term j, NULL for Identity: the term's queries are that block's rows over
 * the marginal.
 */
extern void workload_marginals(const WorkloadDomain *dom, List *terms, int **attrs, int *width,
							   double **weights, WorkloadBlock ***blocks);
/* per row of the block, the sum of its squared entries and the sum of its entries */
extern void workload_block_moments(WorkloadBlock *b, double *sq, double *sum);
/* out[r * out_stride] = row r of the block times the line x[c * stride], c < size */
extern void workload_block_apply(WorkloadBlock *b, const double *x, int stride, double *out, int out_stride);

/*
 * spec.c: parse a spec into a list of WorkloadTerm (blocks not yet built).
 * A spec is at most WORKLOAD_SPEC_MAX_BYTES long: 2 MB is 70,000 terms such
 * as "Identity(age) * Total(sex) + ", over 300 times the longest spec of the
 * tests, README and benchmarks but bench/spec_parse.sql's, and parses in a
 * fraction of a second.  A constant, not a setting: a stored spec is parsed
 * again by every release of it, even after its charge, and must not be
 * refused then by a limit lowered since.
 */
#define WORKLOAD_SPEC_MAX_BYTES (2 * 1024 * 1024)
extern List *workload_parse(const WorkloadDomain *dom, const char *spec);

/* blocks.c */
extern WorkloadBlock *workload_block_new(BlockKind kind, int size, int branching);
extern WorkloadBlock *workload_block_ranges(int size, List *rows);
extern bool workload_block_runs(WorkloadBlock *b);
extern Mat *workload_block_matrix(WorkloadBlock *b);
extern void workload_range_by_bounds(const WorkloadAttr *attr, double lo, double hi, double *row);
extern void workload_range_by_labels(const WorkloadAttr *attr, const char *first, const char *last,
							double *row);

/* labels.c */
extern void workload_append_number(StringInfo buf, double x);
extern void workload_append_interval(StringInfo buf, double lo, double hi);
extern void workload_append_list(StringInfo buf, char *const *items, int count);
extern bool workload_attr_covers_all(const WorkloadAttr *attr);
extern void workload_append_coverage(StringInfo buf, const WorkloadAttr *attr);
/* from the block's runs if workload_block_runs built them, else from its matrix */
extern char *workload_block_row_condition(const WorkloadAttr *attr, WorkloadBlock *block, int row);
/* the bins one block row counts: 0, 0 for all; first, last (1-based) for a run of ones; else -1, -1 */
extern void workload_block_row_span(WorkloadBlock *block, int row, int *first, int *last);

#endif
