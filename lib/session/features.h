/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel features the capture library can do without, probed at run time. */
#ifndef ST_FEATURES_H
#define ST_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

/* Set to 1, it makes feature_task_storage() answer no: the tests' way to the fallback. */
#define FEATURE_ENV_NO_TASK_STORAGE "STACKTAP_TEST_NO_TASK_STORAGE"

/**
 * feature_task_storage() - can BPF maps of type BPF_MAP_TYPE_TASK_STORAGE
 * be created here? The walk cache (bpf/ucache.bpf.h) keeps each task's
 * last walk in one. Probed once, by creating one (needs root).
 * @why: the reason when not (may be NULL)
 * @len: its size
 *
 * Return: true when they can.
 */
bool feature_task_storage(char *why, size_t len);

#endif
