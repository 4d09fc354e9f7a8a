"""The Redis store's parts: ``base`` and one mixin per consumer's protocol, composed into
:class:`~server.store.redisstore.RedisStore` (whose module docstring has the key layout)."""
