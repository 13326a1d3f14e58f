// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for the SFrame reader: any bytes, two address layouts, then finish. */
/*
 * Seeds (fuzz/corpus/sframe/): the fixtures from tests/fixtures/sframe/make-fixtures.sh, and
 * real v1 sections taken from the demo workload:
 *   objcopy --dump-section .sframe=fuzz/corpus/sframe/demo-v1.sframe $O/workloads/sframe_demo /dev/null
 *   (and the same for $O/workloads/sframe_demo.o -> demo-obj-v1.sframe)
 */
#include <stddef.h>
#include <stdint.h>

#include "lib/unwind/sframe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_rows v = { 0 };
	struct sframe_info info;
	char err[128];

	sframe__info(data, size, &info, err, sizeof(err));
	/* Fixtures assume sh_addr 0x3000; the second layout puts rows near the 32-bit edge. */
	if (!sframe__read(data, size, 0x3000, 0x1000, &v, err, sizeof(err)))
		unwind_rows__finish(&v);
	sframe__read(data, size, 0xfffff000, 0x1000, &v, NULL, 0);
	unwind_rows__finish(&v);
	unwind_rows__release(&v);
	return 0;
}
