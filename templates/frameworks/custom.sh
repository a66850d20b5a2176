# custom: the recipe's launch.command, word for word.
{{#launch_lines}}
{{{line_sh}}}
{{/launch_lines}}
