"""Registered players: the account requests, a hello with a key, the keys and passwords, and their new ratings told."""
