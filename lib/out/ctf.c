// SPDX-License-Identifier: GPL-2.0
/*
 * CTF writer. Events are laid out in a packet buffer and written a packet
 * at a time, each behind a header (magic, stream id) and a context (first
 * and last time, content and packet size), so readers can seek by time.
 * Every field is byte-aligned and little-endian, so an event is its fields
 * back to back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/out/ctf.h"
#include "lib/out/frame_label.h"
#include "lib/util/log.h"

#define CTF_MAGIC 0xc1fc1fc1u
#define CTF_PACKET_MAX (256 * 1024) /* flush a packet at this size: bounded memory */
#define CTF_HEADER_LEN (4 + 4)      /* magic, stream_id */
#define CTF_CONTEXT_LEN (4 * 8)     /* timestamp_begin, timestamp_end, content_size, packet_size */

struct ctf_writer {
	char *dir;
	int fd;
	uint32_t nevents;
	uint8_t *buf;   /* the packet being filled, header and context left blank */
	size_t len, cap;
	uint64_t ts_begin, ts_end;
	bool empty;
	int err;
};

static const char ctf_metadata_head[] =
	"/* CTF 1.8 */\n\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; base = 16; } := address_t;\n\n"
	"trace {\n"
	"\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n"
	"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint32_t stream_id;\n\t};\n"
	"};\n\n";

static const char ctf_metadata_stream[] =
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }"
	" := clock_t;\n\n"
	"stream {\n\tid = 0;\n"
	"\tpacket.context := struct {\n\t\tclock_t timestamp_begin;\n\t\tclock_t timestamp_end;\n"
	"\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n\t};\n"
	"\tevent.header := struct {\n\t\tuint32_t id;\n\t\tclock_t timestamp;\n\t};\n"
	"};\n\n";

static const char ctf_metadata_fields[] =
	"\tfields := struct {\n"
	"\t\tstring comm;\n\t\tint32_t pid;\n\t\tint32_t tid;\n\t\tuint32_t cpu;\n"
	"\t\tuint32_t kernel_depth;\n\t\taddress_t kernel_ips[kernel_depth];\n"
	"\t\tstring kernel_frames[kernel_depth];\n"
	"\t\tuint32_t user_depth;\n\t\taddress_t user_ips[user_depth];\n"
	"\t\tstring user_frames[user_depth];\n"
	"\t};\n";

/* A TSDL string literal: backslash and quote escaped, control characters dropped. */
static void ctf__literal(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

static int ctf__metadata(const char *dir, const struct ctf_opts *o)
{
	char path[4096];
	int64_t off = o->clock_offset_ns;
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(ctf_metadata_head, f);
	fputs("env {\n\ttracer_name = \"stacktap\";\n", f);
	if (o->hostname) {
		fputs("\thostname = ", f);
		ctf__literal(f, o->hostname);
		fputs(";\n", f);
	}
	fputs("};\n\n", f);
	/* offset_s and offset are both >= 0 in CTF: split a negative offset with a borrow. */
	fprintf(f, "clock {\n\tname = monotonic;\n\tdescription = \"CLOCK_MONOTONIC, as BPF stamps "
		   "events\";\n\tfreq = 1000000000;\n\toffset_s = %lld;\n\toffset = %lld;\n};\n\n",
		(long long)(off >= 0 ? off / 1000000000 : 0), (long long)(off >= 0 ? off % 1000000000 : 0));
	fputs(ctf_metadata_stream, f);
	for (i = 0; i < o->nevents; i++) {
		fputs("event {\n\tname = ", f);
		ctf__literal(f, o->events[i]);
		fprintf(f, ";\n\tid = %zu;\n\tstream_id = 0;\n", i);
		fputs(ctf_metadata_fields, f);
		fputs("};\n\n", f);
	}
	if (fclose(f))
		return -EIO;
	return 0;
}

struct ctf_writer *ctf_writer__new(const char *dir, const struct ctf_opts *o)
{
	struct ctf_writer *w = calloc(1, sizeof(*w));
	char path[4096];
	int err;

	if (!w || !(w->dir = strdup(dir))) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = -1;
	w->nevents = (uint32_t)o->nevents;
	w->empty = true;
	w->len = CTF_HEADER_LEN + CTF_CONTEXT_LEN;
	err = mkdir(dir, 0755) && errno != EEXIST ? -errno : 0;
	if (!err)
		err = ctf__metadata(dir, o);
	if (!err) {
		snprintf(path, sizeof(path), "%s/stream", dir);
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		err = w->fd < 0 ? -errno : 0;
	}
	if (err) {
		st_err("ctf: %s: %s", dir, strerror(-err));
		ctf_writer__close(w);
		errno = -err;
		return NULL;
	}
	return w;
}

static uint8_t *ctf__room(struct ctf_writer *w, size_t n)
{
	size_t cap = w->cap ? w->cap : CTF_PACKET_MAX;
	uint8_t *p;

	if (w->err)
		return NULL;
	while (cap < w->len + n)
		cap *= 2;
	if (cap != w->cap) {
		p = realloc(w->buf, cap);
		if (!p) {
			w->err = -ENOMEM;
			return NULL;
		}
		w->buf = p;
		w->cap = cap;
	}
	p = w->buf + w->len;
	w->len += n;
	return p;
}

/* Little-endian, as the metadata says; this writer runs on little-endian x86 and arm64. */
static void ctf__put(struct ctf_writer *w, uint64_t v, size_t n)
{
	uint8_t *p = ctf__room(w, n);
	size_t i;

	for (i = 0; p && i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void ctf__str(struct ctf_writer *w, const char *s)
{
	size_t n = strlen(s) + 1;
	uint8_t *p = ctf__room(w, n);

	if (p)
		memcpy(p, s, n);
}

/* Frames @from .. @to of @s: their count, addresses, then labels. */
static void ctf__stack(struct ctf_writer *w, const struct report_stack *s, size_t from, size_t to)
{
	struct frame_label_opts lo = { .lines = true };
	char label[FRAME_LABEL_MAX];
	size_t i;

	ctf__put(w, to - from, 4);
	for (i = from; i < to; i++)
		ctf__put(w, frame_pc(s, i), 8);
	for (i = from; i < to; i++)
		ctf__str(w, frame_label(report_stack__frame(s, i), &lo, label, sizeof(label)));
}

/* Fill in the packet's header and context, write it, start the next one. */
static int ctf__flush(struct ctf_writer *w)
{
	size_t len = w->len, done = 0;
	ssize_t n;

	if (w->empty || w->err)
		return w->err;
	w->len = 0;
	ctf__put(w, CTF_MAGIC, 4);
	ctf__put(w, 0, 4);
	ctf__put(w, w->ts_begin, 8);
	ctf__put(w, w->ts_end, 8);
	ctf__put(w, (uint64_t)len * 8, 8);
	ctf__put(w, (uint64_t)len * 8, 8);
	while (done < len) {
		n = write(w->fd, w->buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->err = -EIO;
			return w->err;
		}
		done += (size_t)n;
	}
	w->len = CTF_HEADER_LEN + CTF_CONTEXT_LEN;
	w->empty = true;
	return 0;
}

int ctf_writer__event(struct ctf_writer *w, uint32_t id, const struct report_stack *s)
{
	if (id >= w->nevents)
		return -EINVAL;
	if (w->empty)
		w->ts_begin = s->ts;
	w->ts_end = s->ts;
	w->empty = false;
	ctf__put(w, id, 4);
	ctf__put(w, s->ts, 8);
	ctf__str(w, s->comm);
	ctf__put(w, (uint32_t)s->pid, 4);
	ctf__put(w, (uint32_t)s->tid, 4);
	ctf__put(w, (uint32_t)s->cpu, 4);
	ctf__stack(w, s, 0, s->nk);
	ctf__stack(w, s, s->nk, s->nk + s->nu);
	if (!w->err && w->len >= CTF_PACKET_MAX)
		ctf__flush(w);
	return w->err;
}

int ctf_writer__close(struct ctf_writer *w)
{
	int err;

	if (!w)
		return 0;
	if (w->fd >= 0) {
		ctf__flush(w);
		if (close(w->fd) && !w->err)
			w->err = -EIO;
	}
	err = w->err;
	if (err)
		st_err("ctf: %s: %s", w->dir, strerror(-err));
	free(w->buf);
	free(w->dir);
	free(w);
	return err;
}

struct ctf_order {
	const struct report_stack *s;
	size_t i; /* place in report__sorted(): ties keep it, so the trace is deterministic */
};

static int ctf__by_time(const void *pa, const void *pb)
{
	const struct ctf_order *a = pa, *b = pb;

	if (a->s->ts != b->s->ts)
		return a->s->ts < b->s->ts ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

int out_ctf(const char *dir, struct report *r, const struct ctf_opts *o)
{
	struct report_stack **v;
	struct ctf_order *byt;
	struct ctf_writer *w;
	size_t n, i;
	uint64_t k;
	int err = 0;

	v = report__sorted(r, &n);
	byt = malloc((n + 1) * sizeof(*byt));
	if (!byt)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		byt[i] = (struct ctf_order){ v[i], i };
	qsort(byt, n, sizeof(*byt), ctf__by_time);
	w = ctf_writer__new(dir, o);
	if (!w) {
		free(byt);
		return -errno;
	}
	for (i = 0; i < n && !err; i++)
		for (k = 0; k < byt[i].s->count && !err; k++)
			err = ctf_writer__event(w, 0, byt[i].s);
	err = ctf_writer__close(w) ?: err;
	free(byt);
	return err;
}
