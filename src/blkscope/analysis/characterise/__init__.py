"""What a cache in front of the device would see, and the views of iowatcher and blkiomon: reuse distance and miss-
ratio curves, the I/O map, request sizes and merges, metadata against data, the cache sweep, and one row per run of
the characterisation's key metrics."""
