"""Bytes in and out: the store interfaces, the memory and Redis stores, their scripts and link, and the guarded call."""
