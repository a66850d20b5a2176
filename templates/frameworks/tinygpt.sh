# tinygpt: the shipped CPU/GPU workload; each rank reads its rank and world size
# from the launcher (SLURM_PROCID/SLURM_NTASKS or RANK/WORLD_SIZE).
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
