"""Many server processes joined by Redis: who owns a room, and the messages between processes.

The shape (docs/scaling.md): every process serves websockets and HTTP for any room; a room's
moves are applied by the one process that owns it (a lease in Redis, renewed while the process
lives), and the store's fencing token (rooms.epoch) refuses a write by a process whose lease
was taken over. Each process listens on its own pub/sub channel for what the others send it:
a socket's messages for a room it owns, the states for a socket it serves, calls of the HTTP
API for a room it owns and their answers.

Redis holds nothing that cannot be lost: leases, the set of live rooms, processes' heartbeats,
rate-limit buckets. When Redis restarts, each process takes its rooms' leases back and the
sockets are attached again; the games are in the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from .limits import MemoryCounter

log = logging.getLogger("yaniv.server")

#: Milliseconds a lease (and a process's heartbeat) lives unless renewed.
LEASE_MS = 5000
#: Seconds between renewals of the leases and the heartbeat: three chances in a lease.
RENEW_EVERY = 1.5
#: Seconds between two looks for rooms whose owner is gone (fail-over).
SWEEP_EVERY = 1.0
#: Seconds a call to another process waits for its answer.
CALL_TIMEOUT = 5.0

PREFIX = "yaniv:"
LIVE_ROOMS = PREFIX + "rooms"  # set: codes of the rooms in play (waiting or playing)

# Renew each lease (KEYS) this process holds, or take it again if nobody does (Redis
# restarted, or the lease ran out while no other process wanted it): 1 kept, 2 taken again,
# 0 lost, a result a lease. One command for them all: a pipeline of one EVALSHA a room held
# the event loop of a process of 300 rooms tens of milliseconds at every renewal.
RENEW_ALL = """
local out = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('GET', key)
  if v == ARGV[1] then redis.call('PEXPIRE', key, ARGV[2]) out[i] = 1
  elseif not v then redis.call('SET', key, ARGV[1], 'PX', ARGV[2]) out[i] = 2
  else out[i] = 0 end
end
return out
"""
#: Leases renewed by one call of RENEW_ALL (Redis runs nothing else while a script runs).
RENEW_BATCH = 1000
# Let go of a lease only if this process holds it.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# The rooms in play whose lease nobody holds, looked up in Redis itself: every process asks
# each second, and a pipeline of one EXISTS per room in play cost each a few per cent of its
# time at 1,000 rooms. (The lease keys are made here from the set's codes: one Redis, not a
# Redis Cluster, as everywhere in this module.)
ORPHANS = """
local out = {}
for _, code in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. code) == 0 then out[#out + 1] = code end
end
return out
"""
# A token bucket: ARGV = capacity (tokens a minute), timed by Redis's clock (one clock for
# every machine). Returns the ms to wait (0: taken).
BUCKET = """
local cap = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(b[1]) or cap
local at = tonumber(b[2]) or now
tokens = math.min(cap, tokens + (now - at) * cap / 60000)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) * 60000 / cap) end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 60000)
return wait
"""

Handler = Callable[[dict[str, Any]], Awaitable[None]]


def lease_key(code: str) -> str:
    return f"{PREFIX}owner:{code}"


def alive_key(node: str) -> str:
    return f"{PREFIX}alive:{node}"


def channel(node: str) -> str:
    return f"{PREFIX}node:{node}"


#: What a client is told while Redis cannot be reached.
NO_REDIS = (
    "the server cannot reach Redis, which its processes share the rooms through; "
    "try again in a few seconds"
)


class CallFailed(Exception):
    """A call to another process got no answer (it died, or Redis is down)."""


class Cluster:
    """This process among the others: its id, leases, heartbeat and its channel."""

    def __init__(self, url: str, node: str | None = None) -> None:
        self.url = url
        self.node = node or secrets.token_hex(6)
        # A busy process may read a reply late (its event loop is loaded): a command waits
        # up to 10 s before it is counted as Redis failing.
        self.redis: aioredis.Redis = aioredis.from_url(
            url, decode_responses=True, socket_timeout=10, socket_connect_timeout=5
        )
        self.owned: set[str] = set()  # the codes whose lease this process holds
        self._handler: Handler | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._calls: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._renew_all = self.redis.register_script(RENEW_ALL)
        self._release = self.redis.register_script(RELEASE)
        self._bucket = self.redis.register_script(BUCKET)
        self._orphans = self.redis.register_script(ORPHANS)
        self.on_lost: Callable[[str], Awaitable[None]] | None = None  # a lease taken over
        self.on_reconnect: Callable[[], Awaitable[None]] | None = None  # Redis came back
        self.on_sweep: Callable[[], Awaitable[None]] | None = None  # look for orphans
        self._run_id: str | None = None  # the Redis server's run, to tell a restart

    async def check(self) -> None:
        """Raise ValueError in words when Redis cannot be reached."""
        try:
            await self.redis.ping()
        except (RedisError, OSError) as exc:
            raise ValueError(f"cannot reach Redis at {self.url}: {exc}") from None

    async def start(self, handler: Handler) -> None:
        """Listen on this process's channel and keep its heartbeat and leases alive."""
        self._handler = handler
        await self.redis.set(alive_key(self.node), "1", px=LEASE_MS)
        ready = asyncio.Event()
        self._tasks = [
            asyncio.create_task(self._listen(ready)),
            asyncio.create_task(self._keep_alive()),
            asyncio.create_task(self._sweeping()),
        ]
        await asyncio.wait_for(ready.wait(), 10)

    async def close(self) -> None:
        """Stop listening and let go of every lease (another process takes the rooms)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(RedisError, OSError):
            for code in list(self.owned):
                await self._release(keys=[lease_key(code)], args=[self.node])
            await self.redis.delete(alive_key(self.node))
        self.owned.clear()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.aclose()

    # ------------------------------------------------------------- leases

    async def owner(self, code: str) -> str | None:
        """The process that owns room ``code`` now, or None."""
        value = await self.redis.get(lease_key(code))
        return None if value is None else str(value)

    async def acquire(self, code: str) -> bool:
        """Take the lease of room ``code`` if nobody holds it (or this process does)."""
        key = lease_key(code)
        taken = await self.redis.set(key, self.node, px=LEASE_MS, nx=True)
        if not taken and await self.redis.get(key) != self.node:
            return False
        # Renewed only once the room is known to be in play: a lease taken as Redis fails
        # here runs out by itself.
        await self.redis.sadd(LIVE_ROOMS, code)
        self.owned.add(code)
        return True

    async def release(self, code: str, finished: bool = False) -> None:
        """Let go of room ``code``'s lease; ``finished``: it is no longer in play."""
        self.owned.discard(code)
        with contextlib.suppress(RedisError, OSError):
            await self._release(keys=[lease_key(code)], args=[self.node])
            if finished:
                await self.redis.srem(LIVE_ROOMS, code)

    async def orphans(self) -> list[str]:
        """Rooms in play whose lease nobody holds (their process died), in code order."""
        codes = await self._orphans(keys=[LIVE_ROOMS], args=[lease_key("")])
        return sorted(str(c) for c in codes)

    async def alive(self, nodes: set[str]) -> set[str]:
        """Those of ``nodes`` whose heartbeat is current."""
        if not nodes:
            return set()
        order = sorted(nodes)
        async with self.redis.pipeline(transaction=False) as pipe:
            for node in order:
                pipe.exists(alive_key(node))
            found = await pipe.execute()
        return {n for n, f in zip(order, found, strict=True) if f}

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY)
            try:
                # The heartbeat first: after a restart, the sockets attached again at once
                # (_notice_restart) are those of a process the others see alive.
                await self.redis.set(alive_key(self.node), "1", px=LEASE_MS)
                await self._notice_restart()
                codes = list(self.owned)
                kept: list[int] = []
                for at in range(0, len(codes), RENEW_BATCH):
                    keys = [lease_key(code) for code in codes[at : at + RENEW_BATCH]]
                    kept += await self._renew_all(keys=keys, args=[self.node, LEASE_MS])
                lost = [code for code, k in zip(codes, kept, strict=True) if k == 0]
                again = [code for code, k in zip(codes, kept, strict=True) if k == 2]
                if again:  # Redis lost them (a restart): the rooms are in play still
                    await self.redis.sadd(LIVE_ROOMS, *again)
                for code in lost:
                    self.owned.discard(code)
                    log.warning("room %s: another process took it over", code)
                    if self.on_lost is not None:
                        await self.on_lost(code)
            except (RedisError, OSError) as exc:
                log.warning("Redis: the leases could not be renewed: %s", exc)
            except Exception:
                log.exception("renewing the leases failed")

    async def _notice_restart(self) -> None:
        """Tell the hub when Redis restarted (its run id changed): what was published
        meanwhile is lost, and the client may have reconnected without a word to us."""
        info = await self.redis.info("server")
        run_id = str(info.get("run_id", ""))
        restarted = self._run_id is not None and run_id != self._run_id
        self._run_id = run_id
        if restarted and self.on_reconnect is not None:
            log.warning("Redis restarted: the sockets are attached again")
            await self.on_reconnect()

    async def _sweeping(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            if self.on_sweep is None:
                continue
            try:
                await self.on_sweep()
            except (RedisError, OSError) as exc:
                log.debug("Redis: no sweep: %s", exc)
            except Exception:
                log.exception("looking for rooms without an owner failed")

    # ------------------------------------------------------------- messages

    async def send(self, node: str, message: dict[str, Any]) -> bool:
        """Send ``message`` to process ``node``; whether it is listening (its channel may be
        broken a moment). RedisError/OSError when Redis is down."""
        heard = await self.redis.publish(channel(node), json.dumps(message, ensure_ascii=False))
        return bool(heard)

    async def call(self, node: str, op: str, args: list[Any]) -> dict[str, Any]:
        """Ask process ``node`` to run ``op(*args)``; its answer (``{"ok": ...}`` or
        ``{"error": words, "status": n}``). CallFailed when none comes."""
        rid = secrets.token_hex(8)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._calls[rid] = future
        try:
            message = {"kind": "call", "id": rid, "from": self.node, "op": op, "args": args}
            try:
                await self.send(node, message)
            except (RedisError, OSError) as exc:
                raise CallFailed(f"Redis is unreachable: {exc}") from None
            try:
                return await asyncio.wait_for(future, CALL_TIMEOUT)
            except TimeoutError:
                raise CallFailed("the room's server did not answer") from None
        finally:
            self._calls.pop(rid, None)

    async def answer(self, message: dict[str, Any], answer: dict[str, Any]) -> None:
        """Send the answer to a ``call`` message."""
        with contextlib.suppress(RedisError, OSError):
            await self.send(message["from"], {"kind": "answer", "id": message["id"], **answer})

    async def _listen(self, ready: asyncio.Event) -> None:
        """Receive this process's messages, one after another; after a Redis outage,
        subscribe again (with a growing pause) and tell the hub."""
        pause, first = 0.2, True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(channel(self.node))
                ready.set()
                if not first and self.on_reconnect is not None:
                    log.warning("Redis: connected again")
                    await self.on_reconnect()
                first, pause = False, 0.2
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None or message.get("type") != "message":
                        continue
                    await self._dispatch(message["data"])
            except asyncio.CancelledError:
                with contextlib.suppress(BaseException):
                    await pubsub.aclose()
                raise
            except (RedisError, OSError) as exc:
                log.warning("Redis: the channel broke (%s); again in %.1f s", exc, pause)
                first = False
            except Exception:
                log.exception("Redis: the channel failed")
                first = False
            with contextlib.suppress(BaseException):
                await pubsub.aclose()
            await asyncio.sleep(pause)
            pause = min(5.0, pause * 2)

    async def _dispatch(self, data: str) -> None:
        try:
            message = json.loads(data)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        if message.get("kind") == "answer":
            future = self._calls.get(str(message.get("id")))
            if future is not None and not future.done():
                future.set_result(message)
            return
        if self._handler is not None:
            await self._handler(message)

    # ------------------------------------------------------------- rate limits

    async def take(self, key: str, per_minute: int) -> float:
        """Take a token from the bucket ``key`` shared by every process: 0.0, or the
        seconds to wait."""
        wait = await self._bucket(keys=[f"{PREFIX}bucket:{key}"], args=[per_minute])
        return float(wait) / 1000.0


class SharedCounter:
    """The rate limits' buckets in Redis, shared by every process (limits.Counter); while
    Redis is unreachable, this process's own buckets stand in."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.fallback = MemoryCounter()

    async def take(self, key: str, per_minute: int) -> float:
        try:
            return await self.cluster.take(key, per_minute)
        except (RedisError, OSError):
            return await self.fallback.take(key, per_minute)
