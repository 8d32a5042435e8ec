"""Analyses, polars in and out, grouped by the question they answer: popularity (access frequency, Zipf fits,
skew), timing (latency, queue depth, seeks, arrivals), characterise (reuse and miss-ratio curves, the I/O map,
request mix, metadata), load (tracing's cost, the tracer's load, steady state), summaries (one table across runs of
what each run's logs report) and stats (the statistics they and the claims share)."""
