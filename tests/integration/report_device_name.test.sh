#!/usr/bin/env bash
# A log that names its GPU (the tinygpt workload on CUDA logs gpu_device_name and its measured
# peak; issue 38): the report maps the name through the catalog's device_names, divides by that
# GPU's datasheet peak, and shows the measured peak and the MFU against it beside; a PCIe H100
# gets its own peak, not the SXM's; an unknown name is an error (exit 3) that names it; --gpu wins.
source "$(dirname "$0")/runs_lib.sh"

write_log() {  # FILE DEVICE_NAME: a gpt2-medium bf16 run's DLLogger file, 20 steps of 0.25 s
    {
        printf 'DLLL {"timestamp": "0", "type": "LOG", "step": "PARAMETER", "data": {"global_batch_size": 32, '
        printf '"micro_batch_size": 16, "world_size": 1, "num_layers": 24, "hidden_size": 1024, '
        printf '"num_attention_heads": 16, "ffn_hidden_size": 4096, "seq_length": 1024, "vocab_size": 50257, '
        printf '"precision": "bf16", "peak_tflops_measured": 700.5, "peak_precision": "bf16", "device": "cuda", '
        printf '"gpu_device_name": "%s", "gpu_count": 1}}\n' "$2"
        for s in $(seq 0 19); do
            printf 'DLLL {"timestamp": "%s", "type": "LOG", "step": %s, "data": {"reduced_train_loss": 8.0, ' "$s" "$s"
            printf '"train_step_timing in s": 0.25}}\n'
        done
    } >"$1"
}
report() { "$TB" --json report "$1" --model gpt2-medium --flops megatron --window 5:15 "${@:2}"; }

write_log "$WORK/h100.json" "NVIDIA H100 80GB HBM3"
report "$WORK/h100.json" >"$WORK/h100.out" 2>"$WORK/err" || fail "report: $(cat "$WORK/err")"
jq -e '.gpu == "h100-sxm-80gb" and .peak_tflops == 989 and .peak_measured_tflops == 700.5 and
    (.mfu - .tflops_per_gpu / 989 | fabs) < 1e-12 and (.mfu_measured - .tflops_per_gpu / 700.5 | fabs) < 1e-12 and
    (.origins.gpu == "GPU from the log'"'"'s gpu_device_name '"'"'NVIDIA H100 80GB HBM3'"'"'")' "$WORK/h100.out" >/dev/null ||
    fail "$(cat "$WORK/h100.out")"
"$TB" report "$WORK/h100.json" --model gpt2-medium --flops megatron --window 5:15 >"$WORK/table" || fail "table"
grep -Eq "^  measured peak +700.5 TFLOPS \(measured on this GPU" "$WORK/table" || fail "$(cat "$WORK/table")"
grep -Eq "^  MFU \(measured peak\) +0\.[0-9]{8} \([0-9.]+%\)$" "$WORK/table" || fail "$(cat "$WORK/table")"
grep -Eq "^  GPUs +1 x h100-sxm-80gb .*GPU from the log's gpu_device_name 'NVIDIA H100 80GB HBM3'" "$WORK/table" ||
    fail "$(cat "$WORK/table")"

write_log "$WORK/pcie.json" "NVIDIA H100 PCIe"
report "$WORK/pcie.json" | jq -e '.gpu == "h100-pcie-80gb" and .peak_tflops == 756.5' >/dev/null ||
    fail "PCIe: $(report "$WORK/pcie.json")"

write_log "$WORK/h200.json" "NVIDIA H200"
report "$WORK/h200.json" --gpu a100-sxm-80gb | jq -e '.gpu == "a100-sxm-80gb" and .peak_tflops == 312' >/dev/null ||
    fail "--gpu: $(report "$WORK/h200.json" --gpu a100-sxm-80gb)"

write_log "$WORK/unknown.json" "NVIDIA GeForce RTX 4090"
rc=0
report "$WORK/unknown.json" >/dev/null 2>"$WORK/err" || rc=$?
[[ $rc -eq 3 ]] || fail "an unknown GPU exited $rc, not 3: $(cat "$WORK/err")"
grep -q "the GPU 'NVIDIA GeForce RTX 4090' (the log's gpu_device_name) is not in the catalog" "$WORK/err" ||
    fail "$(cat "$WORK/err")"
echo ok
