// SPDX-License-Identifier: GPL-2.0
/*
 * exits_ahead: only exit records are noted (not forks, execs, short records
 * or events); an exit of a pid at or after an event's time says the
 * event's process ends; an earlier one was another process of that pid.
 */
#include <errno.h>

#include "bpf/record.h"
#include "lib/session/exits_ahead.h"
#include "tests/unit/check.h"

static int note(struct exits_ahead *ea, __u16 kind, __u16 what, __u32 pid, __u64 ts, size_t size)
{
	struct st_proc_event pe = { .kind = kind, .what = what, .pid = pid, .ts = ts };

	return exits_ahead__note(ea, &pe, size);
}

int main(void)
{
	const size_t hdr = offsetof(struct st_proc_event, comps);
	struct exits_ahead ea = {};

	CHECK(!exits_ahead__has(&ea, 1, 0));
	CHECK_EQ_U64(note(&ea, ST_REC_PROC, ST_PROC_EXIT, 300, 5000, hdr), 0);
	CHECK_EQ_U64(note(&ea, ST_REC_PROC, ST_PROC_FORK, 301, 5000, hdr), 0);
	CHECK_EQ_U64(note(&ea, ST_REC_PROC, ST_PROC_EXEC, 302, 5000, hdr), 0);
	CHECK_EQ_U64(note(&ea, ST_REC_EVENT, ST_PROC_EXIT, 303, 5000, hdr), 0);
	CHECK_EQ_U64(note(&ea, ST_REC_PROC, ST_PROC_EXIT, 304, 5000, hdr - 1), 0);
	CHECK_EQ_U64(note(&ea, ST_REC_PROC, ST_PROC_EXIT, 7, 9000, hdr), 0);
	CHECK_EQ_U64(note(&ea, ST_REC_PROC, ST_PROC_EXIT, 300, 2000, hdr), 0);
	CHECK_EQ_U64(ea.n, 3);
	exits_ahead__seal(&ea);
	CHECK(exits_ahead__has(&ea, 300, 1000) && exits_ahead__has(&ea, 300, 2000));
	CHECK(exits_ahead__has(&ea, 300, 3000) && exits_ahead__has(&ea, 300, 5000));
	CHECK(!exits_ahead__has(&ea, 300, 5001)); /* a later process of pid 300 */
	CHECK(exits_ahead__has(&ea, 7, 8999) && !exits_ahead__has(&ea, 7, 9001));
	CHECK(!exits_ahead__has(&ea, 301, 0) && !exits_ahead__has(&ea, 302, 0));
	CHECK(!exits_ahead__has(&ea, 303, 0) && !exits_ahead__has(&ea, 304, 0));
	CHECK(!exits_ahead__has(&ea, 6, 0) && !exits_ahead__has(&ea, 8, 0));
	exits_ahead__clear(&ea);
	CHECK(!exits_ahead__has(&ea, 300, 1000));
	exits_ahead__free(&ea);
	CHECK(ea.v == NULL && ea.n == 0);
	return CHECK_DONE();
}
