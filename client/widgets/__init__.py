"""Textual widgets fed plain data, shared by the screens: the board (``board_view``), the race's
rivals panel, clock and countdown with the times and statuses as written (``rivals``), and a tick
box whose mark says its state (``tickbox``). None of them knows about the network."""
