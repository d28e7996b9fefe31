/*
 * arraystub.c -- one-dimensional-and-up arrays of fixed-length numbers for
 * the matrix fuzz target: building ArrayType values laid out as PostgreSQL
 * lays them out (varlena header, ndim, dataoffset, element type, dims, lower
 * bounds, optional null bitmap, aligned element data), and the array
 * functions src/convert/array.c calls.  Written for this harness; only float8,
 * float4 and int8 elements.
 *
 * deconstruct_array() checks its caller's side of the contract (element type,
 * length, by-value and alignment must match the array's type): PostgreSQL
 * only Asserts that and then reads the data with the wrong layout.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "access/tupmacs.h"
#include "common/shortest_dec.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "fuzz_common.h"

typedef struct ElemInfo
{
	Oid			type;
	int			len;
	bool		byval;
	char		align;
} ElemInfo;

static const ElemInfo elem_infos[] = {
	{FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE},
	{FLOAT4OID, sizeof(float4), true, TYPALIGN_INT},
	{INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE},
};

static const ElemInfo *
elem_info(Oid type)
{
	for (int i = 0; i < lengthof(elem_infos); i++)
		if (elem_infos[i].type == type)
			return &elem_infos[i];
	fuzz_fail("arraystub: element type %u not supported", type);
}

/* what ArrayGetNItems does, minus the error: the harness never passes an invalid shape */
int
ArrayGetNItems(int ndim, const int *dims)
{
	int64		n;

	if (ndim <= 0)
		return 0;
	n = 1;
	for (int d = 0; d < ndim; d++)
	{
		if (dims[d] < 0)
			fuzz_fail("ArrayGetNItems: negative dimension %d", dims[d]);
		n *= dims[d];
		if (n > (int64) MaxArraySize)
			fuzz_fail("ArrayGetNItems: %lld items", (long long) n);
	}
	return (int) n;
}

/*
 * An array as PostgreSQL builds it: no items means the zero-dimensional
 * empty array (construct_md_array and array_in never return "[1:0]"-style
 * arrays), a null bitmap only when asked for (PostgreSQL may keep one even
 * without NULLs), elements aligned after the header.
 */
ArrayType *
fuzz_make_array(int ndim, const int *dims, const int *lbs, Oid elemtype, bool with_bitmap,
				const bool *nulls, const double *values)
{
	const ElemInfo *info = elem_info(elemtype);
	int			n = ArrayGetNItems(ndim, dims);
	Size		dataoff,
				size;
	ArrayType  *arr;
	char	   *p;

	if (n == 0)
		ndim = 0;
	if (ndim > MAXDIM)
		fuzz_fail("fuzz_make_array: %d dimensions", ndim);
	for (int d = 0; d < ndim; d++)
		if ((int64) lbs[d] + dims[d] > PG_INT32_MAX)
			fuzz_fail("fuzz_make_array: upper bound overflows");
	with_bitmap = with_bitmap && n > 0;
	dataoff = with_bitmap ? ARR_OVERHEAD_WITHNULLS(ndim, n) : ARR_OVERHEAD_NONULLS(ndim);
	size = dataoff;
	for (int i = 0; i < n; i++)
		if (!(with_bitmap && nulls[i]))
			size = att_align_nominal(size, info->align) + info->len;
	arr = palloc0(size);
	SET_VARSIZE(arr, size);
	arr->ndim = ndim;
	arr->dataoffset = with_bitmap ? dataoff : 0;
	arr->elemtype = elemtype;
	for (int d = 0; d < ndim; d++)
	{
		ARR_DIMS(arr)[d] = dims[d];
		ARR_LBOUND(arr)[d] = lbs[d];
	}
	p = ARR_DATA_PTR(arr);
	for (int i = 0; i < n; i++)
	{
		if (with_bitmap && nulls[i])
			continue;
		if (with_bitmap)
			ARR_NULLBITMAP(arr)[i / 8] |= 1 << (i % 8);
		p = (char *) att_align_nominal(p, info->align);
		if (elemtype == FLOAT8OID)
			memcpy(p, &values[i], sizeof(double));
		else if (elemtype == FLOAT4OID)
		{
			/* out-of-range double to float is undefined in C: saturate as IEEE rounding would */
			float		f = fabs(values[i]) > FLT_MAX ? (float) copysign(INFINITY, values[i]) :
				(float) values[i];

			memcpy(p, &f, sizeof(float));
		}
		else
		{
			int64		v = 0;

			memcpy(&v, &values[i], sizeof(v));
			memcpy(p, &v, sizeof(v));
		}
		p += info->len;
	}
	if (p != (char *) arr + size)
		fuzz_fail("fuzz_make_array: size mismatch");
	return arr;
}

void
deconstruct_array(ArrayType *array, Oid elmtype, int elmlen, bool elmbyval, char elmalign,
				  Datum **elemsp, bool **nullsp, int *nelemsp)
{
	const ElemInfo *info = elem_info(ARR_ELEMTYPE(array));
	int			n = ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array));
	bits8	   *bitmap = ARR_NULLBITMAP(array);
	char	   *p = ARR_DATA_PTR(array);

	if (elmtype != ARR_ELEMTYPE(array) || elmlen != info->len || elmbyval != info->byval ||
		elmalign != info->align)
		fuzz_fail("deconstruct_array called for type %u (len %d, byval %d, align %c) "
				  "on an array of type %u",
				  elmtype, elmlen, elmbyval, elmalign, ARR_ELEMTYPE(array));
	*elemsp = palloc(sizeof(Datum) * Max(n, 1));
	*nullsp = palloc0(sizeof(bool) * Max(n, 1));
	*nelemsp = n;
	for (int i = 0; i < n; i++)
	{
		if (bitmap && !(bitmap[i / 8] & (1 << (i % 8))))
		{
			(*elemsp)[i] = (Datum) 0;
			(*nullsp)[i] = true;
			continue;
		}
		p = (char *) att_align_nominal(p, elmalign);
		if (elmtype == FLOAT8OID)
		{
			double		v;

			memcpy(&v, p, sizeof(v));
			(*elemsp)[i] = Float8GetDatum(v);
		}
		else if (elmtype == FLOAT4OID)
		{
			float		v;

			memcpy(&v, p, sizeof(v));
			(*elemsp)[i] = Float4GetDatum(v);
		}
		else
		{
			int64		v;

			memcpy(&v, p, sizeof(v));
			(*elemsp)[i] = Int64GetDatum(v);
		}
		p += elmlen;
	}
	if (p > (char *) array + VARSIZE(array))
		fuzz_fail("deconstruct_array read past the array");
}

ArrayType *
construct_md_array(Datum *elems, bool *nulls, int ndims, int *dims, int *lbs, Oid elmtype,
				   int elmlen, bool elmbyval, char elmalign)
{
	const ElemInfo *info = elem_info(elmtype);
	int			n = ArrayGetNItems(ndims, dims);
	bool	   *nn = palloc0(sizeof(bool) * Max(n, 1));
	double	   *v = palloc0(sizeof(double) * Max(n, 1));
	bool		hasnull = false;

	if (elmtype != FLOAT8OID || elmlen != info->len || elmbyval != info->byval ||
		elmalign != info->align)
		fuzz_fail("construct_md_array: float8 arrays only, with float8's properties");
	for (int i = 0; i < n; i++)
	{
		nn[i] = nulls && nulls[i];
		hasnull |= nn[i];
		if (!nn[i])
			v[i] = DatumGetFloat8(elems[i]);
	}
	return fuzz_make_array(ndims, dims, lbs, elmtype, hasnull, nn, v);
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
	return fuzz_make_array(0, NULL, NULL, elmtype, false, NULL, NULL);
}

/* float8out_internal at extra_float_digits = 1: the shortest exact decimal, as the server prints */
char *
float8out_internal(double num)
{
	char	   *s = palloc(DOUBLE_SHORTEST_DECIMAL_LEN);

	double_to_shortest_decimal_buf(num, s);
	return s;
}
