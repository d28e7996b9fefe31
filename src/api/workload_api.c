/*
 * workload_api.c -- SQL entry point of the workload spec parser: converts the
 * domain passed as a dpm.domains row, calls workload_build, and returns the
 * matrix with one label per query.  Argument checks and conversion only.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "api/args.h"
#include "api/workload_api.h"
#include "workload/workload.h"

/* the elements of a one-dimensional array without NULLs; *count may be 0 */
static Datum *
array_elements(ArrayType *arr, const char *argname, Oid type, int16 typlen,
			   bool byval, char align, int *count)
{
	Datum	   *elems;
	bool	   *nulls;

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a one-dimensional array", argname)));
	Assert(ARR_ELEMTYPE(arr) == type);
	deconstruct_array(arr, type, typlen, byval, align, &elems, &nulls, count);
	for (int i = 0; i < *count; i++)
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain NULL values", argname)));
	return elems;
}

static void
check_length(const char *argname, int count, const char *per, int64 expected)
{
	if (count != expected)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must have one element per %s (" INT64_FORMAT "), not %d",
						argname, per, expected, count)));
}

/* a field of a dpm.domains row: an array, not NULL */
static ArrayType *
domain_field(HeapTupleHeader row, const char *name)
{
	bool		isnull;
	Datum		d = GetAttributeByName(row, name, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the domain's %s must not be NULL", name)));
	return DatumGetArrayTypeP(d);
}

/* the domain passed as argument 1, a row of dpm.domains, checked */
void
api_domain_arg_wide(FunctionCallInfo fcinfo, WorkloadDomain *dom)
{
	HeapTupleHeader row = PG_GETARG_HEAPTUPLEHEADER(1);
	bool		isnull;
	Datum		name = GetAttributeByName(row, "name", &isnull);
	Datum	   *names,
			   *sizes,
			   *labels,
			   *lo,
			   *hi;
	int			nnames,
				nsizes,
				nlabels,
				nlo,
				nhi;
	int64		bins = 0;
	int			first = 0;

	names = array_elements(domain_field(row, "attr_names"), "attr_names", TEXTOID, -1, false,
						   TYPALIGN_INT, &nnames);
	sizes = array_elements(domain_field(row, "attr_sizes"), "attr_sizes", INT4OID, sizeof(int32),
						   true, TYPALIGN_INT, &nsizes);
	labels = array_elements(domain_field(row, "bin_labels"), "bin_labels", TEXTOID, -1, false,
							TYPALIGN_INT, &nlabels);
	/* NaN is allowed here: it marks bins that are not numeric intervals */
	lo = array_elements(domain_field(row, "bin_lo"), "bin_lo", FLOAT8OID, sizeof(float8),
						FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &nlo);
	hi = array_elements(domain_field(row, "bin_hi"), "bin_hi", FLOAT8OID, sizeof(float8),
						FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &nhi);

	if (nnames == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attr_names must not be empty")));
	check_length("attr_sizes", nsizes, "attribute", nnames);
	for (int a = 0; a < nsizes; a++)
	{
		/* checked here because the sizes slice the flat bin arrays */
		if (DatumGetInt32(sizes[a]) < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("attr_sizes must be positive, got %d for attribute \"%s\"",
							DatumGetInt32(sizes[a]), TextDatumGetCString(names[a]))));
		bins += DatumGetInt32(sizes[a]);
	}
	check_length("bin_labels", nlabels, "bin", bins);
	check_length("bin_lo", nlo, "bin", bins);
	check_length("bin_hi", nhi, "bin", bins);

	dom->name = isnull ? NULL : TextDatumGetCString(name);
	(void) GetAttributeByName(row, "n", &dom->wide);
	dom->nattrs = nnames;
	dom->attrs = palloc0(sizeof(WorkloadAttr) * nnames);
	for (int a = 0; a < nnames; a++)
	{
		WorkloadAttr *attr = &dom->attrs[a];

		attr->name = TextDatumGetCString(names[a]);
		attr->size = DatumGetInt32(sizes[a]);
		attr->labels = palloc(sizeof(char *) * attr->size);
		attr->lo = palloc(sizeof(double) * attr->size);
		attr->hi = palloc(sizeof(double) * attr->size);
		for (int j = 0; j < attr->size; j++)
		{
			attr->labels[j] = TextDatumGetCString(labels[first + j]);
			attr->lo[j] = DatumGetFloat8(lo[first + j]);
			attr->hi[j] = DatumGetFloat8(hi[first + j]);
		}
		first += attr->size;
	}
	workload_domain_check(dom);
}

void
api_domain_arg(FunctionCallInfo fcinfo, WorkloadDomain *dom)
{
	api_domain_arg_wide(fcinfo, dom);
	workload_require_dense(dom, get_func_name(fcinfo->flinfo->fn_oid));
}

PG_FUNCTION_INFO_V1(dpm_workload_matrix);
Datum
dpm_workload_matrix(PG_FUNCTION_ARGS)
{
	char	   *spec = text_to_cstring(PG_GETARG_TEXT_PP(0));
	WorkloadDomain dom;
	Workload   *w;
	Datum	   *label_datums;
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	bool		want_matrix,
				want_spans;
	List	   *terms;
	int			m;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	api_domain_arg_wide(fcinfo, &dom);

	/* dense => false: the labels only, for workloads answered implicitly; spans => false: no spans */
	want_matrix = PG_NARGS() <= SPEC_ARGS || PG_GETARG_BOOL(SPEC_ARGS);
	want_spans = PG_NARGS() <= SPEC_ARGS + 1 || PG_GETARG_BOOL(SPEC_ARGS + 1);
	terms = workload_parse(&dom, spec);
	m = workload_count(&dom, terms);
	w = workload_build(&dom, terms, want_matrix, want_spans);

	label_datums = palloc_extended(sizeof(Datum) * Max(m, 1), MCXT_ALLOC_HUGE);
	for (int r = 0; r < m; r++)
		label_datums[r] = CStringGetTextDatum(w->labels[r]);
	if (want_matrix)
		values[0] = PointerGetDatum(array_from_mat(w->matrix));
	else
		nulls[0] = true;
	values[1] = PointerGetDatum(construct_array(label_datums, m, TEXTOID, -1, false, TYPALIGN_INT));
	if (w->weights)
		values[2] = PointerGetDatum(array_from_vec(w->weights, m));
	else
		nulls[2] = true;
	if (!want_spans)
		nulls[3] = true;
	else
	{
		size_t		count = (size_t) m * 2 * dom.nattrs;
		Datum	   *spans = palloc_extended(sizeof(Datum) * Max(count, 1), MCXT_ALLOC_HUGE);
		int			dims[2] = {m, 2 * dom.nattrs},
					lbs[2] = {1, 1};

		for (size_t i = 0; i < count; i++)
			spans[i] = Int32GetDatum(w->spans[i]);
		values[3] = PointerGetDatum(m > 0 ?
									construct_md_array(spans, NULL, 2, dims, lbs, INT4OID,
													   sizeof(int32), true, TYPALIGN_INT) :
									construct_empty_array(INT4OID));
	}
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* workload_queries' sink: a row of the tuplestore per query */
typedef struct QueryRows
{
	ReturnSetInfo *rsinfo;
	int			d;
} QueryRows;

static void
put_query(void *arg, int query, double weight, const char *label, const int *span)
{
	QueryRows  *q = arg;
	Datum		values[3];
	bool		nulls[3] = {false, false, span == NULL};

	values[0] = Int32GetDatum(query + 1);
	values[1] = CStringGetTextDatum(label);
	if (span)
	{
		Datum	   *elems = palloc(sizeof(Datum) * 2 * q->d);

		for (int i = 0; i < 2 * q->d; i++)
			elems[i] = Int32GetDatum(span[i]);
		values[2] = PointerGetDatum(construct_array(elems, 2 * q->d, INT4OID, sizeof(int32), true, TYPALIGN_INT));
		pfree(elems);
	}
	tuplestore_putvalues(q->rsinfo->setResult, q->rsinfo->setDesc, values, nulls);
	pfree(DatumGetPointer(values[1]));
	if (span)
		pfree(DatumGetPointer(values[2]));
}

/*
 * dpm_internal.workload_queries(spec, domain, with_spans): each query's number,
 * label and (with_spans) spans, made from the spec: a workload over a wide
 * domain keeps none of them, since all 3-way marginals of 50 attributes are
 * 19.6 million labels.  The tuplestore spills to disk past work_mem, so
 * memory stays that of one term.
 */
PG_FUNCTION_INFO_V1(dpm_workload_queries);
Datum
dpm_workload_queries(PG_FUNCTION_ARGS)
{
	WorkloadDomain dom;
	QueryRows	q;
	List	   *terms;

	api_domain_arg_wide(fcinfo, &dom);
	terms = workload_parse(&dom, text_to_cstring(PG_GETARG_TEXT_PP(0)));
	(void) workload_count(&dom, terms);
	InitMaterializedSRF(fcinfo, 0);
	q.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	q.d = dom.nattrs;
	workload_each_query(&dom, terms, PG_GETARG_BOOL(SPEC_ARGS), put_query, &q);
	return (Datum) 0;
}

/* dpm_internal.workload_gram(spec, domain): W^T W without W (workload/spec_gram.c) */
PG_FUNCTION_INFO_V1(dpm_workload_gram);
Datum
dpm_workload_gram(PG_FUNCTION_ARGS)
{
	char	   *spec = text_to_cstring(PG_GETARG_TEXT_PP(0));
	WorkloadDomain dom;

	api_domain_arg(fcinfo, &dom);
	PG_RETURN_ARRAYTYPE_P(array_from_mat(workload_gram(&dom, workload_parse(&dom, spec))));
}

/* dpm_internal.spec_term_rows(spec, domain): the number of queries of each + term, in order */
PG_FUNCTION_INFO_V1(dpm_spec_term_rows);
Datum
dpm_spec_term_rows(PG_FUNCTION_ARGS)
{
	WorkloadDomain dom;
	List	   *terms;
	Datum	   *rows;
	int			t = 0;
	ListCell   *lc;

	api_domain_arg_wide(fcinfo, &dom);
	terms = workload_parse(&dom, text_to_cstring(PG_GETARG_TEXT_PP(0)));
	rows = palloc(sizeof(Datum) * Max(list_length(terms), 1));
	foreach(lc, terms)
		rows[t++] = Int32GetDatum((int32) workload_rows(&dom, list_make1(lfirst(lc))));
	PG_RETURN_ARRAYTYPE_P(construct_array(rows, t, INT4OID, sizeof(int32), true, TYPALIGN_INT));
}

/* dpm_internal.scale_rows(w, weights): diag(weights) w, the matrix the optimizers see for a weighted workload */
PG_FUNCTION_INFO_V1(dpm_scale_rows);
Datum
dpm_scale_rows(PG_FUNCTION_ARGS)
{
	Mat		   *w = array_to_mat(PG_GETARG_ARRAYTYPE_P(0), "w");
	int			m;
	double	   *s = array_to_vec(PG_GETARG_ARRAYTYPE_P(1), "weights", &m);

	if (m != w->rows)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("weights must have one value per query (%d), not %d", w->rows, m)));
	for (int j = 0; j < w->cols; j++)
		for (int i = 0; i < w->rows; i++)
			MAT(w, i, j) *= s[i];
	PG_RETURN_ARRAYTYPE_P(array_from_mat(w));
}
