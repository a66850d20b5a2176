#!/usr/bin/env bash
# Makes a self-contained trainbench for a machine that has none of its build dependencies
# (a GPU node with only PyTorch; bench/gpu-check.sh runs it there):
#
#   scripts/bundle.sh [OUT]        (default OUT: build-bundle; the binary from $BUILD_DIR or build/)
#
# OUT/bin/trainbench        the binary, stripped of its debug sections
# OUT/lib/                  every shared library `ldd` lists for it, and the dynamic loader
# OUT/trainbench            a launcher: runs the binary through the bundled loader with the
#                           bundled libraries only, whatever the host's C library is
#
# The data (recipes/, templates/, workloads/) is not copied: the launcher sets
# TRAINBENCH_HOME to the repository the bundle sits in (OUT's parent), unless it is set.
# Prints the bundle's size; fails when a library cannot be found.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build-bundle}"
binary="${BUILD_DIR:-build}/trainbench"
[[ -x $binary ]] || { echo "bundle.sh: $binary is not built (scripts/build.sh)" >&2; exit 1; }
command -v ldd >/dev/null || { echo "bundle.sh: ldd is not installed" >&2; exit 1; }

tmp=$(mktemp -d "${out%/}.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/lib"
objcopy --strip-debug "$binary" "$tmp/bin/trainbench" 2>/dev/null || cp "$binary" "$tmp/bin/trainbench"

loader=
while read -r line; do
    # "libfmt.so.9 => /lib/x86_64-linux-gnu/libfmt.so.9 (0x...)", "/lib64/ld-linux-x86-64.so.2 (0x...)"
    case $line in
        *"not found"*) echo "bundle.sh: $line" >&2; exit 1 ;;
        *"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;
        /*) lib=${line%% (*}; loader=$lib ;;
        *) continue ;;
    esac
    cp -L "$lib" "$tmp/lib/$(basename "$lib")"
done < <(ldd "$binary")
[[ -n $loader ]] || { echo "bundle.sh: ldd named no dynamic loader for $binary" >&2; exit 1; }
# The C library loads its NSS modules with dlopen (user and host look-ups): the bundled ones, so
# the host's (of another glibc) are never mixed in.
libc_dir=$(dirname "$(ldd "$binary" | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')")
for nss in libnss_files.so.2 libnss_dns.so.2; do
    [[ -e $libc_dir/$nss ]] && cp -L "$libc_dir/$nss" "$tmp/lib/$nss"
done

cat > "$tmp/trainbench" <<EOF
#!/bin/sh
# trainbench through its bundled loader and libraries (scripts/bundle.sh).
here=\$(cd "\$(dirname "\$0")" && pwd)
: "\${TRAINBENCH_HOME:=\$(dirname "\$here")}"
export TRAINBENCH_HOME
exec "\$here/lib/$(basename "$loader")" --library-path "\$here/lib" "\$here/bin/trainbench" "\$@"
EOF
chmod +x "$tmp/trainbench"
"$tmp/trainbench" --version >/dev/null || { echo "bundle.sh: the bundled binary does not start" >&2; exit 1; }
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "bundle.sh: $out ($(du -sh "$out" | cut -f1)): $(ls "$out/lib" | wc -l) libraries, loader $(basename "$loader")"
