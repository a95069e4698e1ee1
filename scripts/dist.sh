#!/usr/bin/env bash
# dist.sh builds the release binaries (make dist): static executables for
# each GOOS/GOARCH of TARGETS, named sysbench-go-VERSION-GOOS-GOARCH, and
# SHA256SUMS, in DIST.
#
# Environment (make dist sets them): GO, DIST, TARGETS ("linux/amd64
# darwin/arm64 ..."), STAMP (the -X flags of the build's stamp), VERSION
# (the tag; else the program's own version).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
DIST=${DIST:-dist}
TARGETS=${TARGETS:-linux/amd64 linux/arm64 darwin/arm64 darwin/amd64}
version=${VERSION:-}
if [ -z "$version" ]; then
	version=v$(sed -n 's/^\tVersion *= "\(.*\)"$/\1/p' version.go)
fi
mkdir -p "$DIST"
names=()
for t in $TARGETS; do
	os=${t%/*} arch=${t#*/}
	name=sysbench-go-$version-$os-$arch
	# -buildvcs=false: the stamp comes from STAMP, and the VCS state Go
	# would record (untracked files) must not change the bytes.
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -trimpath -buildvcs=false \
		-ldflags "-s -w -buildid= ${STAMP:-}" -o "$DIST/$name" .
	names+=("$name")
	echo "built $DIST/$name"
done
(cd "$DIST" && sha256sum "${names[@]}" >SHA256SUMS)
echo "wrote $DIST/SHA256SUMS"
