"""After new: records, replay, list/check status, remove and update with a three-way merge."""
