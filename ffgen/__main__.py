from ffgen.cli import main

main()
