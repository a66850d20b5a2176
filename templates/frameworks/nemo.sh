# NeMo: megatron_gpt_pretraining.py with the configuration as Hydra overrides
# (as the NeMo launcher renders it); DLLogger json goes to {{log_dir}}/dllogger.json.
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
