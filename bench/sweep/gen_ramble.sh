#!/usr/bin/env bash
# Writes a Ramble workspace config with N experiments (a multiple of 100) shaped like
# gen_sweep.sh's sweep (nodes x tensor parallel x steps x a dummy value), over Ramble's
# `hostname` application and no package manager: what `workspace setup --dry-run` renders
# per experiment is the peer of `trainbench sweep --dry-run -o`.
#   bench/sweep/gen_ramble.sh 1000 /tmp/ramble-1000.yaml
set -euo pipefail
n=${1:?usage: gen_ramble.sh POINTS OUT.yaml}
out=${2:?usage: gen_ramble.sh POINTS OUT.yaml}
(( n % 100 == 0 )) || { echo "gen_ramble.sh: POINTS must be a multiple of 100" >&2; exit 2; }
list() { local first=1; printf '['; for v in "$@"; do (( first )) || printf ', '; printf '%s' "$v"; first=0; done; printf ']'; }
cat > "$out" <<YAML
ramble:
  variables:
    mpi_command: ''
    batch_submit: '{execute_experiment}'
    processes_per_node: 1
    n_ranks: '{n_nodes}'
  applications:
    hostname:
      workloads:
        local:
          experiments:
            bench-{n_nodes}n-tp{tp}-s{steps}-e{env_idx}:
              variables:
                n_nodes: $(list 2 4 8 16 32)
                tp: $(list 1 2)
                steps: $(list $(seq 20 29))
                env_idx: $(list $(seq 1 $(( n / 100 ))))
              matrix: [n_nodes, tp, steps, env_idx]
  software:
    packages: {}
    environments: {}
YAML
