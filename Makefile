# sysbench-go: the two commands a new machine needs are `make demo` and
# `make test`.
GO      ?= go
BIN     ?= bin/sysbench-go
PKGS    := ./...

.PHONY: build test unit demo bench soak conformance luasuite lint clean

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

# Memory over a long run (SOAK_TIME, 600 s): oltp_read_write on a private
# PostgreSQL at 64 threads, ours then the reference, RSS every 10 s and its
# growth; then a synthetic day of 1 s report intervals under a test clock.
# Not part of make test.
soak: build
	bash scripts/soak.sh $(BIN)

# sysbench 1.0.20's own regression suite run against our binary (and the
# reference sysbench beside it when installed), from a checkout of
# akopytov/sysbench at tag 1.0.20: prints the pass table
# (docs/compatibility.md). Starts private servers unless SBTEST_MYSQL_ARGS /
# SBTEST_PGSQL_ARGS point at some.
conformance: build
	@test -n "$(SYSBENCH_SRC)" || { echo "usage: make conformance SYSBENCH_SRC=<checkout of sysbench 1.0.20>"; exit 2; }
	SYSBENCH_GO_BIN=$(CURDIR)/$(BIN) bash scripts/conformance.sh $(SYSBENCH_SRC)

# LuaJIT's test suite block by block and the Lua 5.1 test suite file by
# file, under luajit, lua5.1, the reference sysbench and our binary: prints
# the pass tables and keeps every chunk and output in the directory printed
# at the end (docs/compatibility.md). The suites stay in their checkouts.
# LUASUITE_FLAGS passes more flags: -run REGEXP, -out DIR, -check, -list.
luasuite:
	@test -n "$(LUAJIT_TESTS)" && test -n "$(LUA51_TESTS)" || { echo "usage: make luasuite LUAJIT_TESTS=<LuaJIT-test-cleanup checkout>/test LUA51_TESTS=<gopher-lua checkout>/_lua5.1-tests [LUASUITE_FLAGS=...]"; exit 2; }
	@$(MAKE) --no-print-directory build
	$(GO) run ./internal/tools/luasuite -ours $(CURDIR)/$(BIN) -luajit-tests $(LUAJIT_TESTS) -lua51-tests $(LUA51_TESTS) $(LUASUITE_FLAGS)

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet $(PKGS)

clean:
	rm -rf bin
