"""typer's text for ``ffgen --help``: ``python -m ffgen.entry --write-help``
makes it (generated; do not edit). ``{prog}`` stands for the program's name.
"""

TEXT = (
    'Usage: {prog} [OPTIONS] COMMAND [ARGS]...\n'
    '\n'
    '  Generate and verify Flow-Factory training algorithms.\n'
    '\n'
    'Options:\n'
    "  --version  Print ffgen's version.\n"
    '  --help     Show this message and exit.\n'
    '\n'
    'Commands:\n'
    '  new              Classify a new algorithm and write everything its...\n'
    '  sandbox          Create a miniature, runnable Flow-Factory checkout to...\n'
    '  verify           Check every algorithm in a checkout against the...\n'
    '  check-templates  Render every legal classification into a fresh sandbox...\n'
    "  list             Every algorithm of the checkout, and whether ffgen's...\n"
    '  remove           Take an algorithm out: its files, registry entries,...\n'
    "  update           Re-render a generated algorithm with today's...\n"
    '  check            Fail when a generated algorithm is behind the...\n'
    '  smoke            Train KEY for a few steps on a tiny local model...\n'
    '  skill            Write the agent skill that drives ffgen into the...\n'
    "  param            Add or remove a generated algorithm's hyperparameters...\n"
)
