"""Writing: the all-or-nothing apply, its journal, the checkout lock and path safety."""

# Where apply's write-ahead journal lives; here, so a command that only reads can tell there is
# nothing to settle without importing the writer.
JOURNAL_PATH = ".ffgen/journal.json"
