{{! The end of one round of node-pair runs (validate.sh, validate-k8s.sh): each run in tb_pids waited for, its output (tb_pairs) judged. }}
    for tb_k in "${!tb_pids[@]}"; do
      if ! wait "${tb_pids[tb_k]}"; then
        echo "trainbench: ${tb_pairs[tb_k]}: {{name}} failed" >&2
        tb_failed=1
{{#checked}}
      elif ! tb_check_busbw "${tb_pairs[tb_k]}"; then
        echo "trainbench: ${tb_pairs[tb_k]}: below the bus bandwidth threshold" >&2
        tb_failed=1
{{/checked}}
      fi
    done
