"""Data IO: storage, JPEG decode and the DataLoader against what the card consumes (`python -m workloads.dataio`)."""
