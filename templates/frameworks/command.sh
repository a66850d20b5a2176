# stage {{stage}} ({{stage_kind}}): the stage's command.
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
