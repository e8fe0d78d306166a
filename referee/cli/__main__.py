"""`python -m referee.cli`."""

from referee.cli import main

main()
