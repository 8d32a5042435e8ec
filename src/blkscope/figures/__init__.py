"""Figures: one module per figure family, all drawn with the theme in theme.py."""
