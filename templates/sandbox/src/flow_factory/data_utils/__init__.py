"""Data loading: offline V2 JSONL datasets and grouped prompt loaders."""
