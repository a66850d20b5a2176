# NeMo: megatron_gpt_pretraining.py reads the configuration delivered with the job
# ({{config_file}}: the seed's configuration for this NeMo version with the recipe's
# values) through --config-path/--config-name, as the NeMo launcher does; paths known
# only here are Hydra overrides.
{{#has_preflight}}
# What the configuration needs from the image, checked before the job starts.
{{#preflight}}
{{{check_sh}}}
{{/preflight}}
{{/has_preflight}}
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
