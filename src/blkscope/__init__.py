"""blkscope: how Linux filesystems shape the block I/O of databases."""

__version__ = "0.1.0"
