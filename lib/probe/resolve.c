// SPDX-License-Identifier: GPL-2.0
/* What a probe spec names: binaries, symbols, and whether fentry is allowed. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "lib/probe/resolve.h"
#include "lib/proc/maps.h"
#include "lib/elf/elf_file.h"

/* "c" matches libc.so.6; "pthread" matches libpthread.so.0; "ld-linux-x86-64.so.2" itself. */
static int resolve__lib_matches(const char *base, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(base, name))
		return 1;
	if (!strncmp(base, "lib", 3) && !strncmp(base + 3, name, n) && !strncmp(base + 3 + n, ".so", 3))
		return 1;
	return !strncmp(base, name, n) && !strncmp(base + n, ".so", 3);
}

static char *resolve__in_maps(const char *name, int pid)
{
	struct proc_map *maps;
	char *found = NULL;
	size_t n, i;

	if (proc_maps__read(pid ? pid : getpid(), &maps, &n))
		return NULL;
	for (i = 0; i < n && !found; i++) {
		const char *base = strrchr(maps[i].path, '/');

		if (maps[i].path[0] == '/' && resolve__lib_matches(base + 1, name))
			found = strdup(maps[i].path);
	}
	proc_maps__free(maps, n);
	return found;
}

static char *resolve__in_dirs(const char *name, const char *dirs, int want_lib)
{
	char *copy = strdup(dirs), *dir, *save = NULL, path[PATH_MAX];
	char *found = NULL;

	if (!copy)
		return NULL;
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		if (want_lib) {
			snprintf(path, sizeof(path), "%s/lib%s.so.6", dir, name);
			if (access(path, R_OK))
				snprintf(path, sizeof(path), "%s/lib%s.so", dir, name);
		} else {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
		}
		if (!access(path, want_lib ? R_OK : X_OK))
			found = strdup(path);
	}
	free(copy);
	return found;
}

char *probe_resolve_binary(const char *name, int pid)
{
	static const char libdirs[] = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
				      "/lib64:/usr/lib64:/lib:/usr/lib";
	const char *path_env = getenv("PATH");
	char *found;

	if (strchr(name, '/')) {
		if (access(name, R_OK)) {
			errno = ENOENT;
			return NULL;
		}
		return realpath(name, NULL);
	}
	if (!strcmp(name, "libc"))
		name = "c";
	found = resolve__in_maps(name, pid);
	if (!found && pid)
		found = resolve__in_maps(name, 0);
	if (!found && path_env)
		found = resolve__in_dirs(name, path_env, 0);
	if (!found)
		found = resolve__in_dirs(name, libdirs, 1);
	if (!found)
		errno = ENOENT;
	return found;
}

const char *probe_not_elf(const char *path)
{
	unsigned char magic[SELFMAG];
	const char *why = NULL;
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO given by mistake must not hang us. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return strerror(errno);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (pread(fd, magic, SELFMAG, 0) != SELFMAG || memcmp(magic, ELFMAG, SELFMAG))
		why = "not an ELF file";
	close(fd);
	return why;
}

int probe_symbol_offset(const char *path, const char *sym, uint64_t *off)
{
	struct elf_file *ef = elf_file__open(path);
	const struct elf_sym *s;
	int err = -ENOENT;

	if (!ef)
		return -errno;
	s = elf_file__sym_by_name(ef, sym);
	if (s)
		err = elf_file__vaddr_to_offset(ef, s->addr, off);
	elf_file__free(ef);
	return err;
}

int probe_fentry_allowed(const char *func)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id, fd;

	if (!vmlinux)
		return -errno;
	id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
	btf__free(vmlinux);
	if (id < 0)
		return -ENOENT;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "st_fentry_probe", "GPL", insns, 2, &opts);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}
