# stage {{stage}} ({{stage_kind}}): the stage's command.
# shellcheck disable=SC2016 # a literal '$' in a quoted argument is the command's own text
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
