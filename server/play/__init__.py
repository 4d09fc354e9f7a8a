"""What a race is played with: deals and their pool, the daily deal and board, hints and lost checks, bots."""
