"""How often pages are accessed, and how skewed: per-page counts, rank-frequency and frequency of frequency,
discrete power-law (Zipf) fits with their bootstrap and alternatives, and the skew a YCSB run asked for against the
skew its block trace shows."""
