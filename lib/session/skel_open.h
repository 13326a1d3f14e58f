/* SPDX-License-Identifier: GPL-2.0 */
/* A tool's BPF skeleton, opened over the build of its object this kernel takes. */
#ifndef ST_SKEL_OPEN_H
#define ST_SKEL_OPEN_H

#include <errno.h>
#include <stdlib.h>

#include <bpf/libbpf.h>

#include "lib/session/features.h"

/*
 * Every BPF object is built twice (Makefile, bpf/deferred.bpf.h): NAME
 * declares bpf_task_work_schedule_resume_impl(), 6.18's form; NAME_tw4 the
 * four-argument bpf_task_work_schedule_resume() of later kernels, whose
 * _impl libbpf would refuse. Both have the same maps, programs and
 * variables, so NAME's skeleton serves either: only the ELF bytes it opens
 * differ, chosen by the probe (lib/session/feature_tw.c).
 *
 * NAME_compat is the third build, for kernels that lack the helpers the
 * other two call (feature_compat(), bpf/compat.bpf.h): the same shape too,
 * checked at build time (tests/skel-shape.sh), since a variable at another
 * offset would be written silently in the wrong place.
 *
 * ST_SKEL_OPEN(NAME) - Return: the opened skeleton, or NULL with errno set.
 */
#define ST_SKEL_OPEN(name)                                                                 \
	({                                                                                 \
		_Static_assert(sizeof(struct name) == sizeof(struct name##_tw4) &&         \
				       sizeof(struct name) == sizeof(struct name##_compat), \
			       #name ": the builds differ in shape");                     \
		struct name *obj_ = calloc(1, sizeof(*obj_));                              \
		int err_ = obj_ ? name##__create_skeleton(obj_) : -ENOMEM;                 \
		if (!err_ && feature_compat(NULL, 0))                                      \
			obj_->skeleton->data =                                             \
				(void *)name##_compat__elf_bytes(&obj_->skeleton->data_sz); \
		else if (!err_ && feature_task_work_form() == FEATURE_TW_4ARG)             \
			obj_->skeleton->data =                                             \
				(void *)name##_tw4__elf_bytes(&obj_->skeleton->data_sz);   \
		if (!err_)                                                                 \
			err_ = bpf_object__open_skeleton(obj_->skeleton, NULL);            \
		if (err_ && obj_) {                                                        \
			name##__destroy(obj_);                                             \
			obj_ = NULL;                                                       \
		}                                                                          \
		if (err_)                                                                  \
			errno = -err_;                                                     \
		obj_;                                                                      \
	})

#endif
