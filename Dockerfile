# The sysbench-go image: a static binary on distroless, nothing else.
#
#   docker build -t sysbench-go:latest .
#   docker run --rm sysbench-go:latest --version
#
# The binary is pure Go (gopher-lua, pgx, go-sql-driver/mysql, modernc
# sqlite), so CGO_ENABLED=0 gives a static executable that needs no libc.

# --- build stage ---------------------------------------------------------
FROM golang:1.26-bookworm AS build
WORKDIR /src
# The modules first, in a layer of their own: a change to the sources
# does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/sysbench-go .

# --- final stage ---------------------------------------------------------
# distroless/static: CA certificates (TLS to the database), /etc/passwd with
# the nonroot user (UID/GID 65532), /tmp and time zone data; no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/sysbench-go /usr/local/bin/sysbench-go
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/sysbench-go"]
CMD ["--help"]
