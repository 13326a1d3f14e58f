/* SPDX-License-Identifier: GPL-2.0 */
/* The verifier's work on each of an object's programs (--debug). */
#ifndef ST_SESSION_PROG_REPORT_H
#define ST_SESSION_PROG_REPORT_H

struct bpf_object;

/**
 * prog_report() - one stderr line: for each loaded program of @obj, in load
 * order, the instructions the verifier processed (bpf_prog_info's
 * verified_insns) and the milliseconds from its load to the next program's
 * (the last one's: to now, so call it right after the load). Start-up time
 * before the banner is mostly the sampler's verification: this says which
 * program and how much without strace or a verifier log.
 */
void prog_report(const struct bpf_object *obj);

#endif
