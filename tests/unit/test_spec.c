// SPDX-License-Identifier: GPL-2.0
/* Probe specs: every prefix, paths with colons, and the exact line for each malformed spec. */
#include <errno.h>
#include <string.h>

#include "lib/probe/spec.h"
#include "tests/unit/check.h"

/* @text parses to (kind, target, name, name2); NULL fields must be NULL. */
static void ok(const char *text, enum probe_kind kind, const char *target, const char *name,
	       const char *name2)
{
	struct probe_spec s;
	char err[256] = "";
	int ret = probe_spec__parse(text, &s, err, sizeof(err));

	CHECK_EQ_U64(ret, 0);
	if (ret) {
		fprintf(stderr, "  %s: %s\n", text, err);
		return;
	}
	CHECK_EQ_U64(s.kind, kind);
	CHECK_STR(s.text, text);
	CHECK_STR(s.target, target);
	if (name)
		CHECK_STR(s.name, name);
	else
		CHECK(s.name == NULL);
	if (name2)
		CHECK_STR(s.name2, name2);
	else
		CHECK(s.name2 == NULL);
	probe_spec__release(&s);
	CHECK(s.text == NULL && s.target == NULL);
}

/* @text is refused with -EINVAL and exactly @line. */
static void bad(const char *text, const char *line)
{
	struct probe_spec s;
	char err[256] = "";

	CHECK_EQ_U64(probe_spec__parse(text, &s, err, sizeof(err)), (uint64_t)-EINVAL);
	CHECK_STR(err, line);
	CHECK(s.text == NULL && s.target == NULL && s.name == NULL);
}

static void test_prefixes(void)
{
	ok("t:syscalls:sys_enter_getppid", PROBE_TRACEPOINT, "syscalls", "sys_enter_getppid", NULL);
	ok("tp:sched:*", PROBE_TRACEPOINT, "sched", "*", NULL);
	ok("tracepoint:irq:irq_handler_entry", PROBE_TRACEPOINT, "irq", "irq_handler_entry", NULL);
	ok("u:c:malloc", PROBE_UPROBE, "c", "malloc", NULL);
	ok("uprobe:/bin/bash:readline", PROBE_UPROBE, "/bin/bash", "readline", NULL);
	ok("usdt:/usr/bin/python3:python:function__entry", PROBE_USDT, "/usr/bin/python3", "python",
	   "function__entry");
	ok("U:libc:libc:setjmp", PROBE_USDT, "libc", "libc", "setjmp");
	ok("k:schedule", PROBE_KFUNC, "schedule", NULL, NULL);
	ok("kfunc:do_sys_openat2", PROBE_KFUNC, "do_sys_openat2", NULL, NULL);
	ok("p:vfs_read", PROBE_KFUNC, "vfs_read", NULL, NULL);
}

/* A path may hold colons: the fields after it are taken from the right. */
static void test_colon_paths(void)
{
	ok("u:/opt/a:b/app:main", PROBE_UPROBE, "/opt/a:b/app", "main", NULL);
	ok("usdt:/x:y:z/lib.so:prov:probe", PROBE_USDT, "/x:y:z/lib.so", "prov", "probe");
}

static void test_malformed(void)
{
	static const char want_types[] = "unknown probe type (want t:CAT:NAME, u:PATH:SYMBOL, "
					 "usdt:PATH:PROVIDER:NAME or k:FUNCTION)";
	char line[256];

	snprintf(line, sizeof(line), "'x:y': %s", want_types);
	bad("x:y", line);
	snprintf(line, sizeof(line), "'schedule': %s", want_types);
	bad("schedule", line);
	snprintf(line, sizeof(line), "'': %s", want_types);
	bad("", line);
	bad("t:syscalls", "'t:syscalls': malformed tracepoint spec (want t:CATEGORY:NAME)");
	bad("t::sys_enter_read", "'t::sys_enter_read': malformed tracepoint spec (want "
				 "t:CATEGORY:NAME)");
	bad("t:syscalls:", "'t:syscalls:': malformed tracepoint spec (want t:CATEGORY:NAME)");
	bad("u:c", "'u:c': malformed uprobe spec (want u:PATH_OR_LIB:SYMBOL)");
	bad("u::malloc", "'u::malloc': malformed uprobe spec (want u:PATH_OR_LIB:SYMBOL)");
	bad("usdt:/bin/x:prov", "'usdt:/bin/x:prov': malformed usdt spec (want "
				"usdt:PATH:PROVIDER:NAME)");
	bad("k:", "'k:': malformed kernel function spec (want k:FUNCTION)");
	bad("k:a:b", "'k:a:b': malformed kernel function spec (want k:FUNCTION)");
}

static void test_kind_names(void)
{
	CHECK_STR(probe_kind_name(PROBE_TRACEPOINT), "tracepoint");
	CHECK_STR(probe_kind_name(PROBE_UPROBE), "uprobe");
	CHECK_STR(probe_kind_name(PROBE_USDT), "usdt");
	CHECK_STR(probe_kind_name(PROBE_KFUNC), "kernel function");
}

int main(void)
{
	test_prefixes();
	test_colon_paths();
	test_malformed();
	test_kind_names();
	return CHECK_DONE();
}
