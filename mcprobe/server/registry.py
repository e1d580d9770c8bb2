"""Many open targets inside one long-lived server: ``ConnectionRegistry``.

Each connection is owned by one task started from the server's lifespan task group. That task
enters ``open_target`` and leaves it itself (the SDK's transports must be entered and exited in the
same task, or the whole server dies); tools only signal it and wait. Once a connection is open,
nothing the target does can raise into the lifespan task group: an error in the owner after
``started()`` is logged and the connection is closed. A target that dies stays registered, with
``alive`` False, until it is disconnected, so tools can report the death.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import anyio
import anyio.abc

from mcprobe.client.connection import TargetConnection, open_target
from mcprobe.core.errors import UnknownConnection
from mcprobe.core.target_spec import TargetSpec

__all__ = ["DISCONNECT_WAIT", "Connection", "ConnectionRegistry"]

logger = logging.getLogger(__name__)

DISCONNECT_WAIT = 10.0
"""Upper bound on waiting for one owner task to finish closing (its own close is bounded at
about 2 s; this only guards against the unforeseen)."""


@dataclass(eq=False)
class Connection:
    """One open target. ``id`` is "c1", "c2", ... in the order connections opened."""

    id: str
    spec: TargetSpec
    target: TargetConnection
    _close_requested: anyio.Event = field(default_factory=anyio.Event, repr=False)
    _closed: anyio.Event = field(default_factory=anyio.Event, repr=False)

    @property
    def alive(self) -> bool:
        return self.target.alive


class ConnectionRegistry:
    """Open, look up and close connections; every target is owned by its own task."""

    def __init__(self, task_group: anyio.abc.TaskGroup) -> None:
        self._task_group = task_group
        self._connections: dict[str, Connection] = {}
        self._counter = 0

    # ---------------------------------------------------------------- queries

    def ids(self) -> list[str]:
        """Open connection ids, oldest first."""
        return list(self._connections)

    @property
    def default_id(self) -> str | None:
        """The most recently opened connection that is still open."""
        return next(reversed(self._connections), None)

    def get(self, connection_id: str | None = None) -> Connection:
        """The connection ``connection_id``, or the default one when it is None.

        Raises ``UnknownConnection`` (naming the open ids) when there is no such connection.
        """
        key = self.default_id if connection_id is None else connection_id
        if key is None or key not in self._connections:
            raise UnknownConnection(connection_id, self.ids())
        return self._connections[key]

    # ---------------------------------------------------------------- open / close

    async def connect(self, spec: TargetSpec, *, deadline: float | None = None) -> Connection:
        """Open ``spec`` in a new owner task; raises ``ConnectFailed`` if it cannot be opened."""
        connection: Connection = await self._task_group.start(self._own, spec, deadline)
        return connection

    async def _own(
        self,
        spec: TargetSpec,
        deadline: float | None,
        *,
        task_status: anyio.abc.TaskStatus[Connection] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        connection: Connection | None = None
        try:
            async with open_target(spec, deadline=deadline) as target:
                self._counter += 1
                connection = Connection(f"c{self._counter}", spec, target)
                self._connections[connection.id] = connection
                task_status.started(connection)
                await connection._close_requested.wait()
        except Exception:
            if connection is None:
                raise  # before started(): tg.start() re-raises it to the caller of connect()
            # After started() nothing may escape into the lifespan task group.
            logger.exception("connection %s failed while open", connection.id)
        finally:
            if connection is not None:
                self._connections.pop(connection.id, None)
                connection._closed.set()

    async def disconnect(self, connection_id: str | None = None, *, all: bool = False) -> list[str]:
        """Close one connection (the default one when ``connection_id`` is None) or, with
        ``all=True``, every open connection. Returns the ids removed. Always completes, even
        when a target is dead or hung; raises ``UnknownConnection`` for an unknown id."""
        doomed = list(self._connections.values()) if all else [self.get(connection_id)]
        async with anyio.create_task_group() as tg:
            for connection in doomed:
                tg.start_soon(self._close, connection)
        return [connection.id for connection in doomed]

    async def _close(self, connection: Connection) -> None:
        connection._close_requested.set()
        with anyio.move_on_after(DISCONNECT_WAIT) as scope:
            await connection._closed.wait()
        if scope.cancelled_caught:
            logger.warning("connection %s did not finish closing in time", connection.id)
            self._connections.pop(connection.id, None)

    async def aclose(self) -> None:
        """Close every connection (for the lifespan's exit)."""
        with anyio.CancelScope(shield=True):
            await self.disconnect(all=True)
