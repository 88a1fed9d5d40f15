"""libcst edits of the Flow-Factory registry and re-export files: pure, code in -> result out."""
