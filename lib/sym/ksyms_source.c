// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-symbol door: kallsyms live, read on the first question or, once
 * asked to (ksyms_source_preload()), on a thread of its own while the
 * command attaches and starts; the first question then waits for it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/sym/ksyms_source.h"
#include "lib/util/log.h"

static struct ksyms *live;
static int live_errno;
static bool live_tried, live_told;
static pthread_t loader;
static bool loading;      /* the loader thread runs or has not been joined */
static struct ksym found; /* the last answer (see ksyms_source_find()) */
static struct ksyms_source cur;

static void *ksyms_source__load(void *arg)
{
	(void)arg;
	live = ksyms__load(NULL);
	live_errno = live ? 0 : errno;
	return NULL;
}

void ksyms_source_preload(void)
{
	sigset_t all, old;

	if (cur.find || live_tried)
		return; /* a recording answers, or asked already */
	live_tried = true;
	/* Signals stay with the main thread: its poll is what a Ctrl-C must wake. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	loading = !pthread_create(&loader, NULL, ksyms_source__load, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!loading)
		ksyms_source__load(NULL);
}

/* The live table, read now or waited for. */
static struct ksyms *ksyms_source__live(void)
{
	if (!live_tried) {
		live_tried = true;
		ksyms_source__load(NULL);
	}
	if (loading) {
		pthread_join(loader, NULL);
		loading = false;
	}
	if (!live && !live_told) {
		live_told = true;
		st_warn("kallsyms: cannot read /proc/kallsyms (%s): kernel frames stay addresses",
			strerror(live_errno));
	}
	return live;
}

const struct ksym *ksyms_source_live_find(uint64_t addr)
{
	struct ksyms *ks = ksyms_source__live();

	return ks && ksyms__find(ks, addr, &found) ? &found : NULL;
}

void ksyms_source_set(const struct ksyms_source *s)
{
	memset(&cur, 0, sizeof(cur));
	if (s)
		cur = *s;
}

const struct ksym *ksyms_source_find(uint64_t addr)
{
	return cur.find ? cur.find(cur.ctx, addr) : ksyms_source_live_find(addr);
}

void ksyms_source_report(void)
{
	if (loading || !live)
		return; /* never asked, or still reading: nothing to tell */
	fprintf(stderr, "stacktap: kallsyms: %zu text symbols in %.1f MiB\n", ksyms__count(live),
		ksyms__bytes(live) / 1048576.0);
}

void ksyms_source_release(void)
{
	if (loading) {
		pthread_join(loader, NULL);
		loading = false;
	}
	ksyms__free(live);
	live = NULL;
	live_tried = live_told = false;
}
