/*
 * fuzz_spec.c -- libFuzzer target: the workload spec parser and builder
 * (src/workload: spec.c, blocks.c, labels.c, workload.c, spec_gram.c) over a
 * domain chosen by the first 16 input bytes.
 *
 * Input: a 16-byte domain header, then the spec text (skipped unless it is
 * valid UTF-8 without NUL, as the server guarantees for text).
 *   byte 0        attributes: 1 + (b & 15) % 3; bits 4-5 = 01 sets dpm.max_matrix_mb
 *                 to 1 instead of 64, to reach the size checks early
 *   5 bytes/attr  (three attributes, whether used or not)
 *     kind/size   size = 1 + (b & 15) bins; kind = b >> 4, see make_attr()
 *     name        one of names[] (bit 7 clear: offset by the attribute's
 *                 index, so names differ; set: may repeat)
 *     x, w        offset (signed) and width/variant of the bin bounds
 *     label       how bins are labelled (bit 7: words that may repeat)
 *
 * The domain goes through workload_domain_check like any other; an ERROR
 * anywhere is an expected outcome.  Findings, beyond crashes, sanitizer
 * reports, hangs, internal errors and runaway memory (see pgstub.c):
 *  - after a spec parses, building it or its Gram matrix fails other than
 *    on a size limit;
 *  - the built matrix W is not m x n with m = workload_rows(), has an entry
 *    other than 0/1 or a row selecting no cell;
 *  - a label is missing, or reads "total" while its row is not all ones
 *    (or the reverse);
 *  - workload_gram() (W^T W without W, each query weighted) differs from
 *    W^T diag(weights)^2 W computed from W.
 */
#include "postgres.h"

#include <math.h>

#include "mb/pg_wchar.h"

#include "linalg/linalg.h"
#include "workload/workload.h"

#include "fuzz_common.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER 16
#define MAX_ATTRS 3

static const char *const names[16] = {
	"age", "sex", "region", "a", "b", "c", "Total", "identity",
	"x y", "q\"t", "\xc3\xa9", "", "AGE", "_1", "1a", "inf"
};

static const char *const words[16] = {
	"F", "M", "north", "south", "a:b", "x y", "'q'", "(",
	"\xc3\xa9", "", "0", "[0,10)", "total", "%s", "F", "age"
};

static uint32
prng(uint32 *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 16;
}

/*
 * One attribute from its 5 header bytes.  Kinds (kind/size byte >> 4), with
 * x the signed offset byte and w = 1 + (w byte & 15):
 *   0-1 contiguous [x + j w, x + (j+1) w)     7  the same, bins in reverse order
 *   2   contiguous, first and last open-ended  8  contiguous, one bin NaN (not intervals)
 *   3   steps of w/10 summed in floating point 9  one bin with a single NaN bound
 *   4   gaps between bins                      10 one empty or reversed bin
 *   5   overlapping bins                       11 scaled by 10^(-320..280)
 *   6   small random bounds (ties, overlaps)   12-15 labels only (NaN bounds)
 */
static void
make_attr(WorkloadAttr *attr, int a, const uint8_t *h)
{
	int			k = 1 + (h[0] & 15);
	int			kind = h[0] >> 4;
	int			x = (int8) h[2];
	int			w = 1 + (h[3] & 15);
	int			odd = h[3] % k;
	uint32		state = h[2] * 256u + h[3] + 1;

	attr->name = pstrdup(names[(h[1] & 0x80) ? (h[1] & 15) : ((h[1] + a) & 15)]);
	attr->size = k;
	attr->labels = palloc(sizeof(char *) * k);
	attr->lo = palloc(sizeof(double) * k);
	attr->hi = palloc(sizeof(double) * k);
	for (int j = 0; j < k; j++)
	{
		double		lo = x + (double) j * w,
					hi = lo + w;

		switch (kind)
		{
			case 2:
				if (j == 0)
					lo = -INFINITY;
				if (j == k - 1)
					hi = INFINITY;
				break;
			case 3:
				lo = x / 10.0;
				for (int i = 0; i < j; i++)
					lo += w / 10.0;
				hi = lo + w / 10.0;
				break;
			case 4:
				lo = x + 2.0 * j * w;
				hi = lo + w;
				break;
			case 5:
				hi = lo + 2.0 * w;
				break;
			case 6:
				lo = (int) (prng(&state) % 17) - 8;
				hi = (int) (prng(&state) % 17) - 8;
				if (hi <= lo)
					hi = lo + 1 + prng(&state) % 3;
				break;
			case 7:
				lo = x + (double) (k - 1 - j) * w;
				hi = lo + w;
				break;
			case 8:
				if (j == odd)
					lo = hi = NAN;
				break;
			case 9:
				if (j == odd)
				{
					if (h[3] & 0x10)
						hi = NAN;
					else
						lo = NAN;
				}
				break;
			case 10:
				if (j == odd)
					hi = (h[3] & 0x10) ? lo : lo - 1;
				break;
			case 11:
				{
					double		scale = pow(10.0, ((h[3] >> 4) - 8) * 40.0);

					lo *= scale;
					hi *= scale;
					break;
				}
			case 12:
			case 13:
			case 14:
			case 15:
				lo = hi = NAN;
				break;
			default:
				break;
		}
		attr->lo[j] = lo;
		attr->hi[j] = hi;
		if (h[4] & 0x80)
			attr->labels[j] = pstrdup(words[(h[4] + j) & 15]);
		else if (!isnan(lo) && !(h[4] & 0x40))
			attr->labels[j] = psprintf("[%g,%g)", lo, hi);
		else
			attr->labels[j] = psprintf("%s%d", words[h[4] & 15], j);
	}
}

/* errors a spec that parsed may still meet: size limits only */
static void
check_late_error(const char *what)
{
	int			code = fuzz_last_error.sqlerrcode;

	if (code != ERRCODE_PROGRAM_LIMIT_EXCEEDED && code != ERRCODE_STATEMENT_TOO_COMPLEX)
		fuzz_fail("%s failed on a spec that parsed, with SQLSTATE %s",
				  what, unpack_sql_state(code));
}

static void
check_workload(const WorkloadDomain *dom, List *terms, const Workload *w)
{
	const Mat  *W = w->matrix;
	double		m = workload_rows(dom, terms);

	if (W->rows != m || W->cols != dom->cells)
		fuzz_fail("workload matrix is %d x %d, expected %.0f x %d",
				  W->rows, W->cols, m, dom->cells);
	for (int i = 0; i < W->rows; i++)
	{
		int			ones = 0;
		const char *label = w->labels[i];

		for (int j = 0; j < W->cols; j++)
		{
			double		x = MAT(W, i, j);

			if (x != 0 && x != 1)
				fuzz_fail("workload matrix entry (%d,%d) is %g", i + 1, j + 1, x);
			ones += x == 1;
		}
		if (ones == 0)
			fuzz_fail("query %d selects no cell", i + 1);
		if (label == NULL || label[0] == '\0')
			fuzz_fail("query %d has no label", i + 1);
		/* "total", or "total of a in (...)" when the domain's bins do not cover all of a */
		if ((strcmp(label, "total") == 0 || strncmp(label, "total of ", 9) == 0) != (ones == W->cols))
			fuzz_fail("query %d selects %d of %d cells but is labelled \"%s\"",
					  i + 1, ones, W->cols, label);
	}
}

static void
check_gram(const Mat *g, const Workload *w)
{
	const Mat  *W = w->matrix;
	Mat		   *volatile direct = NULL;

	/* (diag(weights) W)^T (diag(weights) W) from W itself; skip when that would be slow or too large */
	if ((double) W->rows * W->cols > 4e6)
		return;
	PG_TRY();
	{
		Mat		   *weighted = mat_copy(W);

		if (w->weights != NULL)
			for (int i = 0; i < W->rows; i++)
				for (int j = 0; j < W->cols; j++)
					MAT(weighted, i, j) *= w->weights[i];
		direct = mat_gram(weighted);
	}
	PG_CATCH();
	{
		check_late_error("mat_gram(W)");
	}
	PG_END_TRY();
	if (direct == NULL)
		return;
	if (g->rows != direct->rows || g->cols != direct->cols)
		fuzz_fail("workload_gram is %d x %d, W^T W is %d x %d",
				  g->rows, g->cols, direct->rows, direct->cols);
	for (int j = 0; j < g->cols; j++)
		for (int i = 0; i < g->rows; i++)
			if (fabs(MAT(g, i, j) - MAT(direct, i, j)) > 1e-9 * Max(1.0, fabs(MAT(direct, i, j))))
				fuzz_fail("workload_gram (%d,%d) is %.17g, W^T W has %.17g",
						  i + 1, j + 1, MAT(g, i, j), MAT(direct, i, j));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	WorkloadDomain dom;
	char	   *spec;
	int			speclen;
	List	   *volatile terms = NIL;
	volatile bool parsed = false;
	Mat		   *volatile gram = NULL;
	Workload   *volatile w = NULL;

	if (size < HEADER)
		return -1;
	speclen = (int) (size - HEADER);
	if (pg_encoding_verifymbstr(PG_UTF8, (const char *) data + HEADER, speclen) != speclen)
		return -1;

	fuzz_begin();
	dpm_max_matrix_mb = (data[0] & 0x30) == 0x10 ? 1 : 64;
	dom.wide = false;
	dom.name = NULL;
	dom.nattrs = 1 + (data[0] & 0x0f) % MAX_ATTRS;
	dom.attrs = palloc0(sizeof(WorkloadAttr) * dom.nattrs);
	for (int a = 0; a < dom.nattrs; a++)
		make_attr(&dom.attrs[a], a, data + 1 + 5 * a);
	spec = pnstrdup((const char *) data + HEADER, speclen);
	fuzz_user_text = spec;

	PG_TRY();
	{
		workload_domain_check(&dom);
		terms = workload_parse(&dom, spec);
		parsed = true;
	}
	PG_CATCH();
	{
	}
	PG_END_TRY();

	if (parsed)
	{
		PG_TRY();
		{
			gram = workload_gram(&dom, terms);
		}
		PG_CATCH();
		{
			check_late_error("workload_gram");
		}
		PG_END_TRY();

		PG_TRY();
		{
			w = workload_build(&dom, terms, true, true);
		}
		PG_CATCH();
		{
			check_late_error("workload_build");
		}
		PG_END_TRY();

		if (w != NULL)
		{
			check_workload(&dom, terms, w);
			if (gram != NULL)
				check_gram(gram, w);
		}
	}
	fuzz_end();
	return 0;
}
