// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder: a run's inputs written down as the pipeline consumes them.
 *
 * Order is the point. An entry is written at the moment the pipeline uses
 * what it says: a ring record before the session acts on it, a /proc read
 * when the tracker makes it (so after the record that caused it), a file's
 * identity when the tracker first hands out a mapping naming it. A replay
 * reads each action (ring record, tick, drain...) together with the side
 * entries written while it was handled, and hands the same answers back in
 * the same order.
 *
 * Memory stays flat: the writer holds one chunk; the sets here grow with
 * distinct files, kernel addresses, vDSO mappings and JIT processes, never
 * with events.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bpf/record.h"
#include "lib/elf/elf_file.h"
#include "lib/proc/maps.h"
#include "lib/proc/registry.h"
#include "lib/proc/source.h"
#include "lib/record/recorder.h"
#include "lib/record/writer.h"
#include "lib/stack/store.h"
#include "lib/sym/ksyms_source.h"
#include "lib/sym/perf_map.h"
#include "lib/sym/perf_map_src.h"
#include "lib/unwind/copy_source.h"
#include "lib/util/clock.h"
#include "lib/util/htab.h"
#include "lib/util/log.h"
#include "lib/util/read_file.h"

/* Pending entries are written out at least this often, so a killed record loses little. */
#define RECORDER_FLUSH_NS 1000000000ull
/* Kernel addresses already looked up: a direct-mapped cache before the exact set. */
#define RECORDER_KCACHE 4096
/* A perf map bigger than this is not a perf map. */
#define RECORDER_PERF_MAP_MAX (64u << 20)

struct recorder {
	struct rec_writer *w;
	char *path;
	bool archive, print;
	uint64_t last_flush;
	uint64_t events, records;
	uint64_t kcache[RECORDER_KCACHE];
	struct stack_store *kaddrs;   /* kernel addresses looked up */
	struct stack_store *ksyms;    /* symbol starts written */
	struct stack_store *kmods;    /* module names written */
	struct stack_store *files;    /* (major, minor, inode) identified */
	struct stack_store *archived; /* (kind, build ID) stored */
	struct stack_store *vdso_img; /* image bytes -> id + 1 */
	struct htab vdso_map;         /* struct rec_vdso_seen: each live process's vDSO written */
	struct htab jit;              /* struct rec_jit: processes with anonymous code */
	size_t nroots;                /* roots kept open by rec_jit entries */
	uint64_t jit_refreshed;       /* CLOCK_MONOTONIC ns of the last recorder__refresh() */
	uint32_t nvdso;
	uint64_t archive_bytes;
	struct proc_registry *procs;  /* whose file models name the mapped files */
	struct proc_wall wall;        /* as its meta says: the live run's answer is the report's */
};

static struct recorder *active;

struct recorder *recorder_active(void)
{
	return active;
}

bool recorder__prints(const struct recorder *rc)
{
	return rc->print;
}

/* Every entry goes through here; a writer error sticks there and is returned. */
static int rec__put(struct recorder *rc, enum rec_type type, const void *head, size_t hlen,
		    const void *tail, size_t tlen)
{
	return rec_writer__add(rc->w, type, head, hlen, tail, tlen);
}

/* --- what the pipeline reads: the proc source door, written down --------- */

static int rec__read(void *ctx, int pid, const char *file, char **text, size_t *len,
		     uint64_t *ts)
{
	const struct proc_source_ops *live = proc_source_live();
	struct recorder *rc = ctx;
	struct rec_proc_read pr = { .pid = pid };
	int err = live->read(live->ctx, pid, file, text, len, ts);

	pr.err = err;
	pr.ts = *ts;
	memcpy(pr.file, file, strnlen(file, sizeof(pr.file) - 1));
	rec__put(rc, REC_PROC_READ, &pr, sizeof(pr), err ? NULL : *text, err ? 0 : *len);
	return err;
}

static bool rec__task_alive(void *ctx, int pid, int tid)
{
	const struct proc_source_ops *live = proc_source_live();
	struct rec_alive a = { .pid = pid, .tid = tid };

	a.alive = live->task_alive(live->ctx, pid, tid);
	rec__put(ctx, REC_ALIVE, &a, sizeof(a), NULL, 0);
	return a.alive;
}

/* Files and vDSO images are written down as the registry's models of them (rec__identify). */
static int rec__open_mapped(void *ctx, int pid, const struct proc_map *m,
			    enum safe_open_why *why)
{
	return proc_source_live()->open_mapped(NULL, pid, m, why);
}

static void *rec__read_vdso(void *ctx, int pid, const struct proc_map *m, size_t *size)
{
	return proc_source_live()->read_vdso(NULL, pid, m, size);
}

static uint64_t rec__now(void *ctx)
{
	return proc_source_live()->now(NULL);
}

static void rec__wall(void *ctx, struct proc_wall *w)
{
	*w = ((struct recorder *)ctx)->wall;
}

/* --- kernel symbols and module build IDs ----------------------------------- */

/* The GNU build ID in a sysfs notes file (a run of ELF notes). Return: its length or 0. */
static size_t rec__notes_build_id(const char *path, uint8_t *id)
{
	size_t len = 0, off = 0, nsz, dsz;
	char *buf = NULL;
	uint32_t h[3];

	if (read_file_all(path, 1 << 20, &buf, &len))
		return 0;
	while (off + 12 <= len) {
		memcpy(h, buf + off, 12);
		nsz = (h[0] + 3) & ~3u;
		dsz = (h[1] + 3) & ~3u;
		if (nsz > len || dsz > len || off + 12 + nsz + dsz > len)
			break;
		if (h[2] == 3 && h[0] == 4 && !memcmp(buf + off + 12, "GNU", 4) && h[1] &&
		    h[1] <= REC_BUILD_ID_MAX) {
			memcpy(id, buf + off + 12 + nsz, h[1]);
			free(buf);
			return h[1];
		}
		off += 12 + nsz + dsz;
	}
	free(buf);
	return 0;
}

static void rec__kmod(struct recorder *rc, const char *module)
{
	struct rec_kmod km = {};
	char path[256];
	struct stack_entry *e = stack_store__add(rc->kmods, module, strlen(module), 0);

	if (!e || e->count > 1)
		return;
	if (!strcmp(module, "vmlinux"))
		snprintf(path, sizeof(path), "/sys/kernel/notes");
	else
		snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", module);
	km.build_id_len = rec__notes_build_id(path, km.build_id);
	rec__put(rc, REC_KMOD, &km, sizeof(km), module, strlen(module) + 1);
}

/* The symbol kallsyms gives for @addr, written once per symbol. */
static void rec__kaddr(struct recorder *rc, uint64_t addr)
{
	uint64_t *slot = &rc->kcache[(addr * 0x9e3779b97f4a7c15ull) >> 52];
	const struct ksym *k;
	struct stack_entry *e;
	struct rec_ksym ks = {};
	char names[2 * 256 + 2];
	size_t nl, ml;

	if (*slot == addr)
		return;
	*slot = addr;
	e = stack_store__add(rc->kaddrs, &addr, sizeof(addr), 0);
	if (!e || e->count > 1)
		return;
	k = ksyms_source_live_find(addr);
	if (!k)
		return;
	e = stack_store__add(rc->ksyms, &k->addr, sizeof(k->addr), 0);
	if (!e || e->count > 1)
		return;
	nl = strnlen(k->name, 255);
	ml = k->module ? strnlen(k->module, 255) : 0;
	ks = (struct rec_ksym){ .addr = k->addr, .name_len = nl, .module_len = ml };
	memcpy(names, k->name, nl);
	names[nl] = '\0';
	memcpy(names + nl + 1, k->module ? k->module : "", ml);
	names[nl + 1 + ml] = '\0';
	rec__put(rc, REC_KSYM, &ks, sizeof(ks), names, nl + ml + 2);
	rec__kmod(rc, k->module ? k->module : "vmlinux");
}

/* Each kernel frame is looked up as itself and, as a return address, at addr - 1. */
static void rec__event_ksyms(struct recorder *rc, const struct st_event *ev, size_t size)
{
	const uint64_t *ips = (const uint64_t *)(ev + 1);
	size_t i;

	if (size < sizeof(*ev) || size < sizeof(*ev) + (ev->kdepth + ev->udepth) * 8ull)
		return; /* the session says why */
	rc->events++;
	for (i = 0; i < ev->kdepth; i++) {
		rec__kaddr(rc, ips[i]);
		if (ips[i])
			rec__kaddr(rc, ips[i] - 1);
	}
}

/* --- perf maps of processes with anonymous code ---------------------------- */

/*
 * Roots kept open at once (as lib/sym/jit_maps.c): past it a map is read by
 * path while its process lives, or not at all once it has exited.
 */
#define RECORDER_ROOTS_MAX 256
/* Live JITs' maps are re-read (when changed) at most this often (ns). */
#define RECORDER_JIT_REFRESH_NS 200000000ull

/*
 * One process with anonymous code: where its map is, and its latest bytes.
 * A map in a container's /tmp is gone with the container's mount namespace,
 * which may be before its exit record reaches us, so the map is read while
 * the process lives and the last bytes read are what the recording keeps.
 */
struct rec_jit {
	struct hnode node; /* (pid, 0), until the process is forgotten */
	struct perf_map_src src;
	bool known;      /* src was read from /proc: its uid can be trusted */
	bool kept;       /* its map was written (or found missing) */
	char *text;      /* the last bytes read, or NULL */
	size_t len;
	struct stat last; /* of the file last read: size and mtime say when it changed */
};

static void rec__jit_close_root(struct recorder *rc, struct rec_jit *j)
{
	if (j->src.root_fd < 0)
		return;
	perf_map_src__close_root(&j->src);
	rc->nroots--;
}

/* Also as the recorder goes: its count of open roots goes with it. */
static void rec__free_jit(struct hnode *n)
{
	struct rec_jit *j = (struct rec_jit *)n;

	if (j->src.root_fd >= 0)
		perf_map_src__close_root(&j->src);
	free(j->text);
	free(j);
}

static void rec__jit_free(struct recorder *rc, struct rec_jit *j)
{
	rec__jit_close_root(rc, j);
	rec__free_jit(&j->node);
}

/* Re-read @j's map if its file changed; the bytes read before stay when it cannot be read. */
static void rec__jit_read(struct rec_jit *j, bool exited)
{
	char name[128], *text;
	size_t len, over;
	struct stat st;
	int fd;

	if (!j->known || j->kept)
		return;
	fd = perf_map_src__open(&j->src, exited, name, sizeof(name));
	if (fd < 0)
		return; /* no JIT map yet, or gone with its process */
	if (fstat(fd, &st) || (j->text && perf_map_src__unchanged(&st, &j->last))) {
		close(fd);
		return;
	}
	text = perf_map__read_text_fd(fd, name, j->src.uid, RECORDER_PERF_MAP_MAX, &len, &over);
	close(fd);
	if (!text) {
		if (errno == EPERM || errno == EINVAL)
			j->known = false; /* refused, and said why once */
		return;
	}
	free(j->text);
	j->text = text;
	j->len = len;
	j->last = st;
}

/* First sight of @pid's anonymous code, while it lives: where its map is, and its bytes. */
static void rec__jit_begin(struct recorder *rc, int pid)
{
	struct rec_jit *j = calloc(1, sizeof(*j));

	if (!j)
		return;
	j->node.k1 = (uint32_t)pid;
	if (htab__insert(&rc->jit, &j->node)) {
		free(j);
		return;
	}
	j->known = !perf_map_src__init(&j->src, pid, rc->nroots < RECORDER_ROOTS_MAX);
	if (j->src.root_fd >= 0)
		rc->nroots++;
	rec__jit_read(j, false);
}

static struct rec_jit *rec__jit_of(const struct recorder *rc, int pid)
{
	return (struct rec_jit *)htab__first(&rc->jit, (uint32_t)pid, 0);
}

/* Writes @j's map as last read (read once more first), once. */
static void rec__perf_map(struct recorder *rc, struct rec_jit *j, bool exited)
{
	struct rec_perf_map pm = {};

	if (!j || j->kept)
		return;
	rec__jit_read(j, exited);
	j->kept = true;
	rec__jit_close_root(rc, j);
	if (!j->text)
		return;
	pm.pid = j->src.pid;
	rec__put(rc, REC_PERF_MAP, &pm, sizeof(pm), j->text, j->len);
	free(j->text);
	j->text = NULL;
}

static void rec__jit_refresh(struct hnode *n, void *ctx)
{
	(void)ctx;
	rec__jit_read((struct rec_jit *)n, false);
}

void recorder__refresh(struct recorder *rc)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (!rc || now - rc->jit_refreshed < RECORDER_JIT_REFRESH_NS)
		return;
	rc->jit_refreshed = now;
	htab__each(&rc->jit, rec__jit_refresh, NULL);
}

/* A JIT writes its map until it exits: keep it then. */
static void rec__proc_record(struct recorder *rc, const struct st_proc_event *pe, size_t size)
{
	struct rec_jit *j;

	if (size < offsetof(struct st_proc_event, start) || pe->what != ST_PROC_EXIT)
		return;
	j = rec__jit_of(rc, pe->pid);
	if (j)
		rec__perf_map(rc, j, true);
}

/*
 * The bytes of a ring record worth keeping. Deferred user stacks are
 * reserved at their full size (1024 frame slots) and map records carry 16
 * path slots: their unused tails are zeros the pipeline never reads, and
 * are dropped (the replay pads a map record back, replay.c).
 */
static size_t rec__ring_len(const void *data, size_t size)
{
	const struct st_ustack *us = data;
	const struct st_proc_event *pe = data;
	size_t keep = size;

	if (size >= sizeof(*us) && us->kind == ST_REC_USTACK && !(us->flags & ST_EV_UCOPY))
		keep = sizeof(*us) + us->udepth * 8ull;
	else if (size >= sizeof(*pe) && pe->kind == ST_REC_PROC && st_proc_has_path(pe->what) &&
		 pe->ncomps <= ST_PATH_COMPS)
		keep = st_proc_map_size(pe->ncomps);
	return keep < size ? keep : size;
}

/*
 * A deferred user stack with a copy: its frames, then the copy's registers
 * and length, which the ring record keeps after all 1024 frame slots; the
 * copy's bytes are not kept, what its walks found is (rec__copy_walked).
 * Return: 1 when it was one.
 */
static int rec__ustack_copy(struct recorder *rc, const struct st_ustack *us, size_t size,
			    int *err)
{
	size_t at = sizeof(*us) + ST_MAX_USTACK * 8ull;
	const struct st_ucopy *c = (const void *)((const char *)us + at);

	if (size < at + sizeof(*c) || us->kind != ST_REC_USTACK || !(us->flags & ST_EV_UCOPY) ||
	    us->udepth > ST_MAX_USTACK || c->len > size - at - sizeof(*c))
		return 0;
	*err = rec__put(rc, REC_RING_UCOPY, us, sizeof(*us) + us->udepth * 8ull, c, sizeof(*c));
	return 1;
}

/* An event with a stack copy: kept up to the copy's registers and length, as above. */
static size_t rec__event_len(const void *data, size_t size)
{
	const struct st_event *ev = data;
	const struct st_ucopy *c;
	size_t at;

	if (size < sizeof(*ev) || ev->kind != ST_REC_EVENT || !(ev->flags & ST_EV_UCOPY) ||
	    ev->kdepth > ST_MAX_KSTACK || ev->udepth > ST_MAX_USTACK)
		return size;
	at = sizeof(*ev) + (ev->kdepth + (size_t)ev->udepth) * 8;
	c = (const void *)((const char *)data + at);
	if (size < at + sizeof(*c) || c->len > size - at - sizeof(*c))
		return size;
	return at + sizeof(*c);
}

int recorder__ring(struct recorder *rc, const void *data, size_t size)
{
	size_t keep = rec__event_len(data, size);
	int err = 0;

	if (keep < size)
		err = rec__put(rc, REC_RING, data, keep, NULL, 0);
	else if (!rec__ustack_copy(rc, data, size, &err))
		err = rec__put(rc, REC_RING, data, rec__ring_len(data, size), NULL, 0);

	rc->records++;
	if (err || size < sizeof(__u16))
		return err;
	if (*(const __u16 *)data == ST_REC_EVENT)
		rec__event_ksyms(rc, data, size);
	else if (*(const __u16 *)data == ST_REC_PROC)
		rec__proc_record(rc, data, size);
	return 0;
}

int recorder__mark(struct recorder *rc, enum rec_type type, uint64_t value)
{
	uint64_t now;
	int err = rec__put(rc, type, &value, type == REC_FLUSH ? 0 : sizeof(value), NULL, 0);

	if (err || type != REC_TICK)
		return err;
	now = clock_ns(CLOCK_MONOTONIC);
	if (now - rc->last_flush < RECORDER_FLUSH_NS)
		return 0;
	rc->last_flush = now;
	return rec_writer__flush(rc->w);
}

uint64_t recorder__records(const struct recorder *rc)
{
	return rc->records;
}

/* A counters entry: the capture's (REC_STATS) or the walker's (REC_USTATS). */
static void rec__counters(struct recorder *rc, uint16_t type, const uint64_t *counters, size_t n)
{
	uint32_t hdr[2] = { (uint32_t)n, 0 };

	rec__put(rc, type, hdr, sizeof(hdr), counters, n * sizeof(*counters));
}

void recorder__stats(struct recorder *rc, const uint64_t *counters, size_t n)
{
	rec__counters(rc, REC_STATS, counters, n);
}

void recorder__ustats(struct recorder *rc, const uint64_t *counters, size_t n)
{
	rec__counters(rc, REC_USTATS, counters, n);
}

/* --- files, their bytes, the vDSO ------------------------------------------ */

/* Stores @bytes, the file of build ID @id, in pieces, once per (kind, build ID). */
static void rec__archive(struct recorder *rc, const void *bytes, size_t size, const uint8_t *id,
			 size_t idlen, enum rec_data_kind kind)
{
	struct rec_file_data d = { .build_id_len = idlen, .kind = kind, .total = size };
	uint8_t key[1 + REC_BUILD_ID_MAX] = { kind };
	struct stack_entry *e;
	size_t n;

	memcpy(key + 1, id, idlen);
	e = stack_store__add(rc->archived, key, 1 + idlen, 0);
	if (!e || e->count > 1 || !bytes || !size)
		return;
	memcpy(d.build_id, id, idlen);
	for (; d.offset < size; d.offset += n) {
		n = size - d.offset < REC_PIECE_SIZE ? size - d.offset : REC_PIECE_SIZE;
		rec__put(rc, REC_FILE_DATA, &d, sizeof(d), (const uint8_t *)bytes + d.offset, n);
		rc->archive_bytes += n;
	}
}

/* --archive: the file's bytes and those of its separate debug file, if it has one. */
static void rec__archive_file(struct recorder *rc, struct elf_file *ef, const uint8_t *id,
			      size_t idlen)
{
	Elf *debug = elf_file__debug_elf(ef, NULL);
	const void *bytes;
	size_t size = 0;

	bytes = elf_rawfile(elf_file__elf(ef), &size);
	rec__archive(rc, bytes, size, id, idlen, REC_DATA_ELF);
	size = 0;
	bytes = debug ? elf_rawfile(debug, &size) : NULL;
	if (bytes)
		rec__archive(rc, bytes, size, id, idlen, REC_DATA_DEBUG);
}

/*
 * Writes the identity of the file mapped at @m as the registry opened it
 * (the very file mapped, through /proc/PID/map_files while it lived): its
 * build ID, or for a file without one a hash of its content.
 */
static void rec__identify(struct recorder *rc, int pid, const struct proc_map *m)
{
	struct rec_file f = { .inode = m->inode, .dev_major = m->dev_major,
			      .dev_minor = m->dev_minor };
	struct elf_file *ef = rc->procs ? procs__file(rc->procs, pid, m) : NULL;
	size_t plen = strnlen(m->path, UINT16_MAX), n = 0;
	const uint8_t *id = NULL;
	bool is_hash = false;

	if (ef) {
		elf_rawfile(elf_file__elf(ef), &n);
		f.size = n;
		n = elf_file__identity(ef, &id, &is_hash);
	}
	if (!n || n > REC_BUILD_ID_MAX)
		f.flags |= REC_FILE_UNREADABLE;
	else
		memcpy(f.build_id, id, n);
	f.build_id_len = f.flags ? 0 : n;
	f.flags |= is_hash ? REC_FILE_HASH_ID : 0;
	f.path_len = plen;
	rec__put(rc, REC_FILE, &f, sizeof(f), m->path, plen);
	if (rc->archive && ef && !(f.flags & REC_FILE_UNREADABLE))
		rec__archive_file(rc, ef, f.build_id, f.build_id_len);
}

/* A live process's vDSO mapping as last written: once per process and start. */
struct rec_vdso_seen {
	struct hnode node; /* (pid, 0), until the process is forgotten */
	uint64_t start;
};

/* Return: true when @pid's vDSO at @start is new to the recording (and now noted). */
static bool rec__vdso_new(struct recorder *rc, int pid, uint64_t start)
{
	struct rec_vdso_seen *v = (struct rec_vdso_seen *)htab__first(&rc->vdso_map,
								      (uint32_t)pid, 0);

	if (v) {
		if (v->start == start)
			return false;
		v->start = start; /* exec'ed since */
		return true;
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		return false;
	*v = (struct rec_vdso_seen){ .node.k1 = (uint32_t)pid, .start = start };
	if (!htab__insert(&rc->vdso_map, &v->node))
		return true;
	free(v);
	return false;
}

/* The vDSO image, once per image; each process's mapping of it, once per start. */
static void rec__vdso(struct recorder *rc, int pid, const struct proc_map *m)
{
	struct rec_vdso v = { .pid = pid, .start = m->start };
	struct stack_entry *e;
	struct elf_file *ef;
	const void *image;
	size_t size = 0;

	if (!rec__vdso_new(rc, pid, m->start))
		return;
	ef = rc->procs ? procs__file(rc->procs, pid, m) : NULL;
	image = ef ? elf_rawfile(elf_file__elf(ef), &size) : NULL;
	e = image && size ? stack_store__add(rc->vdso_img, image, size, 0) : NULL;
	if (!e)
		return;
	if (!e->data)
		e->data = (void *)(uintptr_t)++rc->nvdso;
	v.image = (uint32_t)(uintptr_t)e->data - 1;
	v.size = size;
	rec__put(rc, REC_VDSO, &v, sizeof(v), e->count == 1 ? image : NULL,
		 e->count == 1 ? size : 0);
}

/*
 * A process the registry forgot: what is kept of it goes. A map its exit
 * record did not bring (the record was lost) is written first.
 */
void recorder__forget(struct recorder *rc, int pid)
{
	struct hnode *v = htab__first(&rc->vdso_map, (uint32_t)pid, 0);
	struct rec_jit *j = rec__jit_of(rc, pid);

	if (v) {
		htab__remove(&rc->vdso_map, v);
		free(v);
	}
	if (j) {
		rec__perf_map(rc, j, true);
		htab__remove(&rc->jit, &j->node);
		rec__jit_free(rc, j);
	}
}

void recorder__watch(struct recorder *rc, struct proc_registry *procs)
{
	rc->procs = procs;
}

void recorder__on_maps(void *ctx, int pid, const struct proc_map *maps, size_t n)
{
	struct recorder *rc = ctx;
	struct stack_entry *e;
	uint64_t key[2];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct proc_map *m = &maps[i];

		if (!(m->prot & PROC_MAP_X))
			continue;
		if (!m->inode) {
			if (!strcmp(m->path, "[vdso]"))
				rec__vdso(rc, pid, m);
			else if ((m->path[0] != '[' || !strcmp(m->path, "[anon]")) &&
				 !rec__jit_of(rc, pid))
				rec__jit_begin(rc, pid);
			continue;
		}
		key[0] = (uint64_t)m->dev_major << 32 | m->dev_minor;
		key[1] = m->inode;
		e = stack_store__add(rc->files, key, sizeof(key), 0);
		if (e && e->count == 1)
			rec__identify(rc, pid, m);
	}
}

/* --- the stack-copy door: what each walk of a copy found ------------------- */

static void rec__copy_walked(void *ctx, int pid, const struct st_ucopy *c, const uint64_t *out,
			     size_t n, enum unwind_stop stop)
{
	struct rec_copy_walk w = { .pid = pid, .n = n, .stop = stop, .sp = c->sp };

	rec__put(ctx, REC_COPY_WALK, &w, sizeof(w), out, n * sizeof(*out));
}

/* --- lifecycle ------------------------------------------------------------- */

static int rec__meta_add(char **buf, size_t *len, const char *key, const char *val)
{
	size_t kl = strlen(key) + 1, vl = strlen(val) + 1;
	char *n = realloc(*buf, *len + kl + vl);

	if (!n)
		return -ENOMEM;
	memcpy(n + *len, key, kl);
	memcpy(n + *len + kl, val, vl);
	*buf = n;
	*len += kl + vl;
	return 0;
}

/* A number for the meta. */
static int rec__meta_num(char **buf, size_t *len, const char *key, long long v)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", v);
	return rec__meta_add(buf, len, key, num);
}

/*
 * What ran where: the command line, host, kernel, times. The wall clock and
 * time zone are what a report prints times of day with (proc_source_wall()).
 */
static int rec__meta(struct recorder *rc, const struct recorder_opts *o)
{
	uint64_t mono = mono_ns();
	struct utsname u;
	char *buf = NULL;
	size_t len = 0;
	int i, err;

	uname(&u);
	proc_source_live()->wall(NULL, &rc->wall);
	err = rec__meta_add(&buf, &len, "command", o->command);
	for (i = 0; !err && i < o->argc; i++)
		err = rec__meta_add(&buf, &len, "arg", o->argv[i]);
	if (!err)
		err = rec__meta_add(&buf, &len, "host", rc->wall.host);
	if (!err)
		err = rec__meta_add(&buf, &len, "kernel", u.release);
	if (!err)
		err = rec__meta_add(&buf, &len, "kernel_version", u.version);
	if (!err)
		err = rec__meta_add(&buf, &len, "machine", u.machine);
	if (!err)
		err = rec__meta_num(&buf, &len, "start_ns", (long long)(mono + rc->wall.real_minus_mono));
	if (!err)
		err = rec__meta_num(&buf, &len, "start_monotonic_ns", (long long)mono);
	if (!err)
		err = rec__meta_num(&buf, &len, "utc_offset_s", rc->wall.utc_offset);
	if (!err)
		err = rec__meta_num(&buf, &len, "cpus", sysconf(_SC_NPROCESSORS_CONF));
	if (!err && o->archive)
		err = rec__meta_add(&buf, &len, "archive", "1");
	if (!err)
		err = rec__put(rc, REC_META, buf, len, NULL, 0);
	free(buf);
	return err;
}

static void rec__free_node(struct hnode *n)
{
	free(n);
}

static void rec__free(struct recorder *rc)
{
	htab__drain(&rc->jit, rec__free_jit);
	htab__drain(&rc->vdso_map, rec__free_node);
	stack_store__free(rc->kaddrs);
	stack_store__free(rc->ksyms);
	stack_store__free(rc->kmods);
	stack_store__free(rc->files);
	stack_store__free(rc->archived);
	stack_store__free(rc->vdso_img);
	free(rc->path);
	free(rc);
}

struct recorder *recorder__new(const struct recorder_opts *o)
{
	struct recorder *rc = calloc(1, sizeof(*rc));
	int err = -ENOMEM;

	if (!rc || !(rc->path = strdup(o->path)) || !(rc->kaddrs = stack_store__new()) ||
	    !(rc->ksyms = stack_store__new()) || !(rc->kmods = stack_store__new()) ||
	    !(rc->files = stack_store__new()) || !(rc->archived = stack_store__new()) ||
	    !(rc->vdso_img = stack_store__new())) {
		st_err("record: out of memory");
		goto err_free;
	}
	rc->archive = o->archive;
	rc->print = o->print;
	memset(rc->kcache, 0xff, sizeof(rc->kcache)); /* empty: no kernel address is all ones */
	rc->w = rec_writer__open(o->path, 0);
	if (!rc->w) {
		err = -errno;
		goto err_free;
	}
	err = rec__meta(rc, o);
	if (err)
		goto err_close;
	rc->last_flush = clock_ns(CLOCK_MONOTONIC);
	active = rc;
	proc_source_set(&(struct proc_source_ops){
		.read = rec__read, .task_alive = rec__task_alive, .open_mapped = rec__open_mapped,
		.read_vdso = rec__read_vdso, .now = rec__now, .wall = rec__wall,
		.ctx = rc });
	copy_source_set(&(struct copy_source_ops){
		.walked = rec__copy_walked, .ctx = rc });
	return rc;
err_close:
	rec_writer__close(rc->w);
err_free:
	if (rc)
		rec__free(rc);
	errno = -err;
	return NULL;
}

static void rec__keep_perf_map(struct hnode *n, void *rc)
{
	rec__perf_map(rc, (struct rec_jit *)n, false);
}

static void rec__keep_perf_maps(struct recorder *rc)
{
	htab__each(&rc->jit, rec__keep_perf_map, rc);
}

int recorder__close(struct recorder *rc)
{
	struct rec_end end = {};
	uint64_t bytes, raw;
	int err;

	if (!rc)
		return 0;
	proc_source_set(NULL);
	copy_source_set(NULL);
	active = NULL;
	rec__keep_perf_maps(rc);
	end.end_ns = clock_ns(CLOCK_REALTIME);
	end.mono_ns = clock_ns(CLOCK_MONOTONIC);
	rec__put(rc, REC_END, &end, sizeof(end), NULL, 0);
	raw = rec_writer__raw_bytes(rc->w);
	rec_writer__flush(rc->w);
	bytes = rec_writer__bytes(rc->w);
	err = rec_writer__close(rc->w);
	fprintf(stderr,
		"stacktap: recorded %llu events (%llu records, %.1f MB, %.1f bytes per event; "
		"%.1f MB before compression%s) to %s\n",
		(unsigned long long)rc->events, (unsigned long long)rc->records, bytes / 1e6,
		rc->events ? (double)bytes / rc->events : 0.0, raw / 1e6,
		rc->archive ? ", files archived" : "", rc->path);
	rec__free(rc);
	return err;
}
