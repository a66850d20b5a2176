# TorchTitan: torchrun starts torchtitan.train on every GPU of the node (as its run_train.sh does),
# which reads the TOML job config delivered with the job ({{config_file}}: the recipe's model
# flavour, parallelism, batch, precision and steps); the dump folder is the run's own. Its step
# lines (loss, memory, tps, tflops, mfu) go to the job's standard output.
MASTER_ADDR="${MASTER_ADDR:-$(hostname)}"
export MASTER_ADDR
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
