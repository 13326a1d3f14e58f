// SPDX-License-Identifier: GPL-2.0
//
// go_names N [GO_FIFO]: a Go program with a known chain, N times:
// main.main -> main.work -> main.step (inlined) -> main.leaf (one getppid).
// Built three ways by tests/workloads/names.mk: with .symtab, stripped
// (-ldflags=-s), and a stripped PIE; tests/unit/test_gopclntab.c names the
// stripped ones from .gopclntab and checks them against the unstripped build's
// symbols.
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

var sink int

//go:noinline
func leaf(i int) {
	sink += syscall.Getppid() + i
}

// step is small enough for Go to inline into work: the DWARF of the build with
// symbols has it as an inlined subroutine at the call of leaf, where a walk by
// frame pointers (Go's .debug_frame is not used) returns.
func step(i int) {
	leaf(i)
}

//go:noinline
func work(n int) {
	for i := 0; i < n; i++ {
		step(i)
	}
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go_names N [GO_FIFO]")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "go_names:", err)
		os.Exit(2)
	}
	fmt.Printf("ready %d\n", os.Getpid())
	if len(os.Args) > 2 {
		f, err := os.Open(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "go_names:", err)
			os.Exit(1)
		}
		f.Read(make([]byte, 1))
		f.Close()
	}
	work(n)
}
