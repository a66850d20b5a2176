# Megatron-LM: pretrain_gpt.py under torchrun (as seed 002 does); iteration
# lines go to the job's standard output. The rendezvous host is the node this
# script runs on (the first of the allocation).
MASTER_ADDR="${MASTER_ADDR:-$(hostname)}"
export MASTER_ADDR
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
