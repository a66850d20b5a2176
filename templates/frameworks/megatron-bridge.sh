# Megatron-Bridge: scripts/performance/run_script.py with the performance scripts' flags, then
# config overrides (key=value), under one torchrun per node (as gpu-recipes' GKE charts run it;
# torchrun sets the RANK/LOCAL_RANK/WORLD_SIZE the script initialises from). Its per-step lines
# ("Step Time : ...", then Megatron's iteration line) go to the job's standard output. The
# rendezvous host is the node this script runs on (the first of the allocation).
MASTER_ADDR="${MASTER_ADDR:-$(hostname)}"
export MASTER_ADDR
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
