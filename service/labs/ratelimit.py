"""Per-key rate limits: a token bucket per API key, in this process or shared through Redis.

The in-process `RateLimiter` is the embedded default: nothing to run beside the service, but each replica holds
its own buckets, so with N replicas a key may get up to N x the limit. With `GPUPLAN_RATE_LIMIT_REDIS_URL` set,
`RedisRateLimiter` keeps each key's bucket in Redis and takes tokens in one Lua script (atomic, one round trip,
Redis's own clock), so "600 a minute" means per key whatever the number of replicas.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol


class Limiter(Protocol):
    def retry_after(self, key: str) -> float | None:
        """Take a token for `key`; None when allowed, else the seconds until a token is free."""


class RateLimiter:
    def __init__(self, per_minute: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)
        self._lock = threading.Lock()

    def retry_after(self, key: str) -> float | None:
        """Take a token for `key`; None when allowed, else the seconds until a token is free."""
        now = self.clock()
        with self._lock:
            tokens, then = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return None
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate


# KEYS[1]: the bucket (a hash of tokens and when); ARGV: rate per second, burst. Returns 0 when a token was
# taken, else the milliseconds until one is free. The bucket expires once it would be full again anyway.
_TAKE = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local state = redis.call('HMGET', KEYS[1], 'tokens', 'when')
local tokens, when = tonumber(state[1]), tonumber(state[2])
if tokens == nil then tokens, when = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - when) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate * 1000) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'when', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return wait
"""


class RedisRateLimiter:
    """The same token bucket, kept in Redis so every replica takes from one bucket per key."""

    def __init__(self, url: str, per_minute: float, burst: int, prefix: str = "gpuplan:ratelimit:") -> None:
        import redis  # the optional extra `gpuplan[redis]`, needed only when this limiter is configured

        self.rate = per_minute / 60.0
        self.burst = burst
        self.prefix = prefix
        self._client: Any = redis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)
        self._take: Any = self._client.register_script(_TAKE)

    def retry_after(self, key: str) -> float | None:
        wait_ms = int(self._take(keys=[self.prefix + key], args=[repr(self.rate), self.burst]))
        return None if wait_ms == 0 else wait_ms / 1000.0


def limiter_from(redis_url: str | None, per_minute: float, burst: int) -> Limiter:
    """The shared limiter when a Redis URL is configured, else the in-process one."""
    if redis_url:
        return RedisRateLimiter(redis_url, per_minute, burst)
    return RateLimiter(per_minute, burst)
