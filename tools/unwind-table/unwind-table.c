// SPDX-License-Identifier: GPL-2.0
/* stacktap unwind-table: print the compact unwind table of an ELF file, or the row for one address. */
#include <argp.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/unwind/page_index.h"
#include "lib/unwind/table.h"
#include "lib/unwind/table_cache.h"
#include "lib/util/log.h"
#include "lib/util/parse.h"

struct ut_env {
	const char *file;
	uint64_t addr;
	bool have_addr;
	bool quiet_rows; /* --summary: header only */
	bool verbose;    /* -v: where the table came from, what the cache did */
};

enum { UT_OPT_NO_CACHE = 0x100 };

static const char ut_doc[] =
	"Print the compact unwind table stacktap builds for an ELF file, or the row\n"
	"covering one address. Rows come from .sframe, .eh_frame and .debug_frame (of\n"
	"the file, else of its separate debug file), merged one function at a time: a\n"
	"function takes its rows from the first of these that describes it.\n"
	"\v"
	"Rows are printed with link-time addresses (base + pc). Columns: vaddr, the CFA\n"
	"rule (rsp+N, rbp+N, plt, signal, outermost, unsupported, none), where the\n"
	"caller's rbp is (same, undef, c+N = saved at CFA+N) and the source of the\n"
	"row. The return address is at CFA-8.\n"
	"\n"
	"Tables are kept in a cache ($STACKTAP_CACHE_DIR, else ~/.cache/stacktap) keyed\n"
	"by build ID; a later run, of this command or a tracer, loads them from there.\n"
	"\n"
	"EXAMPLES:\n"
	"    stacktap unwind-table /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"        whole table of libc\n"
	"    stacktap unwind-table --summary /usr/bin/python3\n"
	"        sources, build ID, row count, coverage, unsupported rules\n"
	"    stacktap unwind-table --addr 0x27290 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"        the row that covers link-time address 0x27290\n"
	"    stacktap unwind-table -v --no-table-cache /usr/bin/node > built.txt\n"
	"        build the table afresh (not from the table cache), and say so\n";

static const struct argp_option ut_opts[] = {
	{ "addr", 'a', "ADDR", 0, "print only the row covering link-time address ADDR", 0 },
	{ "summary", 's', NULL, 0, "print the header only, no rows", 0 },
	{ "verbose", 'v', NULL, 0, "say on stderr whether the table was built or loaded from "
	  "the table cache", 0 },
	{ "no-table-cache", UT_OPT_NO_CACHE, NULL, 0, "build the table; neither load it from "
	  "the table cache nor save it there", 0 },
	{},
};

static error_t ut_parse(int key, char *arg, struct argp_state *state)
{
	struct ut_env *env = state->input;

	switch (key) {
	case 'a':
		if (parse_u64(arg, 0, UINT64_MAX, &env->addr))
			argp_error(state, "bad address '%s' (decimal or 0x hex)", arg);
		env->have_addr = true;
		break;
	case 's':
		env->quiet_rows = true;
		break;
	case 'v':
		env->verbose = st_verbose = true;
		break;
	case UT_OPT_NO_CACHE:
		table_cache__disable();
		break;
	case ARGP_KEY_ARG:
		if (env->file)
			argp_error(state, "one FILE only");
		env->file = arg;
		break;
	case ARGP_KEY_END:
		if (!env->file)
			argp_error(state, "FILE is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* "rsp+16", "plt", ... into @buf. */
static const char *ut_cfa(const struct unwind_row *r, char *buf, size_t len)
{
	static const char *const names[] = { [UNWIND_CFA_PLT] = "plt",
					     [UNWIND_CFA_OUTERMOST] = "outermost",
					     [UNWIND_CFA_UNSUPPORTED] = "unsupported",
					     [UNWIND_CFA_NONE] = "none",
					     [UNWIND_CFA_SIGNAL] = "signal" };

	if (r->cfa == UNWIND_CFA_RSP || r->cfa == UNWIND_CFA_RBP)
		snprintf(buf, len, "%s%+d", r->cfa == UNWIND_CFA_RSP ? "rsp" : "rbp", r->cfa_off);
	else if (r->cfa == UNWIND_CFA_RSP8 || r->cfa == UNWIND_CFA_RBP8)
		snprintf(buf, len, "%s%+d", r->cfa == UNWIND_CFA_RSP8 ? "rsp" : "rbp", r->cfa_off * 8);
	else
		snprintf(buf, len, "%s", r->cfa < sizeof(names) / sizeof(names[0]) ? names[r->cfa] : "?");
	return buf;
}

static const char *ut_rbp(const struct unwind_row *r, char *buf, size_t len)
{
	if (r->rbp == UNWIND_RBP_SAVED)
		snprintf(buf, len, "c%+d", r->rbp_off * 8);
	else
		snprintf(buf, len, "%s", r->rbp == UNWIND_RBP_SAME ? "same" : "undef");
	return buf;
}

/* One row; @at is the address whose source to name (the row's own pc in a listing). */
static void ut_print_row(const struct unwind_table *t, const struct unwind_row *r, uint64_t at)
{
	char cfa[32], rbp[32];
	enum unwind_source src = r->cfa == UNWIND_CFA_NONE ? UNWIND_SRC_NONE :
				 unwind_table__source_at(t, at);

	printf("%#014" PRIx64 "  %-12s %-8s %s\n", t->base + r->pc, ut_cfa(r, cfa, sizeof(cfa)),
	       ut_rbp(r, rbp, sizeof(rbp)), src == UNWIND_SRC_NONE ? "-" : unwind_source_name(src));
}

/* "source: sframe + eh_frame + debug_frame from PATH": every source that gave rows. */
static void ut_print_sources(const struct unwind_table *t)
{
	const char *sep = "";
	int s;

	printf("source: ");
	for (s = UNWIND_SRC_NONE + 1; s < UNWIND_SRC_MAX; s++) {
		if (!t->src_fdes[s])
			continue;
		printf("%s%s", sep, unwind_source_name(s));
		if (s == UNWIND_SRC_DEBUG_FRAME && t->cfi_path)
			printf(" from %s", t->cfi_path);
		sep = " + ";
	}
	printf("%s%s\n", *sep ? "" : "none",
	       t->go ? " (Go: .debug_frame not used, frame pointers instead)" : "");
	printf("fdes-by-source:");
	for (s = UNWIND_SRC_NONE + 1; s < UNWIND_SRC_MAX; s++)
		printf(" %s=%" PRIu64, unwind_source_name(s), t->src_fdes[s]);
	printf("\n");
}

/* The page index the BPF walker gets beside the rows (lib/unwind/page_index.h). */
static void ut_print_index(const struct unwind_table *t)
{
	struct page_index ix;

	if (page_index__build(t->rows.rows, t->rows.n, &ix)) {
		printf("page-index: none (rows out of order)\n");
		return;
	}
	printf("page-index: %u blocks of %u bytes, %zu bytes\n", ix.nblocks,
	       ix.nblocks ? 1u << ix.shift : 0, (size_t)ix.nblocks * sizeof(*ix.slots));
	page_index__release(&ix);
}

static void ut_print_header(const struct unwind_table *t)
{
	char id[2 * UNWIND_ID_MAX + 1];
	int i, any = 0;

	printf("file: %s\n", t->path);
	ut_print_sources(t);
	printf("%s: %s\n", t->id_is_hash ? "content-hash" : "build-id",
	       unwind_table__id_hex(t, id, sizeof(id)));
	printf("base: %#" PRIx64 "\n", t->base);
	printf("rows: %zu\n", t->rows.n);
	printf("bytes: %zu\n", t->rows.n * sizeof(struct unwind_row));
	ut_print_index(t);
	printf("coverage: %.1f%% of %" PRIu64 " executable bytes\n",
	       t->exec_bytes ? 100.0 * (double)t->covered_bytes / (double)t->exec_bytes : 0.0,
	       t->exec_bytes);
	printf("fdes: %" PRIu64 " (signal %" PRIu64 ", bad %" PRIu64 ")\n", t->cfi.fdes,
	       t->cfi.signal_fdes, t->cfi.bad_entries);
	printf("unsupported:");
	for (i = 0; i < UNW_UNSUP_MAX; i++) {
		if (!t->rows.unsupported[i])
			continue;
		printf(" %s=%" PRIu64, unwind_unsupported_name(i), t->rows.unsupported[i]);
		any = 1;
	}
	printf("%s\n", any ? "" : " none");
}

static int ut_print_addr(const struct unwind_table *t, uint64_t addr)
{
	const struct unwind_row *r = unwind_table__find(t, addr);

	if (!r || r->cfa == UNWIND_CFA_NONE) {
		st_err("unwind-table: %s: no row covers %#" PRIx64, t->path, addr);
		return 1;
	}
	ut_print_row(t, r, addr);
	return 0;
}

int unwind_table_main(int argc, char **argv)
{
	struct ut_env env = { 0 };
	const struct argp argp = { ut_opts, ut_parse, "FILE", ut_doc };
	struct unwind_table *t;
	size_t i;
	int ret = 0;

	argp_err_exit_status = 2; /* usage errors; --help exits 0 */
	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return 2;
	/* The builder has logged why ("stacktap: unwind: FILE: reason"), once. */
	t = unwind_table__build(env.file);
	if (!t)
		return 1;
	if (t->source == UNWIND_SRC_NONE && t->go) {
		/* Its .debug_frame is there but left out on purpose (lib/unwind/sources.c). */
		st_err("unwind-table: %s: no unwind table: Go code, whose .debug_frame is not used "
		       "(frame pointers are)", env.file);
		ret = 1;
	} else if (t->source == UNWIND_SRC_NONE) {
		st_err("unwind-table: %s: no unwind information (.sframe, .eh_frame, .debug_frame)",
		       env.file);
		ret = 1;
	} else if (env.have_addr) {
		ret = ut_print_addr(t, env.addr);
	} else {
		ut_print_header(t);
		if (!env.quiet_rows) {
			printf("%14s  %-12s %-8s %s\n", "vaddr", "cfa", "rbp", "source");
			for (i = 0; i < t->rows.n; i++)
				ut_print_row(t, &t->rows.rows[i],
					     t->base + t->rows.rows[i].pc);
		}
	}
	unwind_table__free(t);
	if (env.verbose)
		table_cache__report();
	return ret;
}
