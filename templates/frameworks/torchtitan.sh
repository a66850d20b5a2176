# TorchTitan: torchrun starts torchtitan.train on every GPU of the node (as its run_train.sh does)
# on the job the recipe describes: a TOML job config delivered with the job (0.2.2), or a function
# of TorchTitan's config registry then --section.option flags (main); the dump folder is the run's
# own. Its step lines (loss, memory, tps, tflops, mfu) go to the job's standard output.
MASTER_ADDR="${MASTER_ADDR:-$(hostname)}"
export MASTER_ADDR
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
