"""Analysis, figure and paper verbs (registered on import by cli.build_parser)."""
