#!/usr/bin/env bash
# Writes docs/cli.md from the CLI's own --help, so the reference never drifts from
# the code. Usage: scripts/gen-cli-doc.sh [path/to/trainbench] [output]
# (tests/integration/cli_doc_current.test.sh fails when the committed file is stale).
set -euo pipefail
cd "$(dirname "$0")/.."
tb="${1:-build/trainbench}"
out="${2:-docs/cli.md}"
commands=$("$tb" --help | awk '/^Subcommands:/{f=1; next} f && /^  [a-z]/{print $1}')
{
  cat <<'HEAD'
# Command-line reference

Generated from `trainbench --help` by `scripts/gen-cli-doc.sh`; do not edit by hand.

## Exit codes
| code | meaning |
|---|---|
| 0 | success |
| 1 | internal error (a bug: please report it) |
| 2 | usage error: unknown command or option, bad `-s key=value` syntax |
| 3 | invalid input: recipe, catalog, template, sweep or log file (every problem is listed, located, with a hint) |
| 4 | scheduler, backend or file-system failure (the scheduler's message is shown) |
| 5 | the run finished but a stated expectation failed (`report`), `regress` found the run slower than its baseline beyond noise, or `render --compare` found a difference |
| 6 | busy: another trainbench is submitting the same sweep and `--no-wait` was given (the message names its pid and host) |
| 130 | interrupted (Ctrl-C / SIGTERM); run directories stay readable |

## Output
stdout carries only the product (tables, rendered-file lists, run ids, `--json` documents);
progress, logs and diagnostics go to stderr. Colour only on a terminal and never with `NO_COLOR`.

## Naming a run
Every command that takes a run directory (`status`, `wait`, `watch`, `logs`, `cancel`, `report`,
`compare`) finds it the same way (`run::RunStore::resolve`); `tag` and `history` name
recorded results in the results database instead:
- a directory that is a run (it holds `journal.jsonl` or `run.json`), wherever it is;
- otherwise a prefix of a run's short id (the 6 characters after the last `-` of its run id,
  as `status` shows it), of its run id (`20261123T185526Z-6d3652`), or of
  `<recipe>/<run id>`, among the runs under the run store (`--runs`, `TRAINBENCH_RUNS`).

No match is a usage error (exit 2) with the closest short id as a hint; more than one match is
a usage error that lists them. `report` and `compare` also take log files: an existing path
that is not a run is read as a log.

## trainbench
HEAD
  echo '```'
  "$tb" --help
  echo '```'
  for c in $commands; do
    printf '\n## trainbench %s\n```\n' "$c"
    "$tb" "$c" --help
    echo '```'
  done
} > "$out.tmp"
mv "$out.tmp" "$out"
