//! Nothing: the package holds the `eviction` test only.
