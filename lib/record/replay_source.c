// SPDX-License-Identifier: GPL-2.0
/*
 * The replay's answers to the pipeline's reads (the proc source door): each
 * /proc read gets the text recorded for the same (pid, file), in the order
 * the recording made them; liveness questions get the recorded answers in
 * order; kernel symbols come from those the recording kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/debug_file.h"
#include "lib/proc/maps.h"
#include "lib/proc/source.h"
#include "lib/record/replay_internal.h"
#include "lib/stack/store.h"
#include "lib/sym/ksyms_source.h"
#include "lib/util/grow.h"

struct rp_read {
	struct rp_read *next;
	int err;
	uint64_t ts;
	size_t len;
	char text[];
};

struct rp_read_q {
	struct rp_read *head, *tail;
};

struct rp_read_key {
	int32_t pid;
	char file[REC_PROC_FILE_LEN];
};

static void read_key(struct rp_read_key *k, int pid, const char *file)
{
	memset(k, 0, sizeof(*k));
	k->pid = pid;
	memcpy(k->file, file, strnlen(file, sizeof(k->file) - 1));
}

int rp_stash_read(struct replay *rp, const struct rec_proc_read *pr, const char *text, size_t len)
{
	struct rp_read_key k;
	struct stack_entry *e;
	struct rp_read_q *q;
	struct rp_read *r;

	read_key(&k, pr->pid, pr->file);
	e = stack_store__add(rp->reads, &k, sizeof(k), 0);
	if (!e)
		return -ENOMEM;
	if (!e->data && !(e->data = calloc(1, sizeof(struct rp_read_q))))
		return -ENOMEM;
	r = malloc(sizeof(*r) + len + 1);
	if (!r)
		return -ENOMEM;
	r->next = NULL;
	r->ts = pr->ts;
	r->err = pr->err > 0 ? -pr->err : pr->err;
	r->len = pr->err ? 0 : len;
	memcpy(r->text, text, r->len);
	r->text[r->len] = '\0';
	q = e->data;
	if (q->tail)
		q->tail->next = r;
	else
		q->head = r;
	q->tail = r;
	return 0;
}

static int src__read(void *ctx, int pid, const char *file, char **text, size_t *len,
		     uint64_t *ts)
{
	struct replay *rp = ctx;
	struct rp_read_key k;
	struct stack_entry *e;
	struct rp_read_q *q;
	struct rp_read *r;
	int err;

	read_key(&k, pid, file);
	e = stack_store__add(rp->reads, &k, sizeof(k), 0);
	q = e ? e->data : NULL;
	if (!q || !q->head) {
		/* Not read while recording: the process was not there to read. */
		rp->counts.reads_missing++;
		*ts = rp->now;
		return -ESRCH;
	}
	r = q->head;
	q->head = r->next;
	if (!q->head)
		q->tail = NULL;
	err = r->err;
	*ts = r->ts;
	if (r->ts > rp->now)
		rp->now = r->ts;
	if (!err) {
		*text = malloc(r->len + 1);
		if (!*text)
			err = -ENOMEM;
		else
			memcpy(*text, r->text, r->len + 1);
		*len = r->len;
	}
	free(r);
	return err;
}

int rp_stash_alive(struct replay *rp, const struct rec_alive *a)
{
	if (rp->alive_head && rp->alive_head >= rp->alive_n / 2) {
		memmove(rp->alive, rp->alive + rp->alive_head,
			(rp->alive_n - rp->alive_head) * sizeof(*rp->alive));
		rp->alive_n -= rp->alive_head;
		rp->alive_head = 0;
	}
	if (array_reserve((void **)&rp->alive, &rp->alive_cap, rp->alive_n + 1,
			  sizeof(*rp->alive)))
		return -ENOMEM;
	rp->alive[rp->alive_n++] = *a;
	return 0;
}

/* The joiner asks in the order it asked while recording; a thread not asked about is alive. */
static bool src__task_alive(void *ctx, int pid, int tid)
{
	struct replay *rp = ctx;
	const struct rec_alive *a;

	if (rp->alive_head == rp->alive_n) {
		rp->counts.alive_missing++;
		return true;
	}
	a = &rp->alive[rp->alive_head++];
	if ((int)a->pid != pid || (int)a->tid != tid) {
		rp->counts.alive_mismatch++;
		return true;
	}
	return a->alive != 0;
}

/* Keeps the symbols sorted by address; a second name for an address is not kept. */
int rp_stash_ksym(struct replay *rp, uint64_t addr, const char *name, const char *module)
{
	size_t lo = ksym__bound(rp->ksyms, rp->nksyms, addr, false);
	struct ksym *k;

	if (lo < rp->nksyms && rp->ksyms[lo].addr == addr)
		return 0;
	if (array_reserve((void **)&rp->ksyms, &rp->ksyms_cap, rp->nksyms + 1, sizeof(*k)))
		return -ENOMEM;
	memmove(rp->ksyms + lo + 1, rp->ksyms + lo, (rp->nksyms - lo) * sizeof(*k));
	k = &rp->ksyms[lo];
	k->addr = addr;
	k->name = strdup(name);
	k->module = *module ? strdup(module) : NULL;
	rp->nksyms++;
	return k->name && (!*module || k->module) ? 0 : -ENOMEM;
}

/* Greatest start <= @addr, as kallsyms answered: the recording kept every answer. */
static const struct ksym *src__ksym(void *ctx, uint64_t addr)
{
	struct replay *rp = ctx;
	size_t i = ksym__bound(rp->ksyms, rp->nksyms, addr, true);

	return i ? &rp->ksyms[i - 1] : NULL;
}

int rp_stash_vdso(struct replay *rp, const struct rec_vdso *v, const void *image, size_t len)
{
	uint64_t key[2] = { v->pid, v->start };
	struct rp_vdso_image *n;
	struct stack_entry *e;

	if (len) {
		/* A new image is the next id, as the recorder numbers them. */
		if (v->image != rp->nvimg || len != v->size)
			return -EBADMSG;
		n = realloc(rp->vimg, (rp->nvimg + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		rp->vimg = n;
		n[rp->nvimg].image = malloc(len);
		if (!n[rp->nvimg].image)
			return -ENOMEM;
		memcpy(n[rp->nvimg].image, image, len);
		n[rp->nvimg++].size = len;
	} else if (v->image >= rp->nvimg) {
		return -EBADMSG;
	}
	e = stack_store__add(rp->vmaps, key, sizeof(key), 0);
	if (!e)
		return -ENOMEM;
	e->data = (void *)(uintptr_t)(v->image + 1);
	return 0;
}

static void *src__read_vdso(void *ctx, int pid, const struct proc_map *m, size_t *size)
{
	struct replay *rp = ctx;
	uint64_t key[2] = { (uint64_t)pid, m->start };
	struct stack_entry *e = stack_store__add(rp->vmaps, key, sizeof(key), 0);
	const struct rp_vdso_image *img;
	void *copy;

	if (!e || !e->data)
		return NULL;
	img = &rp->vimg[(uintptr_t)e->data - 1];
	copy = malloc(img->size);
	if (copy)
		memcpy(copy, img->image, img->size);
	*size = img->size;
	return copy;
}

static int src__open_mapped(void *ctx, int pid, const struct proc_map *m,
			    enum safe_open_why *why)
{
	return rp_files__open_mapped(ctx, pid, m, why);
}

static uint64_t src__now(void *ctx)
{
	return ((struct replay *)ctx)->now;
}

/* A number the meta holds, or 0 when it holds none (a recording older than the key). */
static long long src__meta_num(const struct replay *rp, const char *key)
{
	const char *v = replay__meta(rp, key);

	return v ? strtoll(v, NULL, 10) : 0;
}

/*
 * The recording machine's clock, zone and name, from its meta: a recording
 * made before the zone was kept (utc_offset_s) tells times of day in UTC,
 * the same wherever it is reported.
 */
static void src__wall(void *ctx, struct proc_wall *w)
{
	const struct replay *rp = ctx;
	const char *host = replay__meta(rp, "host");

	w->real_minus_mono = src__meta_num(rp, "start_ns") - src__meta_num(rp, "start_monotonic_ns");
	w->utc_offset = (long)src__meta_num(rp, "utc_offset_s");
	snprintf(w->host, sizeof(w->host), "%s", host ? host : "");
}

static int src__open_debug(void *ctx, const uint8_t *id, size_t len, char **path)
{
	return rp_files__open_debug(ctx, id, len, path);
}

/* The replay answers at all three doors: /proc, kernel symbols, debug files. */
void rp_source__install(struct replay *rp)
{
	proc_source_set(&(struct proc_source_ops){
		.read = src__read, .task_alive = src__task_alive, .open_mapped = src__open_mapped,
		.read_vdso = src__read_vdso, .now = src__now, .wall = src__wall,
		.ctx = rp });
	ksyms_source_set(&(struct ksyms_source){ .find = src__ksym, .ctx = rp });
	debug_file_set_source(&(struct debug_source){ .open_by_id = src__open_debug, .ctx = rp });
}

void rp_source__uninstall(void)
{
	proc_source_set(NULL);
	ksyms_source_set(NULL);
	debug_file_set_source(NULL);
}

static void read_q__free(struct rp_read_q *q)
{
	struct rp_read *r, *next;

	for (r = q ? q->head : NULL; r; r = next) {
		next = r->next;
		free(r);
	}
	free(q);
}

void rp_source__free(struct replay *rp)
{
	struct stack_entry **v;
	size_t i;

	v = rp->reads ? stack_store__entries(rp->reads) : NULL;
	for (i = 0; v && i < stack_store__len(rp->reads); i++)
		read_q__free(v[i]->data);
	free(v);
	stack_store__free(rp->reads);
	free(rp->alive);
	for (i = 0; i < rp->nksyms; i++) {
		free((char *)rp->ksyms[i].name);
		free((char *)rp->ksyms[i].module);
	}
	free(rp->ksyms);
	for (i = 0; i < rp->nvimg; i++)
		free(rp->vimg[i].image);
	free(rp->vimg);
	stack_store__free(rp->vmaps);
}
