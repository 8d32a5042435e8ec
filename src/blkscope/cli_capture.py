"""Capture verbs (hardware runs), registered on import by cli.build_parser."""
