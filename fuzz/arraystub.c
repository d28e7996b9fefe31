/*
 * arraystub.c -- float8 arrays for the matrix fuzz target: building and
 * taking apart ArrayType values laid out as PostgreSQL lays them out
 * (header, dims, lower bounds, optional null bitmap, aligned data).  Only
 * what src/api/array.c calls, for float8 only; written for this harness.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

ArrayType *
fuzz_make_array(int ndim, const int *dims, const bool *nulls, const double *values)
{
	int			n = ndim == 0 ? 0 : 1;
	int			nvalues = 0;
	bool		hasnull = false;
	Size		dataoff,
				size;
	ArrayType  *arr;
	char	   *p;

	for (int d = 0; d < ndim; d++)
		n *= dims[d];
	for (int i = 0; i < n; i++)
		hasnull |= nulls[i];
	for (int i = 0; i < n; i++)
		nvalues += !nulls[i];
	dataoff = hasnull ? ARR_OVERHEAD_WITHNULLS(ndim, n) : 0;
	size = (hasnull ? dataoff : ARR_OVERHEAD_NONULLS(ndim)) + sizeof(double) * nvalues;
	arr = palloc0(size);
	SET_VARSIZE(arr, size);
	arr->ndim = ndim;
	arr->dataoffset = dataoff;
	arr->elemtype = FLOAT8OID;
	for (int d = 0; d < ndim; d++)
	{
		ARR_DIMS(arr)[d] = dims[d];
		ARR_LBOUND(arr)[d] = 1;
	}
	if (hasnull)
		for (int i = 0; i < n; i++)
			if (!nulls[i])
				ARR_NULLBITMAP(arr)[i / 8] |= 1 << (i % 8);
	p = ARR_DATA_PTR(arr);
	for (int i = 0; i < n; i++)
		if (!nulls[i])
		{
			memcpy(p, &values[i], sizeof(double));
			p += sizeof(double);
		}
	return arr;
}

void
deconstruct_array(ArrayType *array, Oid elmtype, int elmlen, bool elmbyval, char elmalign,
				  Datum **elemsp, bool **nullsp, int *nelemsp)
{
	int			n = ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array));
	bits8	   *bitmap = ARR_NULLBITMAP(array);
	char	   *p = ARR_DATA_PTR(array);

	Assert(elmtype == FLOAT8OID);
	*elemsp = palloc(sizeof(Datum) * Max(n, 1));
	*nullsp = palloc(sizeof(bool) * Max(n, 1));
	*nelemsp = n;
	for (int i = 0; i < n; i++)
	{
		(*nullsp)[i] = bitmap && !(bitmap[i / 8] & (1 << (i % 8)));
		if (!(*nullsp)[i])
		{
			double		v;

			memcpy(&v, p, sizeof(double));
			(*elemsp)[i] = Float8GetDatum(v);
			p += sizeof(double);
		}
	}
}

int
ArrayGetNItems(int ndim, const int *dims)
{
	int64		n = ndim == 0 ? 0 : 1;

	for (int d = 0; d < ndim; d++)
		n *= dims[d];
	return (int) n;
}

ArrayType *
construct_md_array(Datum *elems, bool *nulls, int ndims, int *dims, int *lbs, Oid elmtype,
				   int elmlen, bool elmbyval, char elmalign)
{
	int			n = ArrayGetNItems(ndims, dims);
	bool	   *nn = palloc0(sizeof(bool) * Max(n, 1));
	double	   *v = palloc(sizeof(double) * Max(n, 1));

	for (int i = 0; i < n; i++)
		v[i] = DatumGetFloat8(elems[i]);
	return fuzz_make_array(ndims, dims, nn, v);
}

ArrayType *
construct_array(Datum *elems, int nelems, Oid elmtype, int elmlen, bool elmbyval, char elmalign)
{
	int			dims[1] = {nelems};
	int			lbs[1] = {1};

	return construct_md_array(elems, NULL, 1, dims, lbs, elmtype, elmlen, elmbyval, elmalign);
}

ArrayType *
construct_empty_array(Oid elmtype)
{
	return fuzz_make_array(0, NULL, NULL, NULL);
}
