// Fusion: see ../../README.md for the layer this module holds.
