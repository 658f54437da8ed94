"""Team mode: claims compare-and-swapped on refs of the shared git remote, and the state they are read into."""
