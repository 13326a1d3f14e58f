// SPDX-License-Identifier: GPL-2.0
/* A binary-search table over a checked .eh_frame, as a linker's .eh_frame_hdr holds one. */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/unwind/cfi_search.h"

/* LSB 10.6.2 .eh_frame_hdr: version, then the encodings of the three fields that follow. */
#define HDR_VERSION 1
#define HDR_FIXED 16 /* version, 3 encodings, u64 eh_frame_ptr, u32 fde_count */

static int span__by_lo(const void *a, const void *b)
{
	const struct cfi_fde_span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void put_le(uint8_t *p, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i)); /* little-endian: x86-64 only */
}

/* Does @v - @base fit a signed 32-bit table entry? */
static bool fits_s32(uint64_t v, uint64_t base)
{
	int64_t d = (int64_t)(v - base);

	return d >= INT32_MIN && d <= INT32_MAX;
}

/* @sorted by lo: disjoint, and every entry expressible. */
static bool search__usable(const struct cfi_fde_span *sorted, size_t n, uint64_t sec_vaddr)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i + 1 < n && sorted[i].hi > sorted[i + 1].lo)
			return false;
		if (!fits_s32(sorted[i].lo, sec_vaddr) || sorted[i].off > INT32_MAX)
			return false;
	}
	return true;
}

int cfi_search__build(const struct cfi_fde_span *fdes, size_t n, uint64_t sec_vaddr,
		      uint8_t **out, size_t *len)
{
	struct cfi_fde_span *sorted;
	uint8_t *hdr, *p;
	size_t i;

	if (!n || n > (SIZE_MAX - HDR_FIXED) / 8 || n > UINT32_MAX)
		return -ENOTSUP;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, fdes, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), span__by_lo);
	if (!search__usable(sorted, n, sec_vaddr)) {
		free(sorted);
		return -ENOTSUP;
	}
	hdr = malloc(HDR_FIXED + n * 8);
	if (!hdr) {
		free(sorted);
		return -ENOMEM;
	}
	hdr[0] = HDR_VERSION;
	hdr[1] = DW_EH_PE_udata8;                   /* eh_frame_ptr: the section's address */
	hdr[2] = DW_EH_PE_udata4;                   /* fde_count */
	hdr[3] = DW_EH_PE_datarel | DW_EH_PE_sdata4; /* entries: from the header's address */
	put_le(hdr + 4, sec_vaddr, 8);
	put_le(hdr + 12, n, 4);
	for (i = 0, p = hdr + HDR_FIXED; i < n; i++, p += 8) {
		put_le(p, sorted[i].lo - sec_vaddr, 4);
		put_le(p + 4, sorted[i].off, 4); /* the FDE's address less the header's */
	}
	free(sorted);
	*out = hdr;
	*len = HDR_FIXED + n * 8;
	return 0;
}
