/* SPDX-License-Identifier: GPL-2.0 */
/* Sizing the capture library's maps between open and load, from the common options. */
#ifndef ST_CAPTURE_MAPS_H
#define ST_CAPTURE_MAPS_H

struct bpf_object;
struct st_common_opts;

/**
 * capture_maps_size() - size st_events (ring buffer), st_scratch_map (one
 * record per possible CPU) and, when the object has them, the unwind maps.
 *
 * Return: 0 or -errno (logged).
 */
int capture_maps_size(struct bpf_object *obj, const struct st_common_opts *o);

#endif
