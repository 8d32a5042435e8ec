"""Analyses: one module per question, polars in and out."""
