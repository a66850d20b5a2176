#!/bin/bash
# Writes a NeMo-style DLLogger file for a GPT-3 175B run on 256 H100 (32 x 8,
# TP4 PP8 VP2, GBS 2048, FP8) to stdout: one PARAMETER record, steps 0..49
# (warm-up 0..2, step 47 = the seed's 25.115550994873047 s) and a second record
# for step 20 (gpu-recipes averages records, so it counts twice).
# Expected figures (from gpu-recipes' process_training_results.py on this file)
# are in the tests that use it.
set -euo pipefail
times=(96.40625 41.53125 31.0078125 25.094 25.123 25.152 25.011 25.04 25.076 25.105 25.134 25.163 25.022
       25.051 25.08 25.116 25.145 25.004 25.033 25.062 25.091 25.12 25.156 25.015 25.044 25.073 25.102 25.131
       25.16 25.026 25.055 25.084 25.113 25.142 25.001 25.03 25.066 25.095 25.124 25.153 25.012 25.041 25.07
       25.106 25.135 25.164 25.023 25.115550994873047 25.081 25.11)
echo 'DLLL {"timestamp": "1727486493.241469", "datetime": "2024-09-28 01:21:33.241469", "elapsedtime": "32.927938", "type": "LOG", "step": "PARAMETER", "data": {"cfg/micro_batch_size": 1, "cfg/global_batch_size": 2048, "cfg/tensor_model_parallel_size": 4, "cfg/pipeline_model_parallel_size": 8, "cfg/virtual_pipeline_model_parallel_size": 2, "cfg/encoder_seq_length": 2048, "cfg/num_layers": 96, "cfg/hidden_size": 12288, "cfg/ffn_hidden_size": 49152, "cfg/num_attention_heads": 96, "cfg/num_query_groups": null, "cfg/make_vocab_size_divisible_by": 128, "cfg/fp8": true, "cfg/precision": "bf16-mixed", "trainer/num_nodes": 32, "trainer/devices": 8}}'
ts=1727486600
for step in $(seq 0 49); do
  t=${times[$step]}
  ts=$((ts + 25))
  loss=$(awk -v s="$step" 'BEGIN { printf "%.4f", 11.0 - 0.04 * s }')
  record() {
    printf 'DLLL {"timestamp": "%s.5", "datetime": "2024-09-28 01:%02d:%02d.5", "elapsedtime": "%s.5", "type": "LOG", "step": %d, "data": {"reduced_train_loss": %s, "lr": 6e-05, "global_step": %d.0, "consumed_samples": %d.0, "train_backward_timing in s": 0.0001, "grad_norm": 1.25, "train_step_timing in s": %s, "epoch": 0}}\n' \
      "$ts" $(((ts / 60) % 60)) $((ts % 60)) $((ts - 1727486493)) "$step" "$loss" "$step" $(((step + 1) * 2048)) "$1"
  }
  record "$t"
  if [ "$step" = 20 ]; then record 25.5; fi
done
