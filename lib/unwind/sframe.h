/* SPDX-License-Identifier: GPL-2.0 */
/* SFrame (v1, v2, v3) reader: decodes an .sframe section into compact unwind rows. */
#ifndef ST_UNWIND_SFRAME_H
#define ST_UNWIND_SFRAME_H

#include <stddef.h>
#include <stdint.h>

#include "lib/unwind/rows.h"

/* sfh_abi_arch values; only AMD64 produces rows. */
#define SFRAME_ABI_AARCH64_BE 1
#define SFRAME_ABI_AARCH64_LE 2
#define SFRAME_ABI_AMD64_LE 3
#define SFRAME_ABI_S390X_BE 4

/* What an .sframe header says, for tables and diagnostics. */
struct sframe_info {
	uint8_t version;
	uint8_t flags;        /* SFRAME_F_*: 0x1 sorted, 0x2 frame pointer, 0x4 PC-relative */
	uint8_t abi;          /* SFRAME_ABI_* */
	int8_t cfa_fixed_fp;  /* 0 = not fixed */
	int8_t cfa_fixed_ra;  /* AMD64: -8 */
	uint8_t auxhdr_len;
	uint32_t num_fdes;
	uint32_t num_fres;
	uint32_t fre_len;
};

/**
 * sframe__info() - decode and check just the preamble and header of a section.
 * @sec: section bytes
 * @len: their length
 * @info: receives the header fields
 * @err: receives a one-line reason on failure (may be NULL)
 * @errlen: size of @err
 *
 * Checks the magic, the version (1, 2 or 3) and that the header, the FDE
 * sub-section and the FRE sub-section lie inside @len. It does not look at
 * the ABI, so a table printer can still show a section it cannot unwind.
 *
 * Return: 0, -EINVAL (malformed) or -EOPNOTSUPP (unknown version or
 * big-endian section).
 */
int sframe__info(const void *sec, size_t len, struct sframe_info *info, char *err,
		 size_t errlen);

/**
 * sframe__read() - decode an .sframe section into unwind rows.
 * @sec: section bytes, untrusted
 * @len: their length
 * @sec_vaddr: the section's sh_addr (link-time vaddr); 0 for a relocatable object
 * @base: the table base; each row's pc is vaddr - @base
 * @out: rows are appended here, and unsupported rules counted
 * @err: receives a one-line reason on failure (may be NULL)
 * @errlen: size of @err
 *
 * Rows are appended in section order, each FDE's range closed by an
 * UNWIND_CFA_NONE row at its end; the caller sorts and merges with
 * unwind_rows__finish() (so several sources can share one vector). Nothing is
 * logged: the caller knows the file name and logs @err once.
 *
 * Return: 0; -EINVAL when the section is malformed (bounds, order, field
 * values); -EOPNOTSUPP for a well-formed section this reader cannot use (ABI
 * other than AMD64, unknown version or flags, big-endian); -ENOMEM. On error
 * @out is left exactly as it was.
 */
int sframe__read(const void *sec, size_t len, uint64_t sec_vaddr, uint64_t base,
		 struct unwind_rows *out, char *err, size_t errlen);

/** sframe__abi_name() - "amd64", "aarch64-le", ... or "unknown". */
const char *sframe__abi_name(uint8_t abi);

#endif
