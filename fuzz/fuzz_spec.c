/*
 * fuzz_spec.c -- libFuzzer target: the workload spec parser and builder
 * (src/workload) over a domain chosen by the first input bytes.
 *
 * Input: byte 0 picks 1..3 attributes, bytes 1..3 their sizes (1..16) and
 * whether each is a numeric interval attribute; the rest, if valid UTF-8 (as
 * the server guarantees for text), is the spec.  Every ERROR the code raises
 * is an expected outcome; a crash, a sanitizer report, a hang or a runaway
 * allocation is a finding.
 */
#include "postgres.h"

#include <setjmp.h>

#include "linalg/linalg.h"
#include "workload/workload.h"

extern sigjmp_buf *fuzz_error_jump;
extern void fuzz_arena_reset(void);
int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"age", "sex", "region"};
static const char *const words[] = {"F", "M", "north", "south", "a:b", "x y", "'q'", "(", "é", ""};

static bool
valid_utf8(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;)
	{
		int			len = s[i] < 0x80 ? 1 : (s[i] & 0xe0) == 0xc0 ? 2 :
			(s[i] & 0xf0) == 0xe0 ? 3 : (s[i] & 0xf8) == 0xf0 ? 4 : 0;

		if (len == 0 || i + len > n || s[i] == 0)
			return false;
		for (int k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += len;
	}
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sigjmp_buf	jb;
	WorkloadDomain dom;
	char	   *spec;

	if (size < 4 || !valid_utf8(data + 4, size - 4))
		return 0;
	dpm_max_matrix_mb = 64;
	fuzz_error_jump = &jb;
	if (sigsetjmp(jb, 0) == 0)
	{
		dom.nattrs = 1 + data[0] % 3;
		dom.attrs = palloc0(sizeof(WorkloadAttr) * dom.nattrs);
		for (int a = 0; a < dom.nattrs; a++)
		{
			WorkloadAttr *attr = &dom.attrs[a];
			bool		interval = (data[1 + a] & 0x80) != 0;

			attr->name = pstrdup(names[a]);
			attr->size = 1 + data[1 + a] % 16;
			attr->labels = palloc(sizeof(char *) * attr->size);
			attr->lo = palloc(sizeof(double) * attr->size);
			attr->hi = palloc(sizeof(double) * attr->size);
			for (int j = 0; j < attr->size; j++)
			{
				char		buf[32];

				if (interval)
				{
					/* the last bin may be open-ended, as a custodian can define it */
					attr->lo[j] = 10.0 * j;
					attr->hi[j] = (j == attr->size - 1 && (data[0] & 0x40)) ? INFINITY : 10.0 * (j + 1);
					snprintf(buf, sizeof(buf), "[%d,%d)", 10 * j, 10 * (j + 1));
				}
				else
				{
					attr->lo[j] = attr->hi[j] = NAN;
					snprintf(buf, sizeof(buf), "%s%d", words[(data[1 + a] / 16 + j) % 10], j);
				}
				attr->labels[j] = pstrdup(buf);
			}
		}
		spec = pnstrdup((const char *) data + 4, size - 4);
		workload_domain_check(&dom);
		(void) workload_from_spec(&dom, spec);
	}
	fuzz_arena_reset();
	return 0;
}
