# sysbench-go: the two commands a new machine needs are `make demo` and
# `make test`.
GO      ?= go
BIN     ?= bin/sysbench-go
PKGS    := ./...

.PHONY: build test unit demo bench conformance lint clean

build:
	$(GO) build -o $(BIN) .

# The whole suite: starts a private MariaDB and PostgreSQL (installing the
# Debian packages first when running as root), runs vet, gofmt and the
# tests with the race detector, and stops the servers afterwards.
test:
	bash scripts/test.sh

# Unit tests only, no servers (integration tests skip with a message).
unit:
	$(GO) test $(PKGS)

# A real workload end to end on the embedded SQLite engine: no server.
demo: build
	bash scripts/demo.sh $(BIN)

# Side-by-side benchmark against the reference sysbench on local servers.
bench: build
	bash scripts/bench.sh $(BIN)

# sysbench 1.0.20's own regression suite run against our binary (and the
# reference sysbench beside it when installed), from a checkout of
# akopytov/sysbench at tag 1.0.20: prints the pass table
# (docs/compatibility.md). Starts private servers unless SBTEST_MYSQL_ARGS /
# SBTEST_PGSQL_ARGS point at some.
conformance: build
	@test -n "$(SYSBENCH_SRC)" || { echo "usage: make conformance SYSBENCH_SRC=<checkout of sysbench 1.0.20>"; exit 2; }
	SYSBENCH_GO_BIN=$(CURDIR)/$(BIN) bash scripts/conformance.sh $(SYSBENCH_SRC)

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet $(PKGS)

clean:
	rm -rf bin
