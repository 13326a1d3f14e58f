// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/proc/timeline: mappings over time from records and /proc
 * reads, in order and out of order, with the answers an event at each moment
 * must get.
 */
#include <stdlib.h>

#include "lib/proc/timeline.h"
#include "tests/unit/check.h"

/* Files are told apart by their inode; the path names them in failures. */
static struct tl_map map(uint64_t start, uint64_t end, uint64_t ino, const char *path)
{
	return (struct tl_map){ .start = start, .end = end, .ino = ino, .dev = 8, .path = path };
}

/* The inode holding @addr at @ts, 0 for none. */
static uint64_t at(const struct timeline *tl, uint64_t ts, uint64_t addr)
{
	const struct tl_map *m = timeline__find(tl, ts, addr);

	return m ? m->ino : 0;
}

/* dlopen A, dlclose A, dlopen B at the same place: each event sees its own library. */
static void check_same_address(void)
{
	struct timeline tl = { 0 };
	struct tl_map a = map(0x1000, 0x3000, 1, "/lib/a.so"), b = map(0x1000, 0x3000, 2, "/lib/b.so");

	CHECK_EQ_U64(timeline__map(&tl, 100, &a), 0);
	CHECK_EQ_U64(timeline__unmap(&tl, 200, 0x1000, 0x3000), 0);
	CHECK_EQ_U64(timeline__map(&tl, 300, &b), 0);
	CHECK_EQ_U64(at(&tl, 99, 0x2000), 0);
	CHECK_EQ_U64(at(&tl, 150, 0x2000), 1);
	CHECK_EQ_U64(at(&tl, 250, 0x2000), 0);
	CHECK_EQ_U64(at(&tl, 350, 0x2000), 2);
	CHECK_EQ_U64(timeline__epoch(&tl, 150), 100);
	CHECK_EQ_U64(timeline__epoch(&tl, 250), 200);
	CHECK_EQ_U64(timeline__epoch(&tl, 1000), 300);
	CHECK_EQ_U64(timeline__epoch(&tl, 50), 0);
	timeline__release(&tl);
}

/* A new mapping over part of another keeps the rest of it, at the right file offset. */
static void check_partial(void)
{
	struct timeline tl = { 0 };
	struct tl_map a = map(0x1000, 0x5000, 1, "/a"), b = map(0x2000, 0x3000, 2, "/b");
	const struct tl_map *m;

	a.pgoff = 0x10000;
	CHECK_EQ_U64(timeline__map(&tl, 10, &a), 0);
	CHECK_EQ_U64(timeline__map(&tl, 20, &b), 0);
	CHECK_EQ_U64(at(&tl, 15, 0x2800), 1);
	CHECK_EQ_U64(at(&tl, 25, 0x2800), 2);
	CHECK_EQ_U64(at(&tl, 25, 0x1800), 1);
	m = timeline__find(&tl, 25, 0x4800);
	CHECK(m && m->ino == 1 && m->start == 0x3000 && m->pgoff == 0x12000);
	timeline__release(&tl);
}

/*
 * A /proc read at t=500 lists B, whose mmap record (t=300) and the munmap
 * of A before it (t=200) are read only afterwards: B learns when it came,
 * and A is not pushed out by the guess.
 */
static void check_guess_then_records(void)
{
	struct timeline tl = { 0 };
	struct tl_map a = map(0x1000, 0x3000, 1, "/a"), b = map(0x1000, 0x3000, 2, "/b");
	const struct tl_map *live[4];

	CHECK_EQ_U64(timeline__snapshot(&tl, 500, 0, &b, 1), 0);
	CHECK_EQ_U64(at(&tl, 100, 0x2000), 2); /* only a guess so far */
	CHECK_EQ_U64(timeline__map(&tl, 100, &a), 0);
	CHECK_EQ_U64(timeline__unmap(&tl, 200, 0x1000, 0x3000), 0);
	CHECK_EQ_U64(timeline__map(&tl, 300, &b), 0);
	CHECK_EQ_U64(at(&tl, 150, 0x2000), 1);
	CHECK_EQ_U64(at(&tl, 250, 0x2000), 0);
	CHECK_EQ_U64(at(&tl, 350, 0x2000), 2);
	CHECK_EQ_U64(at(&tl, 600, 0x2000), 2);
	CHECK_EQ_U64(timeline__live(&tl, live, 4), 1);
	CHECK(live[0]->ino == 2 && !live[0]->guessed && live[0]->from == 300);
	timeline__release(&tl);
}

/* A /proc read drops what is no longer listed, and an exec ends all from its moment. */
static void check_snapshot_and_exec(void)
{
	struct timeline tl = { 0 };
	struct tl_map exe = map(0x400000, 0x401000, 7, "/bin/x"), lib = map(0x7000, 0x8000, 8, "/l");
	const struct tl_map *live[4];

	CHECK_EQ_U64(timeline__map(&tl, 10, &lib), 0);
	CHECK_EQ_U64(timeline__snapshot(&tl, 50, 0, &exe, 1), 0);
	CHECK_EQ_U64(at(&tl, 20, 0x7800), 8);
	CHECK_EQ_U64(at(&tl, 60, 0x7800), 0); /* not listed at 50: gone by then */
	CHECK_EQ_U64(at(&tl, 5, 0x400800), 7); /* a guess reaches back to the image's start */
	CHECK_EQ_U64(timeline__end_all(&tl, 70), 0);
	CHECK_EQ_U64(at(&tl, 69, 0x400800), 7);
	CHECK_EQ_U64(at(&tl, 71, 0x400800), 0);
	CHECK_EQ_U64(timeline__live(&tl, live, 4), 0);
	timeline__release(&tl);
}

/* An exec read after a /proc read of the new image: the read belongs after the exec. */
static void check_exec_after_read(void)
{
	struct timeline tl = { 0 };
	struct tl_map old = map(0x1000, 0x2000, 1, "/old"), new = map(0x5000, 0x6000, 2, "/new");

	CHECK_EQ_U64(timeline__map(&tl, 10, &old), 0);
	CHECK_EQ_U64(timeline__snapshot(&tl, 100, 0, &new, 1), 0); /* ends /old at 100 */
	CHECK_EQ_U64(timeline__end_all(&tl, 40), 0);              /* the exec was at 40 */
	CHECK_EQ_U64(at(&tl, 30, 0x1800), 1);
	CHECK_EQ_U64(at(&tl, 50, 0x1800), 0);
	CHECK_EQ_U64(at(&tl, 30, 0x5800), 0); /* the new image starts at the exec */
	CHECK_EQ_U64(at(&tl, 50, 0x5800), 2);
	timeline__release(&tl);
}

/* A forked child maps what its parent mapped at the fork, and ends what its pid held. */
static void check_fork(void)
{
	struct timeline parent = { 0 }, child = { 0 };
	struct tl_map p = map(0x1000, 0x2000, 1, "/p"), stale = map(0x1000, 0x2000, 9, "/stale");

	CHECK_EQ_U64(timeline__map(&parent, 10, &p), 0);
	CHECK_EQ_U64(timeline__map(&child, 5, &stale), 0); /* the pid's previous owner */
	CHECK_EQ_U64(timeline__fork(&child, &parent, 100), 0);
	CHECK_EQ_U64(at(&child, 50, 0x1800), 9);
	CHECK_EQ_U64(at(&child, 150, 0x1800), 1);
	CHECK_EQ_U64(timeline__unmap(&parent, 200, 0x1000, 0x2000), 0);
	CHECK_EQ_U64(at(&child, 250, 0x1800), 1);
	CHECK_EQ_U64(at(&parent, 250, 0x1800), 0);
	timeline__release(&parent);
	timeline__release(&child);
}

/*
 * A description from BPF at a first meeting (bpf/met.bpf.h): what it lists
 * is added as a /proc read adds it, from the image's start; nothing is
 * ended, so a description whose records were partly lost (ring buffer full)
 * only leaves a mapping out; and repeated (the look ahead, then the record
 * in its turn) it changes nothing.
 */
static void check_describe(void)
{
	struct timeline tl = { 0 };
	struct tl_map exe = map(0x1000, 0x2000, 1, "/exe"), libc = map(0x7000, 0x9000, 2, "/libc"),
		      dl = map(0x4000, 0x5000, 3, "/dl.so");

	CHECK_EQ_U64(timeline__map(&tl, 300, &dl), 0);       /* mmap after the meeting */
	CHECK_EQ_U64(timeline__describe(&tl, 400, 100, &exe, 1), 1);
	CHECK_EQ_U64(at(&tl, 150, 0x1800), 1);                 /* the event before it */
	CHECK_EQ_U64(at(&tl, 99, 0x1800), 0);                  /* not before the image */
	CHECK_EQ_U64(at(&tl, 350, 0x4800), 3);                 /* the record's mapping stays */
	CHECK_EQ_U64(at(&tl, 250, 0x4800), 0);                 /* ...from its own time */
	CHECK_EQ_U64(timeline__live(&tl, NULL, 0), 2);
	/* Again, and with the record of libc that was lost the first time: only libc is new. */
	CHECK_EQ_U64(timeline__describe(&tl, 400, 100, &exe, 1), 0);
	CHECK_EQ_U64(timeline__describe(&tl, 400, 100, &libc, 1), 1);
	CHECK_EQ_U64(tl.n, 3);
	CHECK_EQ_U64(at(&tl, 150, 0x8000), 2);
	CHECK_EQ_U64(at(&tl, 150, 0x1800), 1);
	/* A snapshot listing only exe ends the others; a description never does. */
	CHECK_EQ_U64(timeline__snapshot(&tl, 500, 100, &exe, 1), 0);
	CHECK_EQ_U64(at(&tl, 600, 0x8000), 0);
	CHECK_EQ_U64(at(&tl, 600, 0x1800), 1);
	timeline__release(&tl);
}

int main(void)
{
	check_same_address();
	check_partial();
	check_guess_then_records();
	check_snapshot_and_exec();
	check_exec_after_read();
	check_fork();
	check_describe();
	return CHECK_DONE();
}
