/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one helper that opens a file a traced process maps. stacktap runs as
 * root and the process may belong to anyone, who may have replaced the path
 * by a FIFO, a symbolic link to /etc/shadow, or another file since mapping
 * it. In order:
 *   1. /proc/PID/map_files/START-END: the very file mapped, even deleted or
 *      in another mount namespace (while the process still maps it);
 *   2. /proc/PID/root/PATH: the path inside the process's root, then PATH
 *      in ours (the process has exec'd or exited).
 * Each is opened with lib/util/safe_open.h: non-blocking, no symbolic link,
 * a regular file of a sane size, checked before and after open(), and a file
 * found by path only when its (device, inode) is the one the mapping
 * recorded. Otherwise the caller counts the reason and the frames in the
 * file stay "[unknown] (FILE+0xOFFSET)".
 */
#ifndef ST_PROC_FILE_H
#define ST_PROC_FILE_H

#include "lib/proc/maps.h"
#include "lib/util/safe_open.h"

/**
 * proc_file__open() - open the file @m maps in @pid.
 * @why: receives the reason when it cannot be used (the most telling one of
 *       the ways tried: a FIFO at the path says more than a gone map_files entry)
 *
 * Return: an fd, or -1 with *why set. Nothing is logged.
 */
int proc_file__open(int pid, const struct proc_map *m, enum safe_open_why *why);

#endif
