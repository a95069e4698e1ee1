#!/usr/bin/env bash
# dist.sh builds the release archives (make dist): for each GOOS/GOARCH of
# TARGETS, sysbench-go-VERSION-GOOS-GOARCH.tar.gz holding a directory of
# that name with the static executable, LICENSE, the licenses of the Go
# modules built into it (THIRD_PARTY_LICENSES), README.md, the manual page
# and the bash and zsh completions; and SHA256SUMS of the archives, in DIST.
#
# The same commit gives the same bytes: -trimpath, no build ID, and archives
# with sorted names, owner 0 and every file's time the commit's (DATE).
#
# Environment (make dist sets them): GO, DIST, TARGETS ("linux/amd64
# darwin/arm64 ..."), STAMP (the -X flags of the build's stamp), VERSION
# (the tag; else the program's own version), DATE (the commit's time,
# 2006-01-02T15:04:05Z; else the epoch).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
DIST=${DIST:-dist}
TARGETS=${TARGETS:-linux/amd64 linux/arm64 darwin/arm64 darwin/amd64}
version=${VERSION:-}
if [ -z "$version" ]; then
	version=v$(sed -n 's/^\tVersion *= "\(.*\)"$/\1/p' cli/version.go)
fi
date=${DATE:-1970-01-01T00:00:00Z}
mkdir -p "$DIST"
DIST=$(cd "$DIST" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build() { # build GOOS GOARCH OUT
	# -buildvcs=false: the stamp comes from STAMP, and the VCS state Go
	# would record (untracked files) must not change the bytes.
	CGO_ENABLED=0 GOOS=$1 GOARCH=$2 "$GO" build -trimpath -buildvcs=false \
		-ldflags "-s -w -buildid= ${STAMP:-}" -o "$3" .
}

# The manual page and the completions come from the program's own option
# tables, which are the same on every platform: one build for this machine
# writes them.
host=$("$GO" env GOOS)/$("$GO" env GOARCH)
build "${host%/*}" "${host#*/}" "$work/host"
"$work/host" man >"$work/sysbench-go.1"
"$work/host" completion bash >"$work/sysbench-go.bash"
"$work/host" completion zsh >"$work/_sysbench-go"

# third_party GOOS GOARCH: the license texts of every module linked into
# that platform's binary, in module order.
third_party() {
	local path ver dir f
	GOOS=$1 GOARCH=$2 CGO_ENABLED=0 "$GO" list -deps \
		-f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' . |
		sort -u | while read -r path ver dir; do
		printf '================================================================\n'
		printf '%s %s\n\n' "$path" "$ver"
		found=
		for f in "$dir"/LICENSE* "$dir"/LICENCE* "$dir"/COPYING* "$dir"/NOTICE*; do
			[ -f "$f" ] || continue
			cat "$f"
			printf '\n'
			found=1
		done
		[ -n "$found" ] || printf '(no license file in the module: see its source at %s)\n\n' "$path"
	done
}

archives=()
for t in $TARGETS; do
	os=${t%/*} arch=${t#*/}
	name=sysbench-go-$version-$os-$arch
	dir=$work/$name
	mkdir -p "$dir/completions"
	if [ "$t" = "$host" ]; then
		cp "$work/host" "$dir/sysbench-go" # the same flags: the same bytes
	else
		build "$os" "$arch" "$dir/sysbench-go"
	fi
	cp LICENSE README.md "$dir/"
	third_party "$os" "$arch" >"$dir/THIRD_PARTY_LICENSES"
	cp "$work/sysbench-go.1" "$dir/"
	cp "$work/sysbench-go.bash" "$work/_sysbench-go" "$dir/completions/"
	chmod 0755 "$dir" "$dir/completions" "$dir/sysbench-go"
	chmod 0644 "$dir"/LICENSE "$dir"/README.md "$dir"/THIRD_PARTY_LICENSES "$dir"/sysbench-go.1 "$dir"/completions/*
	tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="$date" \
		--format=ustar -cf - "$name" | gzip -9n >"$DIST/$name.tar.gz"
	archives+=("$name.tar.gz")
	echo "built $DIST/$name.tar.gz"
done
(cd "$DIST" && sha256sum "${archives[@]}" >SHA256SUMS)
echo "wrote $DIST/SHA256SUMS"
