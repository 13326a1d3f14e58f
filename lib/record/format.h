/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording format on disk (docs/recording.md is its specification):
 * a fixed header, then zstd-compressed chunks, each holding whole entries.
 * Everything is little-endian; an entry is an 8-byte header and a payload
 * padded to 8 bytes, so payloads are 8-aligned in a decompressed chunk and
 * wire structs can be read in place.
 *
 * A recording holds the INPUTS of the user-space pipeline, in the order the
 * pipeline consumed them: ring-buffer records (actions) and what the
 * pipeline learned from the machine while handling them (side entries:
 * /proc reads, file identities, vDSO images, kernel symbols).
 */
#ifndef ST_RECORD_FORMAT_H
#define ST_RECORD_FORMAT_H

#include <stdint.h>

#define REC_MAGIC "\x89STAP\r\n\x1a"
#define REC_MAGIC_LEN 8
/*
 * A newer major cannot be read; a newer minor only adds entry types, which are skipped.
 * 2.0: stack copies are kept as what their walks found (REC_COPY_WALK), not as bytes.
 * 2.1: the user-stack walker's counters too (REC_USTATS).
 * 2.2: the registry's forgets (REC_FORGET), so a long recording's memory stays flat.
 * A reader of 2.x reads 1.x too (REC_VERSION_MAJOR_MIN).
 */
#define REC_VERSION_MAJOR 2
#define REC_VERSION_MAJOR_MIN 1
#define REC_VERSION_MINOR 2
#define REC_HEADER_SIZE 64

#define REC_COMPRESS_ZSTD 1

/*
 * A chunk's decompressed size. The writer cuts chunks at REC_CHUNK_TARGET
 * (big enough that zstd finds the repetition of stacks, small enough that a
 * cut recording loses little); one entry may make a chunk bigger. The reader
 * refuses anything above REC_CHUNK_MAX before allocating.
 */
#define REC_CHUNK_TARGET (1u << 20)
#define REC_CHUNK_MAX (64u << 20)
#define REC_CHUNK_MAGIC 0x4b4e4843u /* "CHNK" */
#define REC_CHUNK_HDR_SIZE 20
/* One entry's payload; archived files are cut in pieces this big. */
#define REC_ENTRY_MAX (32u << 20)
#define REC_PIECE_SIZE (1u << 20)

struct rec_header {
	char magic[REC_MAGIC_LEN];
	uint16_t major, minor;
	uint32_t header_size;   /* REC_HEADER_SIZE */
	uint32_t wire_version;  /* ST_WIRE_VERSION of bpf/record.h at record time */
	uint16_t sz_event;      /* sizeof(struct st_event) etc. at record time: a guard */
	uint16_t sz_ustack;
	uint16_t sz_proc_event;
	uint16_t sz_ucopy;
	uint32_t compression;   /* REC_COMPRESS_* */
	uint64_t created_ns;    /* CLOCK_REALTIME */
	uint8_t reserved[20];   /* zero */
	uint32_t crc;           /* crc32 of the bytes before it: always the last 4 of the header */
};

struct rec_chunk_hdr {
	uint32_t magic;     /* REC_CHUNK_MAGIC */
	uint32_t seq;       /* 0, 1, 2...: a lost or repeated chunk is damage */
	uint32_t raw_len;   /* decompressed bytes, <= REC_CHUNK_MAX */
	uint32_t comp_len;  /* bytes that follow */
	uint32_t crc;       /* crc32 of the 16 bytes before it */
};

struct rec_entry_hdr {
	uint16_t type;  /* enum rec_type */
	uint16_t flags; /* 0 */
	uint32_t len;   /* payload bytes, before padding */
};

/*
 * Actions drive the replay (the session acts on them in order); side
 * entries are what the pipeline read while acting on the action before
 * them, and are stashed before that action is replayed.
 */
enum rec_type {
	REC_META = 1,      /* "key\0value\0" pairs: what ran where */
	REC_RING = 2,      /* action: one ring-buffer record, bytes as they arrived */
	REC_TICK = 3,      /* action: u64 now: the joiner looked for gone tasks */
	REC_INTERVAL = 4,  /* action: u64 now: interval output */
	REC_DRAIN = 5,     /* action: u64 stop_ts: the run stopped, draining */
	REC_FLUSH = 6,     /* action: events still waiting left without their stack */
	REC_PROC_READ = 7, /* struct rec_proc_read + text */
	REC_ALIVE = 8,     /* struct rec_alive */
	REC_FILE = 9,      /* struct rec_file + path */
	REC_FILE_DATA = 10, /* struct rec_file_data + bytes (record --archive) */
	REC_VDSO = 11,     /* struct rec_vdso + the image when first seen */
	REC_PERF_MAP = 12, /* struct rec_perf_map + /tmp/perf-PID.map text */
	REC_KSYM = 13,     /* struct rec_ksym + "name\0module\0" */
	REC_KMOD = 14,     /* struct rec_kmod + "module\0": a module's build ID */
	REC_STATS = 15,    /* u32 n, u32 pad, u64 counters[n]: ST_STAT_* at the end */
	REC_END = 16,      /* struct rec_end */
	REC_RING_UCOPY = 17, /* action: a deferred user stack with its stack copy right after
			      * its frames (the ring record keeps it after 1024 slots) */
	REC_COPY_WALK = 18, /* struct rec_copy_walk + frames: what one walk of a copy found (2.0) */
	REC_USTATS = 19,   /* u32 n, u32 pad, u64 counters[n]: ST_USTAT_* at the end (2.1) */
	REC_FORGET = 20,   /* action: u64 before: the registry forgot the processes that
			    * exited before it, their stacks settled first (2.2) */
	REC_TYPE_MAX,
};

#define REC_PROC_FILE_LEN 16

/* A /proc file the pipeline read (maps, status); the text, or why it failed. */
struct rec_proc_read {
	uint32_t pid;
	int32_t err;        /* 0, or the -errno the read gave */
	uint64_t ts;        /* CLOCK_MONOTONIC */
	char file[REC_PROC_FILE_LEN]; /* "maps", "status": NUL-padded */
	/* then the text */
};

struct rec_alive {
	uint32_t pid, tid;
	uint32_t alive;
	uint32_t pad;
};

#define REC_BUILD_ID_MAX 20

/* rec_file.flags */
#define REC_FILE_UNREADABLE (1u << 0) /* not usable while recording (gone, not ELF, refused) */
#define REC_FILE_HASH_ID (1u << 2)    /* no build ID: build_id holds a hash of the content */

/* A mapped file's identity, as the process mappings name it. */
struct rec_file {
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	uint64_t size;        /* bytes, as read while recording */
	uint64_t reserved;    /* 0 */
	uint8_t build_id_len; /* 0: unusable (REC_FILE_UNREADABLE) */
	uint8_t flags;        /* REC_FILE_* */
	uint16_t path_len;
	uint32_t pad;
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint32_t pad2;
	/* then the path, path_len bytes, no NUL */
};

enum rec_data_kind {
	REC_DATA_ELF = 0,   /* the mapped file itself */
	REC_DATA_DEBUG = 1, /* its separate debug file */
};

/* A piece of an archived file, known by its build ID. */
struct rec_file_data {
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint8_t build_id_len;
	uint8_t kind;       /* enum rec_data_kind */
	uint16_t pad;
	uint64_t total;     /* the file's size */
	uint64_t offset;    /* of this piece */
	/* then the bytes */
};

/* A process's vDSO mapping; the image follows when this is its first sight. */
struct rec_vdso {
	uint32_t pid;
	uint32_t image;     /* image id: 0, 1, ... in order of first sight */
	uint64_t start, size;
	/* then the image bytes, or nothing when the image was seen before */
};

struct rec_perf_map {
	uint32_t pid;
	uint32_t pad;
	/* then the text */
};

/* One kernel symbol an event needs: the answer kallsyms gave for its addresses. */
struct rec_ksym {
	uint64_t addr;
	uint16_t name_len, module_len; /* module_len 0: vmlinux */
	uint32_t pad;
	/* then the name, NUL, the module, NUL */
};

struct rec_kmod {
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint8_t build_id_len;
	uint8_t pad[3];
	/* then "module\0" ("vmlinux" for the kernel) */
};

/*
 * One walk of a stack copy (lib/unwind/copy_source.h), in the order of the
 * walks: the frames it found and why it stopped. From 2.0 a ring record
 * keeps its copy's st_ucopy (registers, length) but not its bytes; the
 * replay answers each walk with these.
 */
struct rec_copy_walk {
	uint32_t pid;
	uint16_t n;      /* frames that follow, <= ST_MAX_USTACK of bpf/record.h */
	uint16_t stop;   /* enum unwind_stop of lib/unwind/unwinder.h */
	uint64_t sp;     /* the copy's st_ucopy.sp: whose walk this is */
	/* then uint64_t frames[n], innermost first, with the walker's ST_FRAME_* marks */
};

/* rec_end.flags */
#define REC_END_INTERRUPTED (1u << 0)

struct rec_end {
	uint64_t end_ns;     /* CLOCK_REALTIME */
	uint64_t mono_ns;    /* CLOCK_MONOTONIC */
	uint32_t flags;      /* REC_END_* */
	uint32_t pad;
};

/* The layout is the file's: no padding the compiler could choose differently. */
_Static_assert(sizeof(struct rec_header) == REC_HEADER_SIZE, "rec_header layout");
_Static_assert(sizeof(struct rec_chunk_hdr) == REC_CHUNK_HDR_SIZE, "rec_chunk_hdr layout");
_Static_assert(sizeof(struct rec_entry_hdr) == 8, "rec_entry_hdr layout");
_Static_assert(sizeof(struct rec_proc_read) == 32, "rec_proc_read layout");
_Static_assert(sizeof(struct rec_alive) == 16, "rec_alive layout");
_Static_assert(sizeof(struct rec_file) == 64, "rec_file layout");
_Static_assert(sizeof(struct rec_file_data) == 40, "rec_file_data layout");
_Static_assert(sizeof(struct rec_vdso) == 24, "rec_vdso layout");
_Static_assert(sizeof(struct rec_ksym) == 16, "rec_ksym layout");
_Static_assert(sizeof(struct rec_kmod) == 24, "rec_kmod layout");
_Static_assert(sizeof(struct rec_end) == 24, "rec_end layout");
_Static_assert(sizeof(struct rec_copy_walk) == 16, "rec_copy_walk layout");

#endif
