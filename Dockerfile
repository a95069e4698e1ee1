# The sysbench-go image: a static binary on distroless, nothing else.
#
#   make image            # or: docker build -t sysbench-go:latest .
#   docker run --rm sysbench-go:latest --version
#
# The binary is pure Go (gopher-lua, pgx, go-sql-driver/mysql, modernc
# sqlite), so CGO_ENABLED=0 gives a static executable that needs no libc.
# `make image` passes the build's stamp (VERSION, GIT_COMMIT, GIT_DATE:
# what --version and the results files say); a plain docker build from a
# checkout without them says the program's own version.

# --- build stage ---------------------------------------------------------
FROM golang:1.26-bookworm AS build
WORKDIR /src
# The modules first, in a layer of their own: a change to the sources
# does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
ARG GIT_COMMIT=""
ARG GIT_DATE=""
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags="-s -w -X github.com/sysbench-go/sysbench-go/cli.buildVersion=${VERSION} -X github.com/sysbench-go/sysbench-go/cli.buildCommit=${GIT_COMMIT} -X github.com/sysbench-go/sysbench-go/cli.buildDate=${GIT_DATE}" \
      -o /out/sysbench-go .

# --- final stage ---------------------------------------------------------
# distroless/static: CA certificates (TLS to the database), /etc/passwd with
# the nonroot user (UID/GID 65532), /tmp and time zone data; no shell.
FROM gcr.io/distroless/static-debian12:nonroot
LABEL org.opencontainers.image.source="https://github.com/sysbench-go/sysbench-go" \
      org.opencontainers.image.title="sysbench-go" \
      org.opencontainers.image.description="A drop-in replacement for sysbench 1.0.20 in Go"
COPY --from=build /out/sysbench-go /usr/local/bin/sysbench-go
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/sysbench-go"]
CMD ["--help"]
