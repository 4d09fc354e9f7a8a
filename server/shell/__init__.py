"""The asyncio shell: the room path, replies and fan-out, connections, sessions, the lobby, nodes, limits, the clock."""
