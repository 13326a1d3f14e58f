// SPDX-License-Identifier: GPL-2.0
/*
 * st-bpfstats: keep BPF run-time statistics on while it runs. The benches
 * read each program's run_time_ns, which the kernel counts only while
 * statistics are enabled; flipping kernel.bpf_stats_enabled and putting it
 * back afterwards lets one bench turn them off under another that runs at
 * the same time. BPF_ENABLE_STATS instead hands out an fd that keeps them on
 * until it is closed: every holder gets its own, and the last one to exit
 * turns them off.
 *
 *   st-bpfstats    prints "held", then waits until stdin closes or a signal
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

int main(void)
{
	char c;
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (fd < 0) {
		fprintf(stderr, "st-bpfstats: cannot enable BPF run-time statistics: %s\n",
			strerror(errno));
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
