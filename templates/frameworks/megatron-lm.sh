# Megatron-LM: pretrain_gpt.py under torchrun (as seed 002 does); iteration
# lines go to the job's standard output.
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
