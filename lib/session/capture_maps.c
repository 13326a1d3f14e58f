// SPDX-License-Identifier: GPL-2.0
/* Sizing the capture library's maps between open and load. */
#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "lib/session/capture_maps.h"
#include "lib/session/cli.h"
#include "lib/session/session.h"
#include "lib/unwind/bpf_tables.h"
#include "lib/util/log.h"

int capture_maps_size(struct bpf_object *obj, const struct st_common_opts *o)
{
	struct bpf_map *scratch = bpf_object__find_map_by_name(obj, "st_scratch_map");
	int ncpus = libbpf_num_possible_cpus(), err;

	if (!scratch || ncpus <= 0) {
		st_err("capture: BPF object has no scratch map or CPU count unknown");
		return -ENOENT;
	}
	err = bpf_map__set_max_entries(scratch, ncpus);
	if (!err)
		err = session_set_ringbuf_size(obj, o->ringbuf_kb * 1024);
	if (!err && bpf_object__find_map_by_name(obj, "st_urows"))
		err = bpf_tables_size(obj, o->unwind_rows, BPF_TABLES_PROCS_DEFAULT);
	if (err)
		st_err("capture: cannot size the BPF maps: %s", strerror(-err));
	return err;
}
