"""A tiny detector split over a package (relative imports); two of its files get rewritten."""
