# sysbench-go: the two commands a new machine needs are `make demo` and
# `make test`.
GO      ?= go
BIN     ?= bin/sysbench-go
PKGS    := ./...

# Installation (make install PREFIX=... [DESTDIR=...] [SYSBENCH_LINK=1]).
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
# SYSBENCH_LINK=1 also installs the name sysbench (a link): the drop-in
# mode, where --version answers as sysbench 1.0.20 does.
SYSBENCH_LINK ?=

# The build's stamp (sysbench-go --version, the results file): the commit,
# its time (the commit's, not the clock's: builds are reproducible) and the
# release tag when the commit has one. Empty outside a git checkout: the
# program then says what the Go toolchain recorded.
GIT_COMMIT  := $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null || c=$$c+dirty; echo $$c; })
GIT_DATE    := $(shell TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null)
VERSION     ?= $(shell git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null)
STAMP       := -X github.com/sysbench-go/sysbench-go/cli.buildCommit=$(GIT_COMMIT) -X github.com/sysbench-go/sysbench-go/cli.buildDate=$(GIT_DATE) $(if $(VERSION),-X github.com/sysbench-go/sysbench-go/cli.buildVersion=$(VERSION))
# Static (no cgo: every dependency is pure Go) and free of the checkout's
# paths.
BUILDFLAGS  := -trimpath -ldflags "$(STAMP)"
DIST        ?= dist
DIST_TARGETS ?= linux/amd64 linux/arm64 darwin/arm64 darwin/amd64

IMAGE       ?= sysbench-go:latest

.PHONY: build test test-loaded unit demo man bench bench-builtin conformance luasuite oracle differences lint clean install uninstall dist image soak

build:
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BIN) .

# The whole suite: starts a private MariaDB and PostgreSQL (installing the
# Debian packages first when running as root), runs vet, gofmt and the
# tests with the race detector, and stops the servers afterwards.
test:
	bash scripts/test.sh

# The whole suite with a CPU-bound process on every core beside it for all
# of its run (LOAD=N for another number): the check a new test must pass
# (docs/testing.md). A test that fails only here asserts a measured time
# or a server-wide counter where something else moves it.
test-loaded:
	LOAD=$(LOAD) bash scripts/loaded.sh bash scripts/test.sh

# Unit tests only, no servers (integration tests skip with a message).
unit:
	$(GO) test $(PKGS)

# A real workload end to end on the embedded SQLite engine: no server.
demo: build
	bash scripts/demo.sh $(BIN)

# The manual page, beside the binary: man -l bin/sysbench-go.1 (make
# install puts it where man finds it).
man: build
	$(BIN) man > $(BIN).1
	@echo "man -l $(BIN).1"

# Side-by-side benchmark against the reference sysbench on local servers.
bench: build
	bash scripts/bench.sh $(BIN)

# Its section of the built-in tests' scores alone (cpu, memory, threads,
# mutex, fileio against the reference's; no server): some 10 minutes.
bench-builtin: build
	BENCH_ONLY=builtin bash scripts/bench.sh $(BIN)

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

# The differential harness over every case it generates (tools/oracle):
# our binary beside the reference sysbench 1.0.20 (/usr/bin/sysbench),
# stdout, stderr and exit status compared apart; prints what differs and
# is not in docs/differences.toml, then the counts. make test runs a
# subset of the cases (TestOracle). Starts private servers unless
# SBTEST_* name some. ORACLE_FLAGS: -run REGEXP, -v, -list, -parallel N
# (make expands a $ in them: scripts/oracle.sh takes the same flags as is).
oracle: build
	SYSBENCH_GO_BIN=$(CURDIR)/$(BIN) bash scripts/oracle.sh $(ORACLE_FLAGS)

# docs/differences.md's list, rendered from docs/differences.toml.
differences:
	$(GO) run ./tools/oracle -render

# LuaJIT's test suite block by block and the Lua 5.1 test suite file by
# file, under luajit, lua5.1, the reference sysbench and our binary: prints
# the pass tables and keeps every chunk and output in the directory printed
# at the end (docs/compatibility.md). The suites stay in their checkouts.
# LUASUITE_FLAGS passes more flags: -run REGEXP, -out DIR, -check, -list.
luasuite:
	@test -n "$(LUAJIT_TESTS)" && test -n "$(LUA51_TESTS)" || { echo "usage: make luasuite LUAJIT_TESTS=<LuaJIT-test-cleanup checkout>/test LUA51_TESTS=<gopher-lua checkout>/_lua5.1-tests [LUASUITE_FLAGS=...]"; exit 2; }
	@$(MAKE) --no-print-directory build
	$(GO) run ./tools/luasuite -ours $(CURDIR)/$(BIN) -luajit-tests $(LUAJIT_TESTS) -lua51-tests $(LUA51_TESTS) $(LUASUITE_FLAGS)

# The binary, its manual page and its bash and zsh completion, the last
# two made by the binary from its own option tables.
install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/sysbench-go
	$(BIN) man > $(DESTDIR)$(MANDIR)/man1/sysbench-go.1
	$(BIN) completion bash > $(DESTDIR)$(BASHCOMPDIR)/sysbench-go
	$(BIN) completion zsh > $(DESTDIR)$(ZSHCOMPDIR)/_sysbench-go
	@if [ -n "$(SYSBENCH_LINK)" ]; then \
		set -e; \
		ln -sf sysbench-go $(DESTDIR)$(BINDIR)/sysbench; \
		ln -sf sysbench-go.1 $(DESTDIR)$(MANDIR)/man1/sysbench.1; \
		$(DESTDIR)$(BINDIR)/sysbench completion bash > $(DESTDIR)$(BASHCOMPDIR)/sysbench; \
		$(DESTDIR)$(BINDIR)/sysbench completion zsh > $(DESTDIR)$(ZSHCOMPDIR)/_sysbench; \
		echo "installed the link $(DESTDIR)$(BINDIR)/sysbench -> sysbench-go"; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sysbench-go $(DESTDIR)$(MANDIR)/man1/sysbench-go.1 \
		$(DESTDIR)$(BASHCOMPDIR)/sysbench-go $(DESTDIR)$(ZSHCOMPDIR)/_sysbench-go
	@# the drop-in names only where they are ours
	@if [ "$$(readlink $(DESTDIR)$(BINDIR)/sysbench 2>/dev/null)" = sysbench-go ]; then \
		rm -f $(DESTDIR)$(BINDIR)/sysbench $(DESTDIR)$(MANDIR)/man1/sysbench.1 \
			$(DESTDIR)$(BASHCOMPDIR)/sysbench $(DESTDIR)$(ZSHCOMPDIR)/_sysbench; \
	fi

# Release archives, one for each of DIST_TARGETS, in $(DIST)/ with their
# SHA-256 sums: the static binary, LICENSE, the licenses of the modules
# built in, README.md, the manual page and the completions. The same commit
# gives the same bytes (-trimpath, the commit's time as the date and the
# files' time; no build ID of this machine).
dist:
	GO="$(GO)" DIST="$(DIST)" TARGETS="$(DIST_TARGETS)" STAMP="$(STAMP)" VERSION="$(VERSION)" DATE="$(GIT_DATE)" bash scripts/dist.sh

# The container image (Dockerfile), stamped as the binaries are.
image:
	docker build --build-arg VERSION=$(VERSION) --build-arg GIT_COMMIT=$(GIT_COMMIT) --build-arg GIT_DATE=$(GIT_DATE) -t $(IMAGE) .

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet $(PKGS)

clean:
	rm -rf bin dist
