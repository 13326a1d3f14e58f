// SPDX-License-Identifier: GPL-2.0

// gocgo MODE N [GO_FIFO]: Go calling C through cgo, for walks that switch
// from the system stack (where cgo runs C) to the goroutine's stack.
//
//	call N   main.main -> main.goMid -> main.goLeaf -> C.c_mid -> c_leaf, N times;
//	         c_leaf makes one getppid()
//	burn N   the same, c_leaf burning about a millisecond of CPU each time
//
// Prints "ready PID" and waits for a byte on GO_FIFO. Built by
// tests/workloads/go.mk with the Debian Go toolchain, no modules.
package main

/*
#include <sys/syscall.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void c_leaf(int burn)
{
	long i;

	if (!burn) {
		sink += syscall(SYS_getppid);
		return;
	}
	for (i = 0; i < 1000000; i++)
		sink += i;
}

__attribute__((noinline)) void c_mid(int burn)
{
	c_leaf(burn);
	sink++;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
)

//go:noinline
func goLeaf(burn C.int) { C.c_mid(burn) }

//go:noinline
func goMid(burn C.int) { goLeaf(burn) }

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: gocgo call|burn N [GO_FIFO]")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gocgo: N:", err)
		os.Exit(2)
	}
	var burn C.int
	if os.Args[1] == "burn" {
		burn = 1
	}
	fmt.Printf("ready %d\n", os.Getpid())
	if len(os.Args) > 3 {
		f, err := os.Open(os.Args[3])
		if err != nil {
			os.Exit(1)
		}
		f.Read(make([]byte, 1))
		f.Close()
	}
	for i := 0; i < n; i++ {
		goMid(burn)
	}
}
