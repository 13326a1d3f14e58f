// SPDX-License-Identifier: GPL-2.0
/*
 * pprof writer. Our own encoder (lib/out/protobuf.c) over zlib rather than
 * protobuf-c: profile.proto is five small messages, protobuf-c would need
 * the .proto file vendored and a code generator in the build, and Go's
 * pprof checks what we write in the tests (docs/outputs.md).
 *
 * Tables are built while the samples are encoded: a string, function,
 * location or mapping gets its id the first time a frame needs it. Mappings
 * are encoded last, once every address in them is known.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "lib/out/pprof.h"
#include "lib/out/protobuf.h"
#include "lib/stack/store.h"

/* profile.proto field numbers. */
enum {
	PF_SAMPLE_TYPE = 1, PF_SAMPLE, PF_MAPPING, PF_LOCATION, PF_FUNCTION, PF_STRING,
	PF_TIME = 9, PF_DURATION, PF_PERIOD_TYPE, PF_PERIOD, PF_COMMENT, PF_DEFAULT_TYPE,
};
enum { VT_TYPE = 1, VT_UNIT };
enum { SA_LOCATION = 1, SA_VALUE, SA_LABEL };
enum { LA_KEY = 1, LA_STR, LA_NUM };
enum {
	MA_ID = 1, MA_START, MA_LIMIT, MA_OFFSET, MA_FILE, MA_BUILD_ID, MA_HAS_FUNCTIONS,
	MA_HAS_FILENAMES, MA_HAS_LINES, MA_HAS_INLINES,
};
enum { LO_ID = 1, LO_MAPPING, LO_ADDRESS, LO_LINE };
enum { LI_FUNCTION = 1, LI_LINE };
enum { FN_ID = 1, FN_NAME, FN_SYSTEM_NAME, FN_FILE };

/* One loaded file (user), or the kernel or one module: what a location lies in. */
struct pp_mapping {
	const char *file, *build_id; /* interned in the report */
	uint8_t kernel;
	uint64_t start, limit;       /* the addresses seen in it: [start, limit) */
	uint8_t has_files, has_lines, has_inlines;
	uint64_t id;                 /* pprof's id: the order pp__order_mappings() chose */
};

struct pp {
	struct pb_buf out, msg, loc, sub; /* top level; function/sample; location; line/label */
	struct stack_store *strs, *funcs, *locs, *maps;
	struct pp_mapping *mapping, **byid; /* in order of first sight; by pprof id - 1 */
	size_t nmap, capmap;
	uint64_t *ids;  /* scratch: one sample's location ids */
	size_t capids;
	int err;
};

/* The id of @key in @st (1, 2, ... in order of first sight); 0: out of memory. */
static uint64_t pp__id(struct pp *p, struct stack_store *st, const void *key, size_t len,
		       bool *is_new)
{
	struct stack_entry *e = stack_store__add(st, key, len, 0);

	*is_new = false;
	if (!e) {
		p->err = -ENOMEM;
		return 0;
	}
	if (!e->data) {
		e->data = (void *)(uintptr_t)stack_store__len(st);
		*is_new = true;
	}
	return (uint64_t)(uintptr_t)e->data;
}

/* The string table index of @s ("" is 0, added first). */
static uint64_t pp__str(struct pp *p, const char *s)
{
	bool is_new;
	uint64_t id = pp__id(p, p->strs, s ? s : "", s ? strlen(s) + 1 : 1, &is_new);

	if (is_new)
		pb_bytes(&p->out, PF_STRING, s ? s : "", s ? strlen(s) : 0);
	return id - 1;
}

static void pp__value_type(struct pp *p, uint32_t field, const char *type, const char *unit)
{
	uint64_t t = pp__str(p, type), u = pp__str(p, unit);

	pb_reset(&p->msg);
	pb_varint(&p->msg, VT_TYPE, t);
	pb_varint(&p->msg, VT_UNIT, u);
	pb_message(&p->out, field, &p->msg);
}

static uint64_t pp__function(struct pp *p, const struct report_frame *fr)
{
	struct { const char *name, *file; } key = { fr->name, fr->src_file };
	uint64_t id, name, file;
	bool is_new;

	id = pp__id(p, p->funcs, &key, sizeof(key), &is_new);

	if (!is_new)
		return id;
	name = pp__str(p, fr->name);
	file = fr->src_file ? pp__str(p, fr->src_file) : 0;
	pb_reset(&p->msg);
	pb_varint(&p->msg, FN_ID, id);
	pb_varint(&p->msg, FN_NAME, name);
	pb_varint(&p->msg, FN_SYSTEM_NAME, name);
	pb_varint_nz(&p->msg, FN_FILE, file);
	pb_message(&p->out, PF_FUNCTION, &p->msg);
	return id;
}

/*
 * The mapping a frame lies in, as an index + 1 into p->mapping (0: none, e.g.
 * a mark), and the address pprof sees for it.
 */
static uint64_t pp__mapping(struct pp *p, const struct report_frame *fr, uint64_t *addr)
{
	struct { const char *file, *build_id; uint64_t kernel; } key = {
		fr->module, fr->build_id, fr->kind == REPORT_FRAME_KERNEL,
	};
	struct pp_mapping *m;
	bool is_new;
	uint64_t id;

	*addr = fr->addr;
	if (fr->kind == REPORT_FRAME_MARK ||
	    (!key.kernel && !(fr->flags & REPORT_FRAME_HAS_OFF)))
		return 0;
	/* A user address is its file offset: the same in every process that maps the file. */
	if (!key.kernel)
		*addr = fr->file_off;
	id = pp__id(p, p->maps, &key, sizeof(key), &is_new);
	if (is_new && id > p->capmap) {
		size_t cap = p->capmap ? p->capmap * 2 : 16;
		struct pp_mapping *v = realloc(p->mapping, cap * sizeof(*v));

		if (!v) {
			p->err = -ENOMEM;
			return 0;
		}
		p->mapping = v;
		p->capmap = cap;
	}
	if (!id)
		return 0;
	m = &p->mapping[id - 1];
	if (is_new) {
		*m = (struct pp_mapping){ .file = fr->module, .build_id = fr->build_id,
					  .kernel = key.kernel, .start = *addr, .limit = *addr + 1 };
		p->nmap = id;
	}
	if (*addr < m->start)
		m->start = *addr;
	if (*addr >= m->limit)
		m->limit = *addr + 1;
	m->has_files |= fr->src_file != NULL;
	m->has_lines |= fr->line != 0;
	return id;
}

/*
 * The location of frames @at .. @at + @n of @s: inline frames first, then
 * the frame they were inlined into, which gives the address. Return: its id
 * (0: no memory).
 */
static uint64_t pp__location(struct pp *p, const struct report_stack *s, size_t at, size_t n)
{
	struct pp_loc_key { uint64_t mapping, addr; const void *lines[]; } *key;
	size_t i, len = sizeof(*key) + n * 3 * sizeof(void *);
	uint64_t mapping, addr, id;
	bool is_new;

	mapping = pp__mapping(p, report_stack__frame(s, at + n - 1), &addr);
	if (mapping)
		mapping = p->mapping[mapping - 1].id;
	key = calloc(1, len);
	if (!key) {
		p->err = -ENOMEM;
		return 0;
	}
	key->mapping = mapping;
	key->addr = addr;
	for (i = 0; i < n; i++) {
		const struct report_frame *fr = report_stack__frame(s, at + i);

		key->lines[3 * i] = fr->name;
		key->lines[3 * i + 1] = fr->src_file;
		key->lines[3 * i + 2] = (const void *)(uintptr_t)fr->line;
	}
	id = pp__id(p, p->locs, key, len, &is_new);
	free(key);
	if (!is_new || !id)
		return id;
	if (mapping && n > 1)
		p->byid[mapping - 1]->has_inlines = 1;
	pb_reset(&p->loc);
	pb_varint(&p->loc, LO_ID, id);
	pb_varint_nz(&p->loc, LO_MAPPING, mapping);
	pb_varint_nz(&p->loc, LO_ADDRESS, addr);
	for (i = 0; i < n; i++) {
		const struct report_frame *fr = report_stack__frame(s, at + i);
		uint64_t fn = pp__function(p, fr);

		pb_reset(&p->sub);
		pb_varint(&p->sub, LI_FUNCTION, fn);
		pb_varint_nz(&p->sub, LI_LINE, fr->line);
		pb_message(&p->loc, LO_LINE, &p->sub);
	}
	pb_message(&p->out, PF_LOCATION, &p->loc);
	return id;
}

static int pp__grow_ids(struct pp *p, size_t n)
{
	uint64_t *v;

	if (n <= p->capids)
		return 0;
	v = realloc(p->ids, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->ids = v;
	p->capids = n;
	return 0;
}

static void pp__label(struct pp *p, const char *key, const char *str, int64_t num)
{
	uint64_t k = pp__str(p, key), v = str ? pp__str(p, str) : (uint64_t)num;

	pb_reset(&p->sub);
	pb_varint(&p->sub, LA_KEY, k);
	pb_varint(&p->sub, str ? LA_STR : LA_NUM, v);
	pb_message(&p->msg, SA_LABEL, &p->sub);
}

/* One sample: location ids leaf first (the model's order), values, labels. */
static void pp__sample(struct pp *p, const struct report_stack *s, const struct report_info *info)
{
	size_t i, j, n = s->nk + s->nu, nids = 0;
	uint64_t values[2] = { s->count, s->weight };

	if (pp__grow_ids(p, n + 1)) {
		p->err = -ENOMEM;
		return;
	}
	for (i = 0; i < n; i = j + 1) {
		/* Inline frames belong to the location of the frame that follows them. */
		for (j = i; j + 1 < n && report_stack__frame(s, j)->kind == REPORT_FRAME_INLINE; j++)
			;
		p->ids[nids++] = pp__location(p, s, i, j - i + 1);
	}
	pb_reset(&p->msg);
	pb_packed(&p->msg, SA_LOCATION, p->ids, nids);
	pb_packed(&p->msg, SA_VALUE, values, info->value == REPORT_EVENTS ? 1 : 2);
	if (s->pid > 0)
		pp__label(p, "pid", NULL, s->pid);
	if (s->tid >= 0)
		pp__label(p, "tid", NULL, s->tid);
	if (s->comm[0])
		pp__label(p, "comm", s->comm, 0);
	pb_message(&p->out, PF_SAMPLE, &p->msg);
}

/* Executables first, then libraries, then the kernel: pprof takes mapping 1 for the main binary. */
static int pp__mapping_rank(const struct pp_mapping *m)
{
	if (m->kernel)
		return 2;
	return m->file && strstr(m->file, ".so") ? 1 : 0;
}

static int pp__cmp_mappings(const void *pa, const void *pb)
{
	const struct pp_mapping *a = *(struct pp_mapping *const *)pa;
	const struct pp_mapping *b = *(struct pp_mapping *const *)pb;
	int ra = pp__mapping_rank(a), rb = pp__mapping_rank(b);

	if (ra != rb)
		return ra - rb;
	return a < b ? -1 : a > b; /* then in order of first sight */
}

/* Every mapping the stacks touch, given its id before any location names one. */
static void pp__order_mappings(struct pp *p, struct report_stack **v, size_t n)
{
	uint64_t addr;
	size_t i, j;

	for (i = 0; i < n && !p->err; i++)
		for (j = 0; j < v[i]->nk + v[i]->nu; j++)
			pp__mapping(p, report_stack__frame(v[i], j), &addr);
	p->byid = calloc(p->nmap + 1, sizeof(*p->byid));
	if (!p->byid) {
		p->err = -ENOMEM;
		return;
	}
	for (i = 0; i < p->nmap; i++)
		p->byid[i] = &p->mapping[i];
	qsort(p->byid, p->nmap, sizeof(*p->byid), pp__cmp_mappings);
	for (i = 0; i < p->nmap; i++)
		p->byid[i]->id = i + 1;
}

static void pp__mappings(struct pp *p)
{
	size_t i;

	for (i = 0; i < p->nmap; i++) {
		const struct pp_mapping *m = p->byid[i];
		char name[4200]; /* a path, in brackets for the kernel */

		snprintf(name, sizeof(name), m->kernel ? "[%s]" : "%s",
			 m->file ? m->file : m->kernel ? "kernel.kallsyms" : "[anon]");
		uint64_t file = pp__str(p, name), bid = m->build_id ? pp__str(p, m->build_id) : 0;

		pb_reset(&p->msg);
		pb_varint(&p->msg, MA_ID, m->id);
		pb_varint_nz(&p->msg, MA_START, m->start);
		pb_varint(&p->msg, MA_LIMIT, m->limit);
		/* User addresses are file offsets, so the mapping starts at its own offset. */
		pb_varint_nz(&p->msg, MA_OFFSET, m->kernel ? 0 : m->start);
		pb_varint(&p->msg, MA_FILE, file);
		pb_varint_nz(&p->msg, MA_BUILD_ID, bid);
		pb_varint(&p->msg, MA_HAS_FUNCTIONS, 1);
		pb_varint_nz(&p->msg, MA_HAS_FILENAMES, m->has_files);
		pb_varint_nz(&p->msg, MA_HAS_LINES, m->has_lines);
		pb_varint_nz(&p->msg, MA_HAS_INLINES, m->has_inlines);
		pb_message(&p->out, PF_MAPPING, &p->msg);
	}
}

/* Sample types, period and the preferred type, after what count and weight mean. */
static void pp__header(struct pp *p, const struct report_info *info, const struct pprof_opts *o)
{
	static const char *const types[][2] = {
		[REPORT_EVENTS] = { "events", NULL },
		[REPORT_SAMPLES] = { "samples", "cpu" },
		[REPORT_OFFCPU] = { "blocks", "offcpu" },
	};
	const char *const *t = types[info->value];
	char comment[512];

	pp__str(p, "");
	pp__value_type(p, PF_SAMPLE_TYPE, t[0], "count");
	if (t[1]) {
		pp__value_type(p, PF_SAMPLE_TYPE, t[1], "nanoseconds");
		pb_varint(&p->out, PF_DEFAULT_TYPE, pp__str(p, t[1]));
	}
	if (info->value == REPORT_SAMPLES) {
		pp__value_type(p, PF_PERIOD_TYPE, "cpu", "nanoseconds");
		pb_varint(&p->out, PF_PERIOD, info->period_ns);
	}
	if (info->event) {
		snprintf(comment, sizeof(comment), "event: %s", info->event);
		pb_varint(&p->out, PF_COMMENT, pp__str(p, comment));
	}
	if (o->comment)
		pb_varint(&p->out, PF_COMMENT, pp__str(p, o->comment));
	pb_varint_nz(&p->out, PF_TIME, o->time_ns);
	pb_varint_nz(&p->out, PF_DURATION, o->duration_ns);
}

/* gzip @len bytes of @data to @f. Return: 0, -ENOMEM or -EIO. */
static int pp__gzip(FILE *f, const uint8_t *data, size_t len)
{
	z_stream zs = {};
	uint8_t buf[65536];
	int zr, err = 0;

	/* 15 + 16: a gzip header around the deflate stream, as pprof wants. */
	if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = (uint8_t *)data;
	zs.avail_in = (uInt)len;
	do {
		zs.next_out = buf;
		zs.avail_out = sizeof(buf);
		zr = deflate(&zs, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			err = -ENOMEM;
			break;
		}
		if (fwrite(buf, 1, sizeof(buf) - zs.avail_out, f) != sizeof(buf) - zs.avail_out) {
			err = -EIO;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&zs);
	if (!err && fflush(f))
		err = -EIO;
	return err;
}

static void pp__free(struct pp *p)
{
	pb_free(&p->out);
	pb_free(&p->msg);
	pb_free(&p->loc);
	pb_free(&p->sub);
	stack_store__free(p->strs);
	stack_store__free(p->funcs);
	stack_store__free(p->locs);
	stack_store__free(p->maps);
	free(p->mapping);
	free(p->byid);
	free(p->ids);
}

int out_pprof(FILE *f, struct report *r, const struct pprof_opts *o)
{
	const struct report_info *info = report__info(r);
	struct pp p = {};
	struct report_stack **v;
	size_t n, i;
	int err;

	p.strs = stack_store__new();
	p.funcs = stack_store__new();
	p.locs = stack_store__new();
	p.maps = stack_store__new();
	if (!p.strs || !p.funcs || !p.locs || !p.maps) {
		pp__free(&p);
		return -ENOMEM;
	}
	pp__header(&p, info, o);
	v = report__sorted(r, &n);
	pp__order_mappings(&p, v, n);
	for (i = 0; v && i < n && !p.err; i++)
		pp__sample(&p, v[i], info);
	pp__mappings(&p);
	err = p.err ? p.err : p.out.err ? p.out.err : p.msg.err;
	if (!err)
		err = pp__gzip(f, p.out.data, p.out.len);
	pp__free(&p);
	return err;
}
