// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap features: what this kernel offers the capture, and what each
 * command will use here, one line a feature, with the kernel's reason for
 * each refusal (as `bpftrace --info`). Every answer comes from the probe the
 * commands themselves consult (lib/session/features.h), never a version.
 */
#include <argp.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/session/cli.h"
#include "lib/session/features.h"
#include "lib/util/machine.h"
#include "src/commands.h"

#define FT_WHY 300

static const char ft_doc[] =
	"Print what this kernel offers stack capture and what each command will use\n"
	"here: one line a feature, \"yes\" or \"no: REASON\" in the kernel's own words.\n"
	"Each answer is found by loading a few instructions of the program type that\n"
	"would use the feature, as the commands do at their start. Needs root.\n"
	"\v"
	"EXAMPLES:\n"
	"    stacktap features > \"features.$(uname -r)\"\n"
	"        every feature, then every command's choices, kept to compare kernels\n"
	"    stacktap features | grep 'task_work from'\n"
	"        from which program types user stacks can be deferred here\n"
	"    stacktap features | grep ' no: '\n"
	"        what this kernel refuses, each with its reason\n";

static const struct argp ft_argp = { NULL, NULL, NULL, ft_doc, NULL, NULL, NULL };

static void ft__line(const char *what, bool ok, const char *why)
{
	printf("  %-36s %s%s%s\n", what, ok ? "yes" : "no", ok || !why[0] ? "" : ": ",
	       ok ? "" : why);
}

static void ft__helper(const char *what, enum bpf_prog_type type, enum bpf_func_id helper,
		       const char *since)
{
	ft__line(what, feature_helper(type, helper), since);
}

static void ft__kernel(void)
{
	char why[FT_WHY] = "";
	enum feature_prog p;
	bool ok;

	ok = !access("/sys/kernel/btf/vmlinux", R_OK);
	ft__line("BTF (/sys/kernel/btf/vmlinux)", ok, "absent: CONFIG_DEBUG_INFO_BTF is off");
	ft__line("ring buffer", feature_map(BPF_MAP_TYPE_RINGBUF), "map type refused");
	ok = feature_task_storage(why, sizeof(why));
	ft__line("task storage (walk cache)", ok, why);
	ft__helper("bpf_loop (table walk)", BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop,
		   "helper refused");
	ft__helper("bpf_find_vma", BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_find_vma, "helper refused");
	ft__helper("bpf_get_attach_cookie (uprobe)", BPF_PROG_TYPE_KPROBE,
		   BPF_FUNC_get_attach_cookie, "helper refused");
	ft__helper("bpf_get_current_task_btf", BPF_PROG_TYPE_TRACEPOINT,
		   BPF_FUNC_get_current_task_btf, "helper refused");
	ok = !feature_prog_loads(FEATURE_PROG_TP_BTF, why, sizeof(why));
	ft__line("tp_btf programs (offcpu)", ok, why);
	ok = !feature_prog_loads(FEATURE_PROG_UPROBE_S, why, sizeof(why));
	ft__line("sleepable uprobes (uprobe.s)", ok, why);
	ok = feature_vma_iter(why, sizeof(why));
	ft__line("VMA iterator kfuncs (met filter)", ok, why);
	ok = !feature_task_work(FEATURE_PROG_SYSCALL, why, sizeof(why));
	ft__line("task_work kfunc", ok, why);
	if (feature_task_work_form() != FEATURE_TW_NONE)
		printf("  %-36s %s\n", "task_work kfunc form",
		       feature_tw_form_name(feature_task_work_form()));
	for (p = FEATURE_PROG_SYSCALL + 1; p < FEATURE_PROG_MAX; p++) {
		char what[64];

		snprintf(what, sizeof(what), "task_work from %s", feature_prog_name(p));
		ok = !feature_task_work(p, why, sizeof(why));
		ft__line(what, ok, why);
	}
	/* Which build of the BPF objects the commands open (lib/session/skel_open.h). */
	ok = feature_compat(why, sizeof(why));
	printf("  %-36s %s%s\n", "BPF objects opened", ok ? "compat (frame pointers only): " : "full",
	       ok ? why : "");
}

/*
 * One command's choices, as st_common_opts__config() makes them for its
 * program types; @sync_default: the command takes user stacks at the event
 * unless --user-stacks=deferred asks otherwise (count, snoop).
 */
static void ft__command(const char *name, unsigned progs, bool sync_default)
{
	char why[FT_WHY];
	bool deferred;

	if (feature_compat(NULL, 0)) {
		printf("  %-36s user stacks by the kernel's frame-pointer walk, at the event; walk "
		       "cache off; met filter off; nothing counted in the kernel\n", name);
		return;
	}
	deferred = !feature_task_work_from(progs, why, sizeof(why));
	const char *mode = !deferred     ? "at the event (deferred: unavailable)" :
			   sync_default ? "at the event (deferred with --user-stacks=deferred)" :
					  "deferred";

	printf("  %-36s user stacks %s; walk cache %s; met filter %s\n", name, mode,
	       feature_task_storage(NULL, 0) ? "on" : "off",
	       deferred && feature_vma_iter(NULL, 0) ? "on" : "off");
}

int features_main(int argc, char **argv)
{
	struct utsname u;
	int err;

	if (argp_parse(&ft_argp, argc, argv, 0, NULL, NULL))
		return 2;
	st_libbpf_logging(false);
	err = machine_prepare();
	if (err)
		return 1;
	if (!uname(&u))
		printf("Kernel: %s %s\n", u.release, u.version);
	printf("Kernel features:\n");
	ft__kernel();
	printf("Commands (met filter: system-wide runs only):\n");
	ft__command("profile (perf_event)", FEATURE_PROG_BIT(FEATURE_PROG_PERF_EVENT), false);
	ft__command("offcpu (tp_btf)", FEATURE_PROG_BIT(FEATURE_PROG_TP_BTF), false);
	ft__command("count, snoop at t: (tracepoint)", FEATURE_PROG_BIT(FEATURE_PROG_TRACEPOINT),
		    true);
	ft__command("count, snoop at u:, usdt: (uprobe)", FEATURE_PROG_BIT(FEATURE_PROG_KPROBE),
		    true);
	return 0;
}
