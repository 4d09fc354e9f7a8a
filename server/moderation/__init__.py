"""Moderation (docs/admin.md): the moderators' list (`bans.py`) and their actions on every node (`actions.py`)."""
