// SPDX-License-Identifier: GPL-2.0
/* SFrame (v1, v2, v3) reader: decodes an .sframe section into compact unwind rows. */
/*
 * How the versions differ (binutils include/sframe.h, libsframe/doc/sframe-spec.texi):
 *
 *   v1  FDE of 17 bytes: s32 func_start, u32 size, u32 fre_off, u32 num_fres, u8 info.
 *       No repeat size; PCMASK was only ever used for 16-byte x86-64 PLT entries, so we
 *       take 16.
 *   v2  FDE of 20 bytes: v1 plus u8 rep_size and 2 bytes of padding. The erratum adds the
 *       flag FDE_FUNC_START_PCREL: func_start then counts from the field itself rather
 *       than from the section start.
 *   v3  The FDE is split: a 16-byte index entry (s64 func_start, u32 size, u32 fre_off)
 *       and, at FRE sub-section + fre_off, a 5-byte attribute block (u16 num_fres, u8 info,
 *       u8 info2, u8 rep_size) directly followed by the FREs. info bit 7 marks a signal
 *       frame; info2 holds the FDE type (0 default, 1 flexible: control/offset word pairs).
 *       The FRAME_POINTER flag is gone.
 *
 * Common to all: the header (28 bytes + auxhdr_len; sub-section offsets count from its
 * end) and the FRE (start offset of 1/2/4 bytes, info byte, N signed words of 1/2/4
 * bytes). A flag we do not know for the version is refused: PCREL showed that a new flag
 * can change how fields read.
 *
 * Rows (AMD64 only): CFA = rsp/rbp + word0. The RA is at the header's fixed CFA-8 (or,
 * when the header fixes none, at word1, which must say -8). rbp is saved at CFA + the
 * next word when there is one, else unchanged. N == 0 means the RA is undefined:
 * OUTERMOST. What an 8-byte row cannot say becomes an UNSUPPORTED row with its reason
 * counted, never a guess. This includes v3 flexible FDEs (DRAP, register rules) and v3
 * signal frames (the RA is in the sigcontext, not at CFA-8).
 *
 * PCMASK FDEs (PLT): the standard lazy pltN pattern (16-byte blocks; sp+8 from 0, sp+16
 * from 11 once "push $n" ran) is exactly UNWIND_CFA_PLT and becomes one PLT row. That
 * rule tests pc & 15, so the FDE start must be 16-aligned both as a vaddr and relative
 * to the base. Any other mask FDE is expanded, one row per FRE per block, up to
 * SF_MASK_EXPAND_MAX rows per section. Past that cap the FDE gets one UNSUPPORTED row,
 * counted as cfa-expression: .eh_frame would need an expression for such a stub.
 *
 * Hostile input: every read is bounds-checked against the section (FDE table) or the
 * FRE sub-section (FREs, v3 attributes). FDE starts must not decrease. Equal starts pass
 * because a relocatable object has them all at 0. The FDE_SORTED flag is only a claim,
 * so we check the order ourselves. FRE starts must strictly increase and stay below the
 * function size (the repeat size for PCMASK). FREs may not outnumber the header's
 * num_fres, which bounds the work even when FDEs share FREs. An FDE of size 0 covers no
 * code: its FREs are checked, and no rows come from it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/unwind/sframe.h"

#define SF_MAGIC 0xdee2
#define SF_MAGIC_SWAPPED 0xe2de
#define SF_HDR_SIZE 28

#define SF_F_SORTED 0x1
#define SF_F_FRAME_POINTER 0x2
#define SF_F_PCREL 0x4

#define SF_FDE_V1_SIZE 17
#define SF_FDE_V2_SIZE 20
#define SF_FDE_V3_SIZE 16
#define SF_FDA_V3_SIZE 5

#define SF_FDE_TYPE_DEFAULT 0
#define SF_FDE_TYPE_FLEX 1

/* The FRE info word holds a 4-bit data word count. */
#define SF_FRE_MAX_WORDS 15
/* AMD64 default FDE: CFA, [RA when not fixed], FP. */
#define SF_AMD64_RA_OFF (-8)

/* Standard lazy pltN: push at +6 (sp+8 -> sp+16 from +11), 16-byte entries. */
#define SF_PLT_BLOCK 16
#define SF_PLT_SWITCH 11

/*
 * Rows one section may add by expanding non-standard PCMASK FDEs. A hostile rep_size of 1
 * over a 4 GiB "function" would mean billions of rows. 64k rows (512 KiB) is far more
 * than any real PLT.
 */
#define SF_MASK_EXPAND_MAX 65536

struct sf_sec {
	const uint8_t *p;
	size_t len;
	uint64_t sec_vaddr, base;
	struct sframe_info info;
	size_t fde_pos, fde_size; /* FDE sub-section start, entry size */
	size_t fre_pos, fre_end;  /* FRE sub-section [fre_pos, fre_end) */
	uint64_t fres_left;       /* header num_fres not yet consumed */
	uint64_t expand_left;     /* PCMASK expansion budget */
	struct unwind_rows *out;
	char *err;
	size_t errlen;
};

struct sf_fde {
	uint32_t ix;
	uint64_t start; /* function start vaddr */
	uint32_t size;
	size_t fres; /* section offset of the first FRE */
	uint32_t num_fres;
	uint8_t fre_type; /* start address size: 1 << fre_type bytes */
	uint8_t rep_size;
	bool mask, flex, signal;
};

struct sf_fre {
	uint32_t start;
	uint8_t info;
	unsigned n;
	int32_t w[SF_FRE_MAX_WORDS];
};

struct sf_fre_iter {
	size_t pos;
	uint32_t i;
	int64_t prev; /* previous start, -1 before the first */
	bool counted; /* charge each FRE to fres_left */
};

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* [pos, pos + n) lies inside [0, end), without overflow. */
static bool sf__fits(size_t pos, uint64_t n, size_t end)
{
	return pos <= end && n <= end - pos;
}

__attribute__((format(printf, 3, 4))) static int sf__fail(struct sf_sec *s, int err,
							   const char *fmt, ...)
{
	va_list ap;

	if (s->err && s->errlen) {
		va_start(ap, fmt);
		vsnprintf(s->err, s->errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

static size_t sf__fde_size(uint8_t version)
{
	return version == 1 ? SF_FDE_V1_SIZE : version == 2 ? SF_FDE_V2_SIZE : SF_FDE_V3_SIZE;
}

static int sf__preamble(struct sf_sec *s)
{
	uint16_t magic;

	if (s->len < 4)
		return sf__fail(s, -EINVAL, "section too short for the preamble (%zu bytes)", s->len);
	magic = rd16(s->p);
	if (magic == SF_MAGIC_SWAPPED)
		return sf__fail(s, -EOPNOTSUPP, "big-endian section not supported");
	if (magic != SF_MAGIC)
		return sf__fail(s, -EINVAL, "bad magic 0x%04x", magic);
	s->info.version = s->p[2];
	s->info.flags = s->p[3];
	if (s->info.version < 1 || s->info.version > 3)
		return sf__fail(s, -EOPNOTSUPP, "unknown version %u", s->info.version);
	return 0;
}

/* Header fields, then the two sub-sections placed and bounded. */
static int sf__header(struct sf_sec *s)
{
	struct sframe_info *h = &s->info;
	uint32_t fdeoff, freoff;
	size_t end;
	int err;

	err = sf__preamble(s);
	if (err)
		return err;
	if (s->len < SF_HDR_SIZE)
		return sf__fail(s, -EINVAL, "section too short for the header (%zu bytes)", s->len);
	h->abi = s->p[4];
	h->cfa_fixed_fp = (int8_t)s->p[5];
	h->cfa_fixed_ra = (int8_t)s->p[6];
	h->auxhdr_len = s->p[7];
	h->num_fdes = rd32(s->p + 8);
	h->num_fres = rd32(s->p + 12);
	h->fre_len = rd32(s->p + 16);
	fdeoff = rd32(s->p + 20);
	freoff = rd32(s->p + 24);
	end = SF_HDR_SIZE + (size_t)h->auxhdr_len;
	if (end > s->len)
		return sf__fail(s, -EINVAL, "auxiliary header (%u bytes) past the section end",
				h->auxhdr_len);
	s->fde_size = sf__fde_size(h->version);
	s->fde_pos = end + (size_t)fdeoff;
	if (!sf__fits(end, fdeoff, s->len) ||
	    !sf__fits(s->fde_pos, (uint64_t)h->num_fdes * s->fde_size, s->len))
		return sf__fail(s, -EINVAL, "FDE table (%u x %zu bytes at %u) past the section end",
				h->num_fdes, s->fde_size, fdeoff);
	s->fre_pos = end + (size_t)freoff;
	if (!sf__fits(end, freoff, s->len) || !sf__fits(s->fre_pos, h->fre_len, s->len))
		return sf__fail(s, -EINVAL, "FRE sub-section (%u bytes at %u) past the section end",
				h->fre_len, freoff);
	s->fre_end = s->fre_pos + h->fre_len;
	return 0;
}

int sframe__info(const void *sec, size_t len, struct sframe_info *info, char *err,
		 size_t errlen)
{
	struct sf_sec s = { .p = sec, .len = len, .err = err, .errlen = errlen };
	int ret;

	if (!sec && len)
		return sf__fail(&s, -EINVAL, "no section data");
	ret = sf__header(&s);
	if (!ret)
		*info = s.info;
	return ret;
}

const char *sframe__abi_name(uint8_t abi)
{
	switch (abi) {
	case SFRAME_ABI_AARCH64_BE: return "aarch64-be";
	case SFRAME_ABI_AARCH64_LE: return "aarch64-le";
	case SFRAME_ABI_AMD64_LE: return "amd64";
	case SFRAME_ABI_S390X_BE: return "s390x";
	default: return "unknown";
	}
}

/* What this reader can use; a flag it does not know might change the encoding. */
static int sf__check_use(struct sf_sec *s)
{
	static const uint8_t known[4] = {
		[1] = SF_F_SORTED | SF_F_FRAME_POINTER,
		[2] = SF_F_SORTED | SF_F_FRAME_POINTER | SF_F_PCREL,
		[3] = SF_F_SORTED | SF_F_PCREL,
	};
	const struct sframe_info *h = &s->info;

	if (h->abi != SFRAME_ABI_AMD64_LE)
		return sf__fail(s, -EOPNOTSUPP, "ABI %s (%u) not supported: only amd64 (3)",
				sframe__abi_name(h->abi), h->abi);
	if (h->flags & ~known[h->version])
		return sf__fail(s, -EOPNOTSUPP, "unknown flags 0x%02x for version %u",
				h->flags & ~known[h->version], h->version);
	return 0;
}

/* v3: num_fres, info, info2 and rep_size live in front of the FREs. */
static int fde__attr_v3(struct sf_sec *s, struct sf_fde *f, uint32_t fre_off, uint8_t *info)
{
	const uint8_t *a;
	uint8_t type;

	if (!sf__fits(s->fre_pos, (uint64_t)fre_off + SF_FDA_V3_SIZE, s->fre_end))
		return sf__fail(s, -EINVAL, "FDE %u: attributes at FRE offset %u past the FRE "
				"sub-section (%u bytes)", f->ix, fre_off, s->info.fre_len);
	a = s->p + s->fre_pos + fre_off;
	f->num_fres = rd16(a);
	*info = a[2];
	type = a[3] & 0x1f;
	f->rep_size = a[4];
	if (type != SF_FDE_TYPE_DEFAULT && type != SF_FDE_TYPE_FLEX)
		return sf__fail(s, -EINVAL, "FDE %u: unknown FDE type %u", f->ix, type);
	f->flex = type == SF_FDE_TYPE_FLEX;
	f->signal = *info >> 7;
	f->fres = s->fre_pos + fre_off + SF_FDA_V3_SIZE;
	return 0;
}

/* Decode FDE @ix; @prev is the previous FDE's start, which must not be above ours. */
static int fde__parse(struct sf_sec *s, uint32_t ix, uint64_t prev, struct sf_fde *f)
{
	size_t pos = s->fde_pos + (size_t)ix * s->fde_size;
	const uint8_t *p = s->p + pos;
	uint32_t fre_off;
	int64_t start;
	uint8_t info = 0;
	int err;

	memset(f, 0, sizeof(*f));
	f->ix = ix;
	if (s->info.version == 3) {
		start = (int64_t)rd64(p);
		f->size = rd32(p + 8);
		fre_off = rd32(p + 12);
		err = fde__attr_v3(s, f, fre_off, &info);
		if (err)
			return err;
	} else {
		start = (int32_t)rd32(p);
		f->size = rd32(p + 4);
		fre_off = rd32(p + 8);
		f->num_fres = rd32(p + 12);
		info = p[16];
		f->rep_size = s->info.version == 1 ? SF_PLT_BLOCK : p[17];
		if (!sf__fits(s->fre_pos, fre_off, s->fre_end))
			return sf__fail(s, -EINVAL, "FDE %u: FRE offset %u past the FRE "
					"sub-section (%u bytes)", ix, fre_off, s->info.fre_len);
		f->fres = s->fre_pos + fre_off;
	}
	f->fre_type = info & 0xf;
	f->mask = (info >> 4) & 1;
	if (f->fre_type > 2)
		return sf__fail(s, -EINVAL, "FDE %u: bad FRE type %u", ix, f->fre_type);
	if (f->mask && !f->rep_size)
		return sf__fail(s, -EINVAL, "FDE %u: PCMASK with repeat size 0", ix);
	/* Unsigned wrap-around is the intended two's-complement addition. */
	f->start = (s->info.flags & SF_F_PCREL ? s->sec_vaddr + pos : s->sec_vaddr) +
		   (uint64_t)start;
	if (f->start > UINT64_MAX - f->size)
		return sf__fail(s, -EINVAL, "FDE %u: function end past 2^64 (start 0x%llx, size %u)",
				ix, (unsigned long long)f->start, f->size);
	if (ix && f->start < prev)
		return sf__fail(s, -EINVAL, "FDE %u out of order (0x%llx after 0x%llx)", ix,
				(unsigned long long)f->start, (unsigned long long)prev);
	return 0;
}

/* Most data words a default AMD64 FRE may carry: CFA, [RA], FP. */
static unsigned sf__max_words(const struct sf_sec *s, const struct sf_fde *f)
{
	if (f->flex)
		return SF_FRE_MAX_WORDS;
	return s->info.cfa_fixed_ra ? 2 : 3;
}

static void fre__words(const uint8_t *p, unsigned wsz, struct sf_fre *r)
{
	unsigned i;

	for (i = 0; i < r->n; i++, p += wsz) {
		if (wsz == 1)
			r->w[i] = (int8_t)p[0];
		else if (wsz == 2)
			r->w[i] = (int16_t)rd16(p);
		else
			r->w[i] = (int32_t)rd32(p);
	}
}

/*
 * Decode the next FRE of @f. Its bytes must lie in the FRE sub-section, its start must be
 * above the previous one, and it must be below the limit (the size, or the repeat size for
 * PCMASK).
 * Return: 1 and *r set, 0 after the last FRE, or -EINVAL.
 */
static int fre__next(struct sf_sec *s, const struct sf_fde *f, struct sf_fre_iter *it,
		     struct sf_fre *r)
{
	size_t asz = (size_t)1 << f->fre_type, wsz;
	uint32_t limit = f->mask ? f->rep_size : f->size;
	const uint8_t *p;

	if (it->i >= f->num_fres)
		return 0;
	if (it->counted && !s->fres_left--)
		return sf__fail(s, -EINVAL, "FDE %u: more FREs than the header's %u", f->ix,
				s->info.num_fres);
	if (!sf__fits(it->pos, asz + 1, s->fre_end))
		return sf__fail(s, -EINVAL, "FDE %u FRE %u: truncated", f->ix, it->i);
	p = s->p + it->pos;
	r->start = asz == 1 ? p[0] : asz == 2 ? rd16(p) : rd32(p);
	r->info = p[asz];
	r->n = (r->info >> 1) & 0xf;
	if (((r->info >> 5) & 3) == 3)
		return sf__fail(s, -EINVAL, "FDE %u FRE %u: bad offset size", f->ix, it->i);
	wsz = (size_t)1 << ((r->info >> 5) & 3);
	if (r->n > sf__max_words(s, f))
		return sf__fail(s, -EINVAL, "FDE %u FRE %u: %u offsets, at most %u", f->ix, it->i,
				r->n, sf__max_words(s, f));
	if (!sf__fits(it->pos + asz + 1, (uint64_t)r->n * wsz, s->fre_end))
		return sf__fail(s, -EINVAL, "FDE %u FRE %u: truncated", f->ix, it->i);
	if ((int64_t)r->start <= it->prev)
		return sf__fail(s, -EINVAL, "FDE %u FRE %u: start 0x%x not above 0x%llx", f->ix,
				it->i, r->start, (unsigned long long)it->prev);
	/* A zero-size FDE describes no code; its FREs are only checked for bounds. */
	if ((f->mask || f->size) && r->start >= limit)
		return sf__fail(s, -EINVAL, "FDE %u FRE %u: start 0x%x not below %s %u", f->ix,
				it->i, r->start, f->mask ? "repeat size" : "function size", limit);
	fre__words(p + asz + 1, wsz, r);
	it->pos += asz + 1 + r->n * wsz;
	it->prev = r->start;
	it->i++;
	return 1;
}

/* A row with no offsets: OUTERMOST, UNSUPPORTED or NONE. */
static struct unwind_row row__special(enum unwind_cfa cfa)
{
	return (struct unwind_row){ .cfa = cfa, .rbp = UNWIND_RBP_UNDEFINED };
}

/*
 * Map one FRE to a row.
 * Return: -1 when the rule fits, else the enum unwind_unsupported reason (the row is then
 * UNSUPPORTED).
 */
static int fre__to_row(const struct sf_sec *s, const struct sf_fde *f, const struct sf_fre *r,
		       struct unwind_row *row)
{
	int8_t fixed_ra = s->info.cfa_fixed_ra;
	unsigned fp_ix = fixed_ra ? 1 : 2;
	int32_t fp;

	*row = row__special(UNWIND_CFA_UNSUPPORTED);
	if (f->flex)
		return UNW_UNSUP_CFA_REG;
	if (f->signal || (r->info & 0x80) || (fixed_ra && fixed_ra != SF_AMD64_RA_OFF))
		return UNW_UNSUP_RA_RULE;
	if (r->n == 0) {
		*row = row__special(UNWIND_CFA_OUTERMOST);
		return -1;
	}
	if (!fixed_ra && (r->n < 2 || r->w[1] != SF_AMD64_RA_OFF))
		return UNW_UNSUP_RA_RULE;
	/* A fixed FP offset is never emitted for AMD64; rather than guess its meaning, stop. */
	if (s->info.cfa_fixed_fp)
		return UNW_UNSUP_RBP_RULE;
	if (r->n > fp_ix) {
		fp = r->w[fp_ix];
		if (fp % 8 || fp / 8 < INT8_MIN || fp / 8 > INT8_MAX)
			return UNW_UNSUP_RBP_RANGE;
		row->rbp = UNWIND_RBP_SAVED;
		row->rbp_off = (int8_t)(fp / 8);
	} else {
		row->rbp = UNWIND_RBP_SAME;
	}
	if (unwind_row_set_cfa(row, !(r->info & 1), r->w[0]))
		return UNW_UNSUP_CFA_RANGE;
	return -1;
}

/* Append @row at @vaddr, or count it when its pc cannot be expressed in 32 bits. */
static int sf__push(struct sf_sec *s, uint64_t vaddr, struct unwind_row row, int why)
{
	if (vaddr < s->base || vaddr - s->base > UINT32_MAX) {
		s->out->unsupported[UNW_UNSUP_PC_RANGE]++;
		return 0;
	}
	row.pc = (uint32_t)(vaddr - s->base);
	if (unwind_rows__push(s->out, &row))
		return sf__fail(s, -ENOMEM, "out of memory for %zu rows", s->out->n + 1);
	if (why >= 0)
		s->out->unsupported[why]++;
	return 0;
}

static int fde__emit_inc(struct sf_sec *s, const struct sf_fde *f)
{
	struct sf_fre_iter it = { .pos = f->fres, .prev = -1, .counted = true };
	struct unwind_row row;
	struct sf_fre r;
	int ret, why;

	while ((ret = fre__next(s, f, &it, &r)) > 0) {
		if (!f->size)
			continue;
		why = fre__to_row(s, f, &r, &row);
		ret = sf__push(s, f->start + r.start, row, why);
		if (ret)
			return ret;
	}
	return ret;
}

/* The lazy x86-64 pltN stub: CFA = rsp+8, then rsp+16 once "push $n" at +6 ran (from +11). */
static bool fde__is_std_plt(const struct sf_sec *s, const struct sf_fde *f,
			    const struct sf_fre *r, uint32_t n)
{
	if (n != 2 || f->rep_size != SF_PLT_BLOCK || s->info.cfa_fixed_ra != SF_AMD64_RA_OFF ||
	    s->info.cfa_fixed_fp || f->flex || f->signal)
		return false;
	if (f->start % SF_PLT_BLOCK || (f->start - s->base) % SF_PLT_BLOCK)
		return false;
	return r[0].start == 0 && r[0].info == r[1].info && (r[0].info & 0x81) == 1 &&
	       r[0].n == 1 && r[0].w[0] == 8 && r[1].start == SF_PLT_SWITCH && r[1].n == 1 &&
	       r[1].w[0] == 16;
}

/* Every FRE of every repeated block, in address order, within the expansion budget. */
static int fde__expand_mask(struct sf_sec *s, const struct sf_fde *f)
{
	uint64_t blocks = ((uint64_t)f->size + f->rep_size - 1) / f->rep_size, k;
	struct unwind_row row;
	struct sf_fre r;
	int ret = 0, why;

	if (blocks * f->num_fres > s->expand_left)
		return sf__push(s, f->start, row__special(UNWIND_CFA_UNSUPPORTED),
				UNW_UNSUP_CFA_EXPR);
	s->expand_left -= blocks * f->num_fres;
	for (k = 0; k < blocks && !ret; k++) {
		struct sf_fre_iter it = { .pos = f->fres, .prev = -1 };

		while ((ret = fre__next(s, f, &it, &r)) > 0) {
			if (k * f->rep_size + r.start >= f->size)
				break;
			why = fre__to_row(s, f, &r, &row);
			ret = sf__push(s, f->start + k * f->rep_size + r.start, row, why);
			if (ret)
				break;
		}
	}
	return ret < 0 ? ret : 0;
}

static int fde__emit_mask(struct sf_sec *s, const struct sf_fde *f)
{
	struct sf_fre_iter it = { .pos = f->fres, .prev = -1, .counted = true };
	struct sf_fre first[2], r;
	uint32_t n = 0;
	int ret;

	/* Validate every FRE once and keep the first two for the pattern check. */
	while ((ret = fre__next(s, f, &it, &r)) > 0) {
		if (n < 2)
			first[n] = r;
		n++;
	}
	if (ret < 0 || !f->size || !n)
		return ret;
	if (fde__is_std_plt(s, f, first, n)) {
		struct unwind_row row = { .cfa = UNWIND_CFA_PLT, .rbp = UNWIND_RBP_SAME };

		return sf__push(s, f->start, row, -1);
	}
	return fde__expand_mask(s, f);
}

static int sf__fdes(struct sf_sec *s)
{
	uint64_t prev = 0;
	struct sf_fde f;
	uint32_t ix;
	int err;

	for (ix = 0; ix < s->info.num_fdes; ix++) {
		err = fde__parse(s, ix, prev, &f);
		if (!err)
			err = f.mask ? fde__emit_mask(s, &f) : fde__emit_inc(s, &f);
		/* Close the range: the gap up to the next function has no unwind info. */
		if (!err && f.size)
			err = sf__push(s, f.start + f.size, row__special(UNWIND_CFA_NONE), -1);
		if (err)
			return err;
		prev = f.start;
	}
	return 0;
}

int sframe__read(const void *sec, size_t len, uint64_t sec_vaddr, uint64_t base,
		 struct unwind_rows *out, char *err, size_t errlen)
{
	struct sf_sec s = { .p = sec, .len = len, .sec_vaddr = sec_vaddr, .base = base,
			    .expand_left = SF_MASK_EXPAND_MAX, .out = out, .err = err,
			    .errlen = errlen };
	uint64_t saved[UNW_UNSUP_MAX];
	size_t n0 = out->n;
	int ret;

	if (!sec && len)
		return sf__fail(&s, -EINVAL, "no section data");
	memcpy(saved, out->unsupported, sizeof(saved));
	ret = sf__header(&s);
	if (!ret)
		ret = sf__check_use(&s);
	if (!ret) {
		s.fres_left = s.info.num_fres;
		ret = sf__fdes(&s);
	}
	if (ret) {
		out->n = n0;
		memcpy(out->unsupported, saved, sizeof(saved));
	}
	return ret;
}
