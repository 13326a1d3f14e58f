/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A mapped file's path as dentry names, from BPF: the lifecycle probes'
 * map records (bpf/proc_events.bpf.h) and a first meeting's description
 * (bpf/met.bpf.h) name their files with it. No programs here.
 */
#ifndef ST_PROC_PATH_BPF_H
#define ST_PROC_PATH_BPF_H

#include "bpf/state.bpf.h"

/*
 * The walk from a mapped file's dentry up to the root, one bpf_loop() step
 * per name, its position in map memory: unrolled, its two ways up (parent
 * dentry, or the mount point below) doubled the verifier's paths at every
 * step, and st_proc_exec took 650k instructions and ~1 s to load.
 */
struct st_path_state {
	__u64 file;      /* struct file * of the mapping (set by st_proc_vma_cb) */
	__u64 d, mnt;    /* struct dentry *, struct mount * */
	__u32 n, done;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct st_path_state);
} st_path_states SEC(".maps");

struct st_path_ctx {
	struct st_proc_event *pe;
	struct st_path_state *s;
};

static int st_path_step(__u32 i, void *arg)
{
	struct st_path_ctx *c = arg;
	struct st_path_state *s = c->s;
	struct dentry *d = (struct dentry *)s->d, *parent, *root;
	struct mount *mnt = (struct mount *)s->mnt, *up;
	struct vfsmount *vmnt = (void *)mnt + bpf_core_field_offset(struct mount, mnt);

	root = BPF_CORE_READ(vmnt, mnt_root);
	parent = BPF_CORE_READ(d, d_parent);
	if (d == root) {
		up = BPF_CORE_READ(mnt, mnt_parent);
		if (up == mnt) {
			s->done = 1;
			return 1;
		}
		s->d = (__u64)BPF_CORE_READ(mnt, mnt_mountpoint);
		s->mnt = (__u64)up;
		return 0;
	}
	if (d == parent) {
		s->done = 1;
		return 1;
	}
	if (s->n >= ST_PATH_COMPS) {
		c->pe->map_flags |= ST_MAP_PATH_CUT;
		s->done = 1;
		return 1;
	}
	bpf_probe_read_kernel_str(c->pe->comps[s->n & (ST_PATH_COMPS - 1)], ST_COMP_LEN,
				  BPF_CORE_READ(d, d_name.name));
	s->n++;
	s->d = (__u64)parent;
	return 0;
}

/*
 * The path of s->file as dentry names, leaf first, crossing mount points up
 * to the root: the same walk d_path() does, bounded.
 */
static __always_inline void st_proc_path(struct st_proc_event *pe, struct st_path_state *s)
{
	struct file *f = (struct file *)s->file;
	struct vfsmount *vmnt = BPF_CORE_READ(f, f_path.mnt);
	struct st_path_ctx c = { .pe = pe, .s = s };

	s->d = (__u64)BPF_CORE_READ(f, f_path.dentry);
	s->mnt = (__u64)container_of(vmnt, struct mount, mnt);
	s->n = s->done = 0;
	bpf_loop(ST_PATH_COMPS + 4, st_path_step, &c, 0);
	if (!s->done)
		pe->map_flags |= ST_MAP_PATH_CUT;
	pe->ncomps = s->n;
}

#endif
