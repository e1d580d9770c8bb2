"""Load the MCP SDK's ``mcp`` package without running its ``__init__`` until a name needs it.

The client needs a few pieces of ``mcp.shared`` (the JSON-RPC dispatcher, ``SessionMessage``,
``MCPError``), and ``import mcp.shared.message`` runs ``mcp/__init__.py`` first, which imports
the SDK's whole client *and* server (starlette, uvicorn, the auth handlers, opentelemetry's
server side): about 0.3 s of every audit's start-up spent on code an audit never runs (issue 21).

``defer_package_init`` registers the package as Python would, with its ``__path__``, so its
submodules import as usual, and a module ``__getattr__`` that runs the real ``__init__`` the
first time anybody asks the package itself for a name (``from mcp import ClientSession``,
``mcp.Client``, ``from mcp import *``). Code that uses the SDK's top level still sees the whole
SDK; only nobody pays for it before that. Nothing happens when ``mcp`` is already imported (a
host that imported the SDK first keeps its module), or when the package cannot be found.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType

__all__ = ["defer_package_init", "package_init_ran"]

_PACKAGE = "mcp"
_lock = threading.Lock()


def defer_package_init() -> None:
    if _PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def __getattr__(name: str) -> object:
        with _lock:
            if module.__dict__.get("__getattr__") is __getattr__:
                del module.__dict__["__getattr__"]
                try:
                    loader.exec_module(module)
                except BaseException:
                    module.__dict__["__getattr__"] = __getattr__
                    raise
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {_PACKAGE!r} has no attribute {name!r}") from None

    module.__dict__["__getattr__"] = __getattr__
    sys.modules[_PACKAGE] = module


def package_init_ran(module: ModuleType | None = None) -> bool:
    """Whether ``mcp/__init__.py`` has run (the tests and ``-vv`` read this)."""
    module = module if module is not None else sys.modules.get(_PACKAGE)
    return module is not None and "__getattr__" not in module.__dict__
