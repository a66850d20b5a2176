#!/usr/bin/env bash
# Prints the path of a Go >= 1.24 for the Kubernetes test tools (tests/k8s/build-tools.sh).
# Debian 12 ships Go 1.19 only, so where neither $GO, the `go` on PATH nor /usr/local/go/bin/go
# is new enough, this installs Go's own toolchain module, as the go command itself does when it
# switches toolchains (https://go.dev/doc/toolchain): golang.org/toolchain@v0.0.1-go<V>.<os>-<arch>
# from the Go module proxy ($GOPROXY's first https entry, else https://proxy.golang.org),
# verified against its checksum database hash (the h1: of the module zip, pinned below as
# sum.golang.org records it; compared with the database's own answer, read through the proxy's
# /sumdb/ endpoint, when it can be reached), unpacked once into
#   ${TRAINBENCH_K8S_CACHE:-~/.cache/trainbench}/go-<V>
# (outside the repository; one install at a time under a lock).
#   go-toolchain.sh            find or install, print the go binary
#   go-toolchain.sh --print    find only, print the go binary (exit 1 when there is none)
# Exit 1 with the reason and the fix when neither works (no network, no pinned hash for this
# platform, a hash mismatch). Needs curl and python3 (scripts/setup.sh installs both).
set -euo pipefail

GO_VERSION=1.24.13   # the newest 1.24 release on the proxy (2026-11-26); tests/k8s/tools needs >= 1.24
# h1: hashes of golang.org/toolchain@v0.0.1-go$GO_VERSION.<platform> in sum.golang.org, read
# 2026-11-26 (the proxy lists only linux-amd64 builds of this version here).
declare -A PINNED_H1=(
    [linux-amd64]="h1:5sgfUhn9QCgVl4UYj32GrIYFHI3bi2UX55tNfupXwxc="
)

die() {
    echo "go-toolchain: $*" >&2
    echo "go-toolchain: fix: install Go >= 1.24 (https://go.dev/dl/) and put it on PATH, or rerun" \
        "tests/k8s/go-toolchain.sh (scripts/setup.sh --test does) where the Go module proxy is reachable" >&2
    exit 1
}

cache=${TRAINBENCH_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trainbench}
out=$cache/go-$GO_VERSION

new_enough() {  # new_enough GO: exit 0 when GO runs and is Go >= 1.24
    local v minor
    v=$(GOTOOLCHAIN=local "$1" env GOVERSION 2>/dev/null) || return 1
    minor=$(sed -n 's/^go1\.\([0-9]*\).*/\1/p' <<<"$v")
    [[ -n $minor && $minor -ge 24 ]]
}

for candidate in "${GO:-}" "$(command -v go || true)" /usr/local/go/bin/go "$out/bin/go"; do
    if [[ -n $candidate && -x $candidate ]] && new_enough "$candidate"; then
        echo "$candidate"
        exit 0
    fi
done
[[ ${1:-} == --print ]] && exit 1

case "$(uname -m)" in
    x86_64) platform=linux-amd64 ;;
    aarch64) platform=linux-arm64 ;;
    *) platform=linux-$(uname -m) ;;
esac
want=${PINNED_H1[$platform]:-}
[[ -n $want ]] || die "no Go >= 1.24 found, and no pinned checksum for the $platform toolchain module"
for t in curl python3; do command -v $t >/dev/null || die "no Go >= 1.24 found, and $t (to install one) is missing"; done

proxy=https://proxy.golang.org
IFS=',|' read -ra entries <<<"${GOPROXY:-}"
for e in "${entries[@]}"; do [[ $e == https://* ]] && { proxy=${e%/}; break; }; done
module=golang.org/toolchain
version=v0.0.1-go$GO_VERSION.$platform

mkdir -p "$cache"
exec 9>"$out.lock"
flock 9
if [[ -x $out/bin/go ]] && new_enough "$out/bin/go"; then echo "$out/bin/go"; exit 0; fi

tmp=$out.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
echo "go-toolchain: no Go >= 1.24 here: installing $module@$version from $proxy into $out" >&2
curl -fsSL --retry 3 -o "$tmp/toolchain.zip" "$proxy/$module/@v/$version.zip" ||
    die "could not download $proxy/$module/@v/$version.zip"

# The checksum database's own record, when it answers (through the proxy, as the go command asks).
record=$(curl -fsSL --retry 2 -m 30 "$proxy/sumdb/sum.golang.org/lookup/$module@$version" 2>/dev/null |
    awk -v m="$module" -v v="$version" '$1 == m && $2 == v { print $3 }') || true
if [[ -z $record ]]; then
    record=$(curl -fsSL -m 30 "https://sum.golang.org/lookup/$module@$version" 2>/dev/null |
        awk -v m="$module" -v v="$version" '$1 == m && $2 == v { print $3 }') || true
fi
if [[ -n $record && $record != "$want" ]]; then
    die "sum.golang.org records $record for $module@$version, this script pins $want: refusing both"
fi

# h1: (golang.org/x/mod/sumdb/dirhash Hash1) of the zip: the SHA-256 of the sorted lines
# "<sha256 hex>  <file name>\n" of its files, base64. Then unpack without the module prefix,
# keeping the executable bits the zip records.
got=$(python3 - "$tmp/toolchain.zip" "$tmp/go" "$module@$version/" <<'EOF'
import base64, hashlib, os, sys, zipfile
archive, dest, prefix = sys.argv[1:]
with zipfile.ZipFile(archive) as z:
    names = sorted(z.namelist())
    summary = hashlib.sha256()
    for name in names:
        if "\n" in name or not name.startswith(prefix) or ".." in name.split("/"):
            sys.exit(f"unexpected file name in the module zip: {name!r}")
        summary.update(f"{hashlib.sha256(z.read(name)).hexdigest()}  {name}\n".encode())
    print("h1:" + base64.b64encode(summary.digest()).decode())
    for info in z.infolist():
        if info.is_dir():
            continue
        path = os.path.join(dest, info.filename[len(prefix):])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with z.open(info) as src, open(path, "wb") as dst:
            dst.write(src.read())
        os.chmod(path, 0o755 if (info.external_attr >> 16) & 0o111 else 0o644)
EOF
) || die "could not read the downloaded module zip"
[[ $got == "$want" ]] || die "$module@$version: the zip's hash is $got, sum.golang.org's is $want: not installed"
GOTOOLCHAIN=local "$tmp/go/bin/go" version >/dev/null || die "the unpacked toolchain does not run"
rm -rf "$out"
mv "$tmp/go" "$out"
echo "go-toolchain: installed $("$out/bin/go" version) (module hash $got" \
    "$([[ -n $record ]] && echo "= sum.golang.org's record" || echo "= the pinned hash; sum.golang.org not reachable"))" >&2
echo "$out/bin/go"
