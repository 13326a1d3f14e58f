// SPDX-License-Identifier: GPL-2.0
/* The proc source: the pipeline's one door to the machine's processes; live by default. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/proc/maps.h"
#include "lib/proc/proc_file.h"
#include "lib/proc/source.h"
#include "lib/util/clock.h"
#include "lib/util/read_file.h"

/* A /proc text far beyond any real one is refused rather than read. */
#define SOURCE_TEXT_MAX (256u << 20)
/* The vDSO is one or two pages; anything far larger is not one. */
#define SOURCE_VDSO_MAX (1u << 20)

static uint64_t live__now(void *ctx)
{
	return mono_ns();
}

static void live__wall(void *ctx, struct proc_wall *w)
{
	time_t now = time(NULL);
	struct utsname u;
	struct tm tm;

	w->real_minus_mono = (int64_t)(clock_ns(CLOCK_REALTIME) - mono_ns());
	w->utc_offset = localtime_r(&now, &tm) ? tm.tm_gmtoff : 0;
	w->host[0] = '\0';
	if (!uname(&u))
		snprintf(w->host, sizeof(w->host), "%s", u.nodename);
}

static int live__read(void *ctx, int pid, const char *file, char **text, size_t *len,
		      uint64_t *ts)
{
	char path[96];
	int err;

	if (pid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	*ts = live__now(ctx);
	if (proc_pid_gone(pid))
		return -ESRCH;
	err = read_file_all(path, SOURCE_TEXT_MAX, text, len);
	return err == -ENOENT ? -ESRCH : err;
}

bool proc_pid_gone(int pid)
{
	return pid > 0 && kill(pid, 0) && errno == ESRCH; /* kill(0 or -n) names a group */
}

static bool live__task_alive(void *ctx, int pid, int tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, tid);
	return access(path, F_OK) == 0;
}

static int live__open_mapped(void *ctx, int pid, const struct proc_map *m,
			     enum safe_open_why *why)
{
	return proc_file__open(pid, m, why);
}

static void *live__read_vdso(void *ctx, int pid, const struct proc_map *m, size_t *size)
{
	char path[64];
	void *buf;
	ssize_t n;
	int fd;

	if (m->end - m->start > SOURCE_VDSO_MAX)
		return NULL;
	*size = m->end - m->start;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(*size);
	n = buf ? pread(fd, buf, *size, (off_t)m->start) : -1;
	close(fd);
	if (n != (ssize_t)*size) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const struct proc_source_ops live_ops = {
	.read = live__read,
	.task_alive = live__task_alive,
	.open_mapped = live__open_mapped,
	.read_vdso = live__read_vdso,
	.now = live__now,
	.wall = live__wall,
};

static struct proc_source_ops set_ops;
static const struct proc_source_ops *cur = &live_ops;

void proc_source_set(const struct proc_source_ops *ops)
{
	if (ops)
		set_ops = *ops;
	cur = ops ? &set_ops : &live_ops;
}

const struct proc_source_ops *proc_source_live(void)
{
	return &live_ops;
}

int proc_source_read(int pid, const char *file, char **text, size_t *len, uint64_t *ts)
{
	return cur->read(cur->ctx, pid, file, text, len, ts);
}

int proc_source_maps(int pid, struct proc_map **maps, size_t *n, uint64_t *ts)
{
	char *text;
	size_t len;
	int err = proc_source_read(pid, "maps", &text, &len, ts);

	if (err == -ENOENT)
		err = -ESRCH;
	if (err)
		return err;
	err = proc_maps__parse(text, len, maps, n);
	free(text);
	return err;
}

bool proc_source_task_alive(int pid, int tid)
{
	return cur->task_alive(cur->ctx, pid, tid);
}

int proc_source_open_mapped(int pid, const struct proc_map *m, enum safe_open_why *why)
{
	return cur->open_mapped(cur->ctx, pid, m, why);
}

void *proc_source_read_vdso(int pid, const struct proc_map *m, size_t *size)
{
	return cur->read_vdso(cur->ctx, pid, m, size);
}

uint64_t proc_source_now(void)
{
	return cur->now(cur->ctx);
}

void proc_source_wall(struct proc_wall *w)
{
	cur->wall(cur->ctx, w);
}

struct tm *proc_wall_local(const struct proc_wall *w, uint64_t mono, struct tm *tm)
{
	time_t t = (time_t)(((int64_t)mono + w->real_minus_mono) / 1000000000ll + w->utc_offset);

	/* gmtime of the shifted time: the recorded zone, whatever TZ says here */
	return gmtime_r(&t, tm);
}
