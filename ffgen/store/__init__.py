"""What ffgen keeps in a checkout about each algorithm it generated: the record, its --like
provenance, the compressed pristine texts, and reading them back."""
