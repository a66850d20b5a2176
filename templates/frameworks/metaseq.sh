# Metaseq: metaseq/cli/train.py, one task per GPU (as seed 003 does); train_inner
# JSON lines go to the job's standard output.
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
