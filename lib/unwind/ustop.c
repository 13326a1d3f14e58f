// SPDX-License-Identifier: GPL-2.0
/* Why a user-stack walk ended (enum st_ustop): its words, and the mark frame that shows it. */
#include <stddef.h>

#include "lib/unwind/ustop.h"

/* Each reason's words once; the marks are built from them by the compiler. */
#define W_NO_TABLE "no unwind table for the pc (table mode)"
#define W_BAD_CFA "CFA not above sp or misaligned"
#define W_READ "reading the stack failed"
#define W_UNSUPPORTED "unwind rule not supported"
#define W_FP_END "no unwind row and no valid frame pointer"
#define W_NO_MAPPING "code not loaded yet"
#define W_BAD_SWITCH "stack switch refused (a loop, or too many)"
#define W_BAD_RA "return address not in code"
#define MARK(w) "[unwind stopped: " w "]"

static const char *const reasons[ST_USTOP_MAX] = {
	[ST_USTOP_NONE] = "no walk",
	[ST_USTOP_OUTERMOST] = "outermost frame",
	[ST_USTOP_NO_TABLE] = W_NO_TABLE,
	[ST_USTOP_BAD_CFA] = W_BAD_CFA,
	[ST_USTOP_READ_FAILED] = W_READ,
	[ST_USTOP_DEPTH] = "depth limit",
	[ST_USTOP_UNSUPPORTED] = W_UNSUPPORTED,
	[ST_USTOP_FP_END] = W_FP_END,
	[ST_USTOP_NO_MAPPING] = W_NO_MAPPING,
	[ST_USTOP_BAD_SWITCH] = W_BAD_SWITCH,
	[ST_USTOP_BAD_RA] = W_BAD_RA,
};

static const char *const marks[ST_USTOP_MAX] = {
	[ST_USTOP_DEPTH] = "[truncated]",
	[ST_USTOP_NO_TABLE] = MARK(W_NO_TABLE),
	[ST_USTOP_BAD_CFA] = MARK(W_BAD_CFA),
	[ST_USTOP_READ_FAILED] = MARK(W_READ),
	[ST_USTOP_UNSUPPORTED] = MARK(W_UNSUPPORTED),
	[ST_USTOP_FP_END] = MARK(W_FP_END),
	[ST_USTOP_NO_MAPPING] = MARK(W_NO_MAPPING),
	[ST_USTOP_BAD_SWITCH] = MARK(W_BAD_SWITCH),
	[ST_USTOP_BAD_RA] = MARK(W_BAD_RA),
};

const char *ustop_reason(unsigned why)
{
	return why < ST_USTOP_MAX && reasons[why] ? reasons[why] : "unknown";
}

bool ustop_early(unsigned why)
{
	return why != ST_USTOP_NONE && why != ST_USTOP_OUTERMOST && why != ST_USTOP_DEPTH;
}

const char *ustop_mark(unsigned why)
{
	return why < ST_USTOP_MAX ? marks[why] : MARK("unknown");
}
