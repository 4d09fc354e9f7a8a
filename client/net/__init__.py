"""The client's side of the wire: one server session (``connection``: hello, replies by seq,
events, reconnection), a room's requests sent in order (``outbox``), and the server's error codes
in the player's words (``errors``)."""
