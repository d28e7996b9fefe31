/*
 * isotonic.c -- pool adjacent violators: scan left to right keeping blocks
 * of pooled values (weighted mean, total weight, length); a block whose
 * mean is below the one before merges into it, as often as needed.  Each
 * value joins a block once and blocks merge at most n - 1 times: O(n).
 */
#include "postgres.h"

#include "inference/isotonic.h"

void
isotonic_regression(double *v, const double *w, size_t n)
{
	double	   *mean = palloc(sizeof(double) * Max(n, 1));
	double	   *weight = palloc(sizeof(double) * Max(n, 1));
	size_t	   *len = palloc(sizeof(size_t) * Max(n, 1));
	size_t		blocks = 0,
				k = 0;

	for (size_t i = 0; i < n; i++)
	{
		mean[blocks] = v[i];
		weight[blocks] = w ? w[i] : 1.0;
		len[blocks] = 1;
		blocks++;
		while (blocks > 1 && mean[blocks - 2] > mean[blocks - 1])
		{
			double		total = weight[blocks - 2] + weight[blocks - 1];

			mean[blocks - 2] = (mean[blocks - 2] * weight[blocks - 2] + mean[blocks - 1] * weight[blocks - 1]) / total;
			weight[blocks - 2] = total;
			len[blocks - 2] += len[blocks - 1];
			blocks--;
		}
	}
	for (size_t b = 0; b < blocks; b++)
		for (size_t j = 0; j < len[b]; j++)
			v[k++] = mean[b];
	pfree(mean);
	pfree(weight);
	pfree(len);
}
