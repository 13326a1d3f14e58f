// SPDX-License-Identifier: GPL-2.0
/* The kernel-symbol door: kallsyms live, loaded on the first question. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "lib/sym/ksyms_source.h"
#include "lib/util/log.h"

static struct ksyms *live;
static bool live_tried;
static struct ksyms_source cur;

const struct ksym *ksyms_source_live_find(uint64_t addr)
{
	if (!live_tried) {
		live_tried = true;
		live = ksyms__load(NULL);
		if (!live)
			st_warn("kallsyms: cannot read /proc/kallsyms (%s): kernel frames stay "
				"addresses", strerror(errno));
	}
	return live ? ksyms__find(live, addr) : NULL;
}

void ksyms_source_set(const struct ksyms_source *s)
{
	memset(&cur, 0, sizeof(cur));
	if (s)
		cur = *s;
}

const struct ksym *ksyms_source_find(uint64_t addr)
{
	return cur.find ? cur.find(cur.ctx, addr) : ksyms_source_live_find(addr);
}

void ksyms_source_release(void)
{
	ksyms__free(live);
	live = NULL;
	live_tried = false;
}
