// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for recordings: the reader, the replay's checks of every
 * entry, and the pipeline a report runs them through (session, joiner, copy
 * stage, tracker, symbolizer), as `stacktap report` does minus the printing.
 *
 * An input that starts with the recording magic is a recording file (the
 * seeds are real ones): this reaches the header and chunk checks. Any other
 * input is read as entries, [u8 type][u16 length][payload]..., written into
 * a well-formed recording first: this reaches the entry checks and the
 * pipeline, which a fuzzer flipping compressed bytes would seldom pass.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/record/replay.h"
#include "lib/record/writer.h"
#include "lib/session/run.h"
#include "lib/sym/event_frames.h"
#include "lib/util/log.h"

/* Entries to a recording in a memfd; its bytes into *out. Return: 0 or -1. */
static int entries_to_recording(const uint8_t *data, size_t size, uint8_t **out, size_t *len)
{
	char path[64];
	struct rec_writer *w;
	size_t off = 0, n;
	int fd = memfd_create("fuzz-rec", MFD_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	w = rec_writer__open(path, 1);
	while (w && off + 3 <= size) {
		n = data[off + 1] | (size_t)data[off + 2] << 8;
		if (n > size - off - 3)
			n = size - off - 3;
		rec_writer__add(w, data[off], data + off + 3, n, NULL, 0);
		off += 3 + n;
	}
	if (!w || rec_writer__close(w)) {
		close(fd);
		return -1;
	}
	*len = lseek(fd, 0, SEEK_END);
	*out = malloc(*len + 1);
	r = *out ? pread(fd, *out, *len, 0) : -1;
	close(fd);
	return r == (ssize_t)*len ? 0 : -1;
}

struct sink {
	struct st_run *run;
	uint64_t events;
};

/* What a tool does with an event: name its frames (the symbolizer meets the recorded files). */
static int on_event(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	struct sink *k = ctx;
	struct event_frames ef;

	k->events++;
	if (!event_frames__build(&ef, k->run->sym, ev->pid, ev->ts, ips, ev->kdepth, ev->udepth,
				  NULL, ev->ustop))
		event_frames__release(&ef);
	return 0;
}

static void replay_bytes(const uint8_t *buf, size_t len)
{
	/* Nothing of this machine's files: the fuzzer's recordings name real paths. */
	struct replay_opts ro = { .no_default_dirs = true, .no_recorded_paths = true };
	struct st_common_opts common;
	struct st_run run = {};
	struct sink k = { .run = &run };
	struct session_opts so = { .on_event = on_event, .ctx = &k };
	struct replay *rp = replay__open(&ro, buf, len);

	if (!rp)
		return;
	st_common_opts__init(&common, CLI_CAP_COPY);
	if (!st_run__start(&run, NULL, &common, &so))
		session__run(run.session);
	st_run__stop(&run);
	replay__damaged(rp);
	replay__close(rp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *rec = NULL;
	size_t len;

	if (size >= REC_MAGIC_LEN && !memcmp(data, REC_MAGIC, REC_MAGIC_LEN)) {
		replay_bytes(data, size);
	} else if (!entries_to_recording(data, size, &rec, &len)) {
		replay_bytes(rec, len);
	}
	free(rec);
	return 0;
}
