"""The pure race room: its events, the room itself and one live room without I/O (commands in, an Outcome out)."""
