/*
 * domain.h -- one attribute of a domain definition (dpm.create_domain),
 * checked and turned into its bins and the SQL expression that gives a
 * row's bin.
 *
 * The definition is JSON:
 *   {"name": ..., "column": ..., "values": [...]}
 *   {"name": ..., "column": ..., "bins": {"min": ..., "max": ..., "width": ...}}
 *   {"name": ..., "column": ..., "bins": [{"label", "lo", "hi"} or {"label", "condition"}, ...]}
 * with "expression": an SQL expression over the source's columns in place of
 * "column".
 * The expression is stored in dpm.domains and checked there against the
 * source (dpm_internal.check_cells, src/security/safe_expr.c): only its text is made
 * here.  Plain C: the source's columns come through a callback, so that
 * nothing here needs a backend and the parser can be fuzzed.
 */
#ifndef DPM_DOMAIN_DOMAIN_H
#define DPM_DOMAIN_DOMAIN_H

/* the relation an attribute's column belongs to */
typedef struct DomainSource
{
	const char *name;			/* as messages show it */
	/* the column's type as format_type prints it with its typmod, or NULL if there is no such column */
	char	   *(*column_type) (void *arg, const char *column);
	/* a custodian's expression's type, likewise; raises the error of one that is not an expression */
	char	   *(*expression_type) (void *arg, const char *expr);
	/* NULL when a literal reads as a value of the type (as format_type prints it), else why not */
	char	   *(*value_error) (void *arg, const char *type, const char *literal, int *sqlstate);
	void	   *arg;
	int			max_cells;		/* dpm.max_cells */
} DomainSource;

typedef struct DomainAttr
{
	char	   *name;
	char	   *column;
	int			nbins;
	char	  **labels;
	double	   *lo;				/* NaN for bins that are not intervals; -Infinity if open */
	double	   *hi;				/* NaN likewise; Infinity if open */
	char	   *expr;			/* SQL: the 0-based bin of a row, NULL if in none */
} DomainAttr;

/*
 * One attribute from its JSON (json.h; NULL: an SQL NULL, which has no
 * name).  Raises the errors of an invalid definition.
 */
struct DomainJson;
extern DomainAttr *domain_attribute_parse(const struct DomainJson *attr, const DomainSource *src);

#endif
