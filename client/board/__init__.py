"""The board the player plays, pure: places and the moves a pair of them means (``places``), and
moves applied at once before the server answers (``optimistic``). No Textual, no network."""
