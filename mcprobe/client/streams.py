"""The stream types the transports hand to the JSON-RPC session, as local ``Protocol``s.

The SDK's own (``mcp.shared._stream_protocols``) live in a private module; these have the same
members, so anyio memory streams and the SDK's context-aware wrappers satisfy both (structural
typing), and mcprobe does not depend on where the SDK keeps them.
"""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, Self, TypeVar

__all__ = ["ReadStream", "WriteStream"]

T_co = TypeVar("T_co", covariant=True)
T_contra = TypeVar("T_contra", contravariant=True)


class ReadStream(Protocol[T_co]):
    """What a transport yields to read from: items until end of stream."""

    async def receive(self) -> T_co: ...
    async def aclose(self) -> None: ...
    def __aiter__(self) -> ReadStream[T_co]: ...
    async def __anext__(self) -> T_co: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None: ...


class WriteStream(Protocol[T_contra]):
    """What a transport yields to write to."""

    async def send(self, item: T_contra, /) -> None: ...
    async def aclose(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None: ...
