/*
 * wavelet.c -- the Haar wavelet strategy Y_n (Xiao et al.; Li et al., PODS 2010, Example 3).
 *
 * Rows: the total, then for each block size N, N/2, ..., 2 and each block a
 * query +1 on its first half and -1 on its second half, with N the smallest
 * power of two >= n.  For n < N we keep the first n columns of Y_N and drop
 * the rows that become zero: Y_N is invertible, so any subset of its columns
 * is linearly independent and the result is full column rank, with
 * sensitivity at most log2(N) + 1.  This is exactly Haar on the domain padded
 * with cells known to be empty.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "strategy/dense/fixed.h"

Mat *
strategy_wavelet(int n)
{
	int			big = 1;
	int			rows = 0,
				r = 0;
	Mat		   *a;

	while (big < n)
		big *= 2;

	/* count the rows that touch one of the first n cells */
	rows = 1;
	for (int size = big; size >= 2; size /= 2)
		for (int s = 0; s < big; s += size)
			if (s < n)
				rows++;

	a = mat_new(rows, n);
	for (int j = 0; j < n; j++)
		MAT(a, 0, j) = 1.0;
	r = 1;
	for (int size = big; size >= 2; size /= 2)
	{
		CHECK_FOR_INTERRUPTS();
		for (int s = 0; s < big && s < n; s += size)
		{
			for (int j = s; j < s + size && j < n; j++)
				MAT(a, r, j) = (j < s + size / 2) ? 1.0 : -1.0;
			r++;
		}
	}
	Assert(r == rows);
	return a;
}
