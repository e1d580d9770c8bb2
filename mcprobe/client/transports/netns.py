"""A loopback listener inside an isolated target's own network namespace (Linux).

The sandbox gives a target a network namespace of its own: its 127.0.0.1 is not the host's, so
a listener of mcprobe's on the host's loopback is out of its reach, and the SSRF probe could
never be answered. Here a short-lived thread enters the target's namespace (``setns``, which
moves only the calling thread), binds a TCP socket to 127.0.0.1 there and leaves; the socket
stays in the namespace it was made in, and mcprobe serves it from its own event loop. The
listener is therefore still loopback-only, in a namespace with no route out.

``setns`` needs ``CAP_SYS_ADMIN`` in mcprobe's own user namespace and in the one owning the
target's network namespace: true for root, and inside ``unshare -r``; an ordinary user cannot,
and then ``listener_in`` returns None with the reason (the caller sends no SSRF probe and says
so).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import socket
import sys
import threading
from collections import deque
from pathlib import Path

__all__ = ["listener_in", "netns_member"]

_CLONE_NEWNET = 0x40000000


def _net_inode(pid: int | str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}/ns/net").st_ino
    except OSError:
        return None


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def netns_member(pid: int, *, limit: int = 64) -> int | None:
    """``pid`` or the first descendant of it (breadth first, at most ``limit`` looked at) whose
    network namespace is not mcprobe's: a process inside the sandbox's namespace."""
    own = _net_inode("self")
    queue: deque[int] = deque([pid])
    seen = 0
    while queue and seen < limit:
        current = queue.popleft()
        seen += 1
        inode = _net_inode(current)
        if inode is not None and own is not None and inode != own:
            return current
        queue.extend(_children(current))
    return None


def _bind_in(pid: int, out: list[socket.socket | str]) -> None:
    """Thread body: enter ``pid``'s network namespace, bind 127.0.0.1:0, listen."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    try:
        fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        out.append(f"cannot open the target's network namespace ({exc.strerror})")
        return
    try:
        if libc.setns(fd, _CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            out.append(f"cannot enter the target's network namespace ({os.strerror(err)})")
            return
    finally:
        os.close(fd)
    try:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
    except OSError as exc:
        out.append(f"cannot listen on the sandbox's loopback ({exc.strerror})")
        return
    out.append(sock)


def listener_in(pid: int | None) -> socket.socket | str:
    """A listening TCP socket on 127.0.0.1 of the network namespace the process ``pid`` (or a
    descendant) runs in, or the reason there is none. Never the host's namespace: when no
    process of another namespace is found, that is the reason returned."""
    if not sys.platform.startswith("linux"):
        return "entering a network namespace needs Linux"
    if pid is None:
        return "the target's process is not known"
    member = netns_member(pid)
    if member is None:
        return "no process of the target's network namespace was found"
    out: list[socket.socket | str] = []
    # The thread that entered the namespace ends with the call: mcprobe's own threads never
    # change namespace.
    thread = threading.Thread(target=_bind_in, args=(member, out), name="mcprobe-netns")
    thread.start()
    thread.join(5)
    if not out:
        return "entering the target's network namespace did not finish"
    return out[0]
