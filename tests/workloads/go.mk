# SPDX-License-Identifier: GPL-2.0
# The Go workload of the stack-switch tests (tests/integration/test_signals.sh): Go 1.19
# (golang-go) calling C through cgo. No modules, nothing fetched: GO111MODULE=off and a
# build cache inside the build directory.

GO ?= go

workloads: $(O)/workloads/gocgo

$(O)/workloads/gocgo: tests/workloads/gocgo/gocgo.go tests/workloads/go.mk
	$(call msg,GO,$@)
	$(Q)mkdir -p $(@D) $(O)/go-cache
	$(Q)GO111MODULE=off GOCACHE=$(abspath $(O)/go-cache) GOFLAGS= CGO_ENABLED=1 \
		$(GO) build -o $(abspath $@) $(abspath $<)
