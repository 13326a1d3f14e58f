/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay's parts, shared by its three files: replay.c (reading and
 * stashing), replay_source.c (answering the pipeline's reads) and
 * replay_files.c (finding mapped files by build ID). Not for other users.
 */
#ifndef ST_RECORD_REPLAY_INTERNAL_H
#define ST_RECORD_REPLAY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/record/format.h"
#include "lib/record/replay.h"
#include "lib/sym/ksyms.h"
#include "lib/util/safe_open.h"

struct stack_store;
struct proc_map;

/* A recorded file identity, and what locating it found. */
struct rp_file {
	struct rec_file f;
	char *path;
	int fd;          /* the located file, kept open; -1 until found */
	int state;       /* 0: not looked for; 1: found; -1: not found */
	enum safe_open_why why; /* with state -1: SAFE_OPEN_MISSING or SAFE_OPEN_OTHER_BUILD */
	char *other;     /* where a file with another build ID was seen */
	bool used;       /* a mapping asked for it */
};

/* An archived file being rebuilt from its pieces, in a memfd. */
struct rp_blob {
	int fd;
	uint64_t total, filled;
	bool bad;
};

struct rp_vdso_image {
	void *image;
	size_t size;
};

struct rp_counts {
	uint64_t reads_missing;   /* /proc reads the recording has no answer for */
	uint64_t alive_missing;   /* liveness questions with no recorded answer */
	uint64_t alive_mismatch;  /* the answer recorded was for another thread */
	uint64_t no_identity;     /* mappings whose file the recording does not identify */
	uint64_t unknown_types;   /* entries of a newer format minor, skipped */
	uint64_t walks_missing;   /* walks of a stack copy the recording has no answer for */
	uint64_t walks_mismatch;  /* the answer recorded was another copy's */
};

struct rp_walk;

/* Counters recorded at the end of a run. */
struct rp_counters {
	uint64_t *v;
	size_t n;
};

struct replay {
	struct rec_reader *rd;
	struct replay_opts o;
	char **symfs, **debug_dirs;
	char *home_debug;             /* $HOME/.debug: perf's build-ID cache */
	/* META */
	char *meta;
	size_t meta_len;
	const char **args;
	size_t nargs;
	/* the action handed out, and the one read ahead */
	uint8_t *cur, *next;
	size_t cur_cap, next_cap;
	struct rec_entry cur_e, next_e;
	bool have_next;
	int end;                      /* what the reader said after the last action */
	/* the stash */
	struct stack_store *reads;    /* (pid, file) -> FIFO of answers */
	struct rec_alive *alive;
	size_t alive_head, alive_n, alive_cap;
	struct stack_store *files;    /* (device, inode) -> struct rp_file */
	struct stack_store *blobs;    /* (kind, build ID) -> struct rp_blob */
	struct rp_vdso_image *vimg;
	size_t nvimg;
	struct stack_store *vmaps;    /* (pid, start) -> image id + 1 */
	struct ksym *ksyms;           /* sorted by address; names owned */
	size_t nksyms, ksyms_cap;
	replay_perf_map_fn on_perf_map; /* the symbolizer's JIT names (replay__on_perf_map()) */
	void *perf_map_ctx;
	struct rp_counters stats;      /* the capture's (REC_STATS) */
	struct rp_counters ustats;     /* the user-stack walker's (REC_USTATS, 2.1) */
	bool ended;
	struct rp_counts counts;
	uint64_t now;                 /* the latest time the recording has told of */
	/* stack copies (replay_copy.c): from 2.0, what each walk found, not the bytes */
	bool sparse_copies;
	struct rp_walk *walk_head, *walk_tail;
	/* progress */
	uint64_t started_ns, shown_ns, actions;
	uint64_t naming_started_ns; /* replay__naming()'s first call */
	bool shown, naming_shown;
};

/* replay_source.c */
void rp_source__install(struct replay *rp);
void rp_source__uninstall(void);
int rp_stash_read(struct replay *rp, const struct rec_proc_read *pr, const char *text,
		  size_t len);
int rp_stash_alive(struct replay *rp, const struct rec_alive *a);
int rp_stash_ksym(struct replay *rp, uint64_t addr, const char *name, const char *module);
int rp_stash_vdso(struct replay *rp, const struct rec_vdso *v, const void *image, size_t len);
void rp_source__free(struct replay *rp);

/* replay_copy.c */
int rp_stash_copy_walk(struct replay *rp, const struct rec_copy_walk *cw, const void *frames,
		       size_t len);
void rp_copy__install(struct replay *rp);
void rp_copy__uninstall(void);
void rp_copy__free(struct replay *rp);

/* replay_files.c */
int rp_stash_file(struct replay *rp, const struct rec_file *f, const char *path);
int rp_stash_file_data(struct replay *rp, const struct rec_file_data *d, const void *bytes,
		       size_t len);
int rp_files__open_mapped(struct replay *rp, int pid, const struct proc_map *m,
			  enum safe_open_why *why);
int rp_files__open_debug(struct replay *rp, const uint8_t *id, size_t len, char **path);
void rp_files__report(const struct replay *rp);
void rp_files__free(struct replay *rp);

#endif
