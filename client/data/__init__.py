"""What the client keeps on this machine, in the user's data directory: settings, the race
session and player keys (``userdata``), and the statistics file (``stats``)."""
