"""Paper inputs: numbers as \\newcommand macros, tables as booktabs .tex."""
