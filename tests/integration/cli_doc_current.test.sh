#!/usr/bin/env bash
# docs/cli.md is generated from the CLI's --help; it must match the binary.
set -euo pipefail
src="${TRAINBENCH_SOURCE_DIR:?}"
tb="${TRAINBENCH_BINARY:?}"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.tmp"' EXIT
"$src/scripts/gen-cli-doc.sh" "$tb" "$tmp"
if ! diff -u "$src/docs/cli.md" "$tmp"; then
  echo "docs/cli.md is stale: run scripts/gen-cli-doc.sh" >&2
  exit 1
fi
