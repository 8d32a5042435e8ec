"""Figures: one module per figure family, all drawn with the theme in theme.py.

Each module has `chart(table: pl.DataFrame) -> altair chart`; `blkscope figure NAME TABLE -o PREFIX`
draws it, and CAPTION and LABEL are its LaTeX caption and label; a module whose caption depends on its data
(which profile a curve is) has `caption(table) -> str` instead, which `blkscope paper-figure --table` calls.
Register new figures here (name on the command line -> module).
"""

FIGURES: dict[str, str] = {
    "rank-frequency": "rank_frequency",
    "iostat-compare": "iostat_compare",
    "frequency-of-frequency": "frequency_of_frequency",
    "zipf-ccdf": "zipf_ccdf",
    "tracing-overhead": "tracing_overhead",
    "trace-cost": "trace_cost",
    "io-over-time": "io_over_time",
    "latency-stages": "latency_stages",
    "queue-depth": "queue_depth",
    "seek-distance": "seek_distance",
    "miss-ratio-curve": "miss_ratio_curve",
    "metadata-vs-data": "metadata_vs_data",
    "io-map": "io_map",
    "latency-windows": "latency_windows",
    "request-sizes": "request_sizes",
    "arrivals": "arrivals",
    "request-size-over-time": "request_size_over_time",
    "miss-ratio-by-class": "miss_ratio_by_class",
    "cache-sweep": "cache_sweep",
}
