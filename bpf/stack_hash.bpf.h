/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 64-bit hash in-kernel aggregation keys stored stacks by
 * (bpf/aggregate.bpf.h), and its user part, which the walk cache keeps per
 * frame (bpf/ucache.bpf.h).
 *
 * The user frames are hashed from the outermost inward: the hash of frames
 * [i, n) is a function of frame i and the hash of [i + 1, n). A walk cache
 * hit then has the hash of all its frames at hand, and a splice at frame k
 * the walk before's hash of [k, n): only the frames walked anew are mixed.
 * Only a key, never a proof: stacks merge after a full compare.
 */
#ifndef ST_STACK_HASH_BPF_H
#define ST_STACK_HASH_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* The user part's start, the hash of no frames (any odd constant). */
#define ST_UHASH_SEED 0x9e3779b97f4a7c15ull

/* One word into the hash: a murmur3-style multiply-rotate round. */
static __always_inline __u64 st_hash_mix(__u64 h, __u64 w)
{
	w *= 0x87c37b91114253d5ull;
	w = (w << 31) | (w >> 33);
	w *= 0x4cf5ad432745937full;
	h ^= w;
	h = (h << 27) | (h >> 37);
	return h * 5 + 0x52dce729;
}

/* murmur3's finalizer: every input bit reaches every output bit. */
static __always_inline __u64 st_hash_fmix(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

#endif
