// SPDX-License-Identifier: GPL-2.0
/* MiniDebugInfo: the xz-compressed ELF in .gnu_debugdata, opened as an ELF in memory. */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/minidebug.h"
#include "lib/util/elf_section.h"
#include "lib/util/log.h"

struct minidebug {
	void *image;
	size_t len;
	Elf *elf;
};

/* liblzma's verdicts as our errors. */
static int xz__err(lzma_ret r)
{
	switch (r) {
	case LZMA_MEM_ERROR:
		return -ENOMEM;
	case LZMA_MEMLIMIT_ERROR:
		return -EFBIG;
	default:
		return -EINVAL;
	}
}

/* Grow *buf toward @cap; Return: 0, -EFBIG at the cap, -ENOMEM. */
static int xz__grow(uint8_t **buf, size_t *size, size_t cap)
{
	size_t want = *size < cap / 2 ? *size * 2 : cap;
	uint8_t *nb;

	if (*size >= cap)
		return -EFBIG;
	nb = realloc(*buf, want);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*size = want;
	return 0;
}

int minidebug_xz_decode(const void *in, size_t in_len, size_t max_out, void **out,
			size_t *out_len)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t cap = max_out ? max_out : MINIDEBUG_MAX_BYTES;
	size_t size = in_len < cap / 4 ? in_len * 4 + 4096 : cap; /* symtabs shrink ~4x */
	uint8_t *buf = NULL;
	lzma_ret r;
	int err;

	size = size < cap ? size : cap;
	r = lzma_stream_decoder(&strm, MINIDEBUG_MEMLIMIT, 0);
	if (r != LZMA_OK)
		return xz__err(r);
	buf = malloc(size ? size : 1);
	err = -ENOMEM;
	if (!buf)
		goto out;
	strm.next_in = in;
	strm.avail_in = in_len;
	strm.next_out = buf;
	strm.avail_out = size;
	for (;;) {
		/* LZMA_FINISH: all input is here, so a truncated stream is an error. */
		r = lzma_code(&strm, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK && r != LZMA_BUF_ERROR) {
			err = xz__err(r);
			goto out;
		}
		if (strm.avail_out) { /* no progress with room left: the input ran out */
			err = -EINVAL;
			goto out;
		}
		err = xz__grow(&buf, &size, cap);
		if (err)
			goto out;
		strm.next_out = buf + strm.total_out;
		strm.avail_out = size - strm.total_out;
	}
	err = strm.avail_in ? -EINVAL : 0; /* one stream, nothing after it */
out:
	if (!err) {
		*out = buf;
		*out_len = strm.total_out;
	} else {
		free(buf);
	}
	lzma_end(&strm);
	return err;
}

static int minidebug__elf_open(struct minidebug *md, Elf *parent)
{
	GElf_Ehdr eh;

	md->elf = elf_memory(md->image, md->len);
	if (!md->elf || elf_kind(md->elf) != ELF_K_ELF || !gelf_getehdr(md->elf, &eh))
		return -EINVAL;
	if (gelf_getclass(md->elf) != gelf_getclass(parent))
		return -EINVAL;
	return 0;
}

struct minidebug *minidebug__open(Elf *elf, const char *name)
{
	struct minidebug *md;
	Elf_Data *d;
	Elf_Scn *scn;
	GElf_Shdr sh;
	int err;

	scn = elf_section_by_name(elf, ".gnu_debugdata", &sh);
	if (!scn) {
		errno = ENOENT;
		return NULL;
	}
	md = calloc(1, sizeof(*md));
	if (!md) {
		errno = ENOMEM;
		return NULL;
	}
	d = elf_rawdata(scn, NULL);
	err = d && d->d_buf ? minidebug_xz_decode(d->d_buf, d->d_size, 0, &md->image, &md->len)
			    : -EINVAL;
	if (!err)
		err = minidebug__elf_open(md, elf);
	if (err) {
		if (err != -ENOMEM)
			st_warn("minidebug: %s: .gnu_debugdata: %s", name,
				err == -EFBIG ? "larger than the cap" : "not an xz-compressed ELF");
		minidebug__free(md);
		errno = -err;
		return NULL;
	}
	return md;
}

Elf *minidebug__elf(const struct minidebug *md)
{
	return md->elf;
}

const void *minidebug__image(const struct minidebug *md, size_t *len)
{
	*len = md->len;
	return md->image;
}

void minidebug__free(struct minidebug *md)
{
	if (!md)
		return;
	elf_end(md->elf);
	free(md->image);
	free(md);
}
