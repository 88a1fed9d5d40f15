from ffgen.entry import main

# Guarded: check-templates workers started with spawn/forkserver import this module again.
if __name__ == "__main__":
    main()
