#!/bin/bash
# trainbench Kubernetes launch script: recipe gpt3-175b-fp8-a3mega-32n-nsys, stage train.
# Rendered from templates/kubernetes/launch.sh; runs in every pod of the Indexed
# Job (from the ConfigMap). The node rank is the pod's completion index; the
# rendezvous host is pod 0 behind the headless Service (MASTER_ADDR).
set -euo pipefail

: "${JOB_COMPLETION_INDEX:?JOB_COMPLETION_INDEX is not set: run as an Indexed Job}"
: "${TRAINBENCH_RUN_DIR:?TRAINBENCH_RUN_DIR is not set}"
NODE_RANK="${JOB_COMPLETION_INDEX}"
export NODE_RANK TRAINBENCH_RUN_DIR
cd "${TRAINBENCH_RUN_DIR}"
mkdir -p logs/train/dllogger/rank-0 status
# GPUDirect-TCPXO: the NCCL plugin the init container installed, and the driver libraries.
export LD_LIBRARY_PATH="/usr/local/nccl-plugin/lib64:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"

# shellcheck disable=SC2317 # run by the EXIT trap
trainbench_exit() {
  local rc=$?
  printf '%s %s\n' "${rc}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > status/train.exit
  # The pod's files vanish with it: rank 0 prints its DLLogger lines ("DLLL {...}")
  # to the container log, where `kubectl logs` finds them.
  if [ "${NODE_RANK}" = 0 ] && [ -f logs/train/dllogger/rank-0/dllogger.json ]; then
    cat logs/train/dllogger/rank-0/dllogger.json
  fi
  # Tell the network-rx-daemon sidecar to exit.
  mkdir -p /semaphore && touch /semaphore/workload_terminated
}
trap trainbench_exit EXIT
printf '%s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)" "${NODE_RANK}" > status/train.started

# NeMo: megatron_gpt_pretraining.py with the configuration as Hydra overrides
# (as the NeMo launcher renders it); DLLogger json goes to logs/train/dllogger.json.
torchrun --nproc-per-node="${GPUS_PER_NODE}" --nnodes="${NNODES}" --node-rank="${NODE_RANK}" --rdzv-id="${JOB_IDENTIFIER}" --master-addr="${MASTER_ADDR}" --master-port="${MASTER_PORT}" /opt/NeMo/examples/nlp/language_modeling/megatron_gpt_pretraining.py \
  trainer.num_nodes="${NNODES}" \
  trainer.devices=8 \
  trainer.max_steps=50 \
  trainer.precision=bf16 \
  model.num_layers=96 \
  model.hidden_size=12288 \
  model.ffn_hidden_size=49152 \
  model.num_attention_heads=96 \
  model.encoder_seq_length=2048 \
  model.max_position_embeddings=2048 \
  model.micro_batch_size=1 \
  model.global_batch_size=2048 \
  model.tensor_model_parallel_size=4 \
  model.pipeline_model_parallel_size=8 \
  model.virtual_pipeline_model_parallel_size=2 \
  model.context_parallel_size=1 \
  model.sequence_parallel=True \
  model.fp8=True \
  model.activations_checkpoint_granularity=null \
  model.activations_checkpoint_method=null \
  model.activations_checkpoint_num_layers=null \
  model.optim.name=distributed_fused_adam \
  model.data.data_impl=mock \
  'model.data.data_prefix=[]' \
  exp_manager.explicit_log_dir="${TRAINBENCH_RUN_DIR}"/logs/train/nemo \
  ++exp_manager.dllogger_logger_kwargs.json_file="${TRAINBENCH_RUN_DIR}"/logs/train/dllogger/rank-0/dllogger.json \
  model.nsys_profile.enabled=True \
  model.nsys_profile.start_step=41 \
  model.nsys_profile.end_step=43 \
  'model.nsys_profile.ranks=[0]' \
  trainer.log_every_n_steps=1 \
  trainer.val_check_interval=100 \
  trainer.limit_val_batches=20 \
  trainer.gradient_clip_val=1.0 \
  exp_manager.create_dllogger_logger=True \
  exp_manager.create_checkpoint_callback=False \
  exp_manager.resume_if_exists=False \
  model.mcore_gpt=True \
  model.transformer_engine=True \
  model.fp8_hybrid=True \
  model.fp8_e4m3=False \
  model.fp8_margin=0 \
  model.fp8_interval=1 \
  model.fp8_amax_history_len=1024 \
  model.fp8_amax_compute_algo=max \
  model.fp8_wgrad=True \
  model.ub_tp_comm_overlap=False \
  model.overlap_p2p_comm=True \
  model.batch_p2p_comm=False \
  model.make_vocab_size_divisible_by=128 \
  model.init_method_std=0.006 \
  model.optim.bucket_cap_mb=220 \
  model.optim.overlap_grad_sync=True \
  model.optim.overlap_param_sync=True \
  model.optim.contiguous_grad_buffer=True \
  model.optim.grad_sync_dtype=bf16 \
  model.optim.lr=9.0e-05 \
  model.optim.sched.warmup_steps=115 \
  model.optim.sched.constant_steps=12500 \
  model.optim.sched.min_lr=9.0e-06
