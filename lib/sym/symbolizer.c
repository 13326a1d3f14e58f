// SPDX-License-Identifier: GPL-2.0
/* The symbolizer: raw addresses to frame names, with counts of what stays unknown. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/proc/registry.h"
#include "lib/report/report.h"
#include "lib/sym/build_id_hex.h"
#include "lib/sym/ksyms.h"
#include "lib/sym/symbolizer.h"
#include "lib/util/log.h"

struct symbolizer {
	struct ksyms *ksyms; /* NULL when kallsyms is unreadable: kernel frames stay raw */
	struct proc_registry *procs;
	struct build_id_hex *build_ids; /* the registry's build IDs as frames carry them */
	struct symbolizer_stats stats;
};

struct symbolizer *symbolizer__new(void)
{
	struct symbolizer *sz = calloc(1, sizeof(*sz));

	if (!sz)
		return NULL;
	sz->procs = procs__new();
	sz->build_ids = build_id_hex__new();
	if (!sz->procs || !sz->build_ids) {
		procs__free(sz->procs);
		build_id_hex__free(sz->build_ids);
		free(sz);
		return NULL;
	}
	sz->ksyms = ksyms__load(NULL);
	if (!sz->ksyms)
		st_warn("kallsyms: cannot read /proc/kallsyms (%s): kernel frames stay addresses",
			strerror(errno));
	return sz;
}

int symbolizer__see(struct symbolizer *sz, int pid)
{
	int err = procs__see(sz->procs, pid);

	if (err == -ESRCH)
		sz->stats.pid_gone++;
	return err;
}

int symbolizer__set_maps(struct symbolizer *sz, int pid, const struct proc_map *maps, size_t n)
{
	return procs__set_maps(sz->procs, pid, maps, n);
}

/*
 * A return address points after the call; when the call is a function's
 * last instruction (a noreturn callee) it already belongs to the next
 * function. Looking up addr - 1 names the caller correctly. This is the one
 * place the rule is applied.
 */
static uint64_t lookup_addr(uint64_t addr, bool is_return)
{
	return is_return && addr ? addr - 1 : addr;
}

void symbolizer__kernel_frame(struct symbolizer *sz, uint64_t addr, bool is_return,
			      struct report_frame *out, char *buf, size_t len)
{
	const struct ksym *k = sz->ksyms ? ksyms__find(sz->ksyms, lookup_addr(addr, is_return))
					 : NULL;

	*out = (struct report_frame){ .name = buf, .addr = addr, .kind = REPORT_FRAME_KERNEL };
	if (!k) {
		sz->stats.kernel_unknown++;
		snprintf(buf, len, "[unknown] %#llx", (unsigned long long)addr);
		return;
	}
	snprintf(buf, len, "%s", k->name);
	out->module = k->module;
	out->sym_off = addr - k->addr;
	out->flags = REPORT_FRAME_HAS_SYM;
}

void symbolizer__user_frame(struct symbolizer *sz, int pid, uint64_t addr, bool is_return,
			    struct report_frame *out, char *buf, size_t len)
{
	struct user_frame f;
	int err;

	*out = (struct report_frame){ .name = buf, .addr = addr, .kind = REPORT_FRAME_USER };
	err = procs__resolve(sz->procs, pid, lookup_addr(addr, is_return), &f);
	if (err == -ESRCH && !symbolizer__see(sz, pid))
		err = procs__resolve(sz->procs, pid, lookup_addr(addr, is_return), &f);
	if (!err) {
		out->module = f.path && *f.path ? f.path : NULL;
		out->build_id = build_id_hex__get(sz->build_ids, f.build_id, f.build_id_len);
		/* The offset of the address itself, not of the pc - 1 looked up. */
		out->file_off = f.file_off + (lookup_addr(addr, is_return) != addr);
		out->flags = REPORT_FRAME_HAS_OFF;
	}
	if (!err && f.sym) {
		snprintf(buf, len, "%s", f.sym);
		out->sym_off = f.sym_off + (lookup_addr(addr, is_return) != addr);
		out->flags |= REPORT_FRAME_HAS_SYM;
		return;
	}
	if (!err)
		sz->stats.user_no_sym++;
	else
		sz->stats.user_no_map++;
	/* An executable mapping without a file is JIT code or similar: "[anon]", as perf says. */
	snprintf(buf, len, "[unknown] %#llx (%s)", (unsigned long long)addr,
		 err || !f.path ? "unknown mapping" : *f.path ? f.path : "[anon]");
}

const struct symbolizer_stats *symbolizer__stats(const struct symbolizer *sz)
{
	return &sz->stats;
}

void symbolizer__report(const struct symbolizer *sz)
{
	const struct symbolizer_stats *s = &sz->stats;

	if (s->kernel_unknown)
		fprintf(stderr, "stacktap: %llu kernel frames without a symbol\n",
			(unsigned long long)s->kernel_unknown);
	if (s->user_no_map)
		fprintf(stderr, "stacktap: %llu user frames outside every known mapping\n",
			(unsigned long long)s->user_no_map);
	if (s->user_no_sym)
		fprintf(stderr, "stacktap: %llu user frames without a symbol\n",
			(unsigned long long)s->user_no_sym);
	if (s->pid_gone)
		fprintf(stderr, "stacktap: %llu processes exited before their mappings were read\n",
			(unsigned long long)s->pid_gone);
}

void symbolizer__free(struct symbolizer *sz)
{
	if (!sz)
		return;
	ksyms__free(sz->ksyms);
	procs__free(sz->procs);
	build_id_hex__free(sz->build_ids);
	free(sz);
}
