"""mcprobe: audit MCP servers over the live protocol."""

__version__ = "0.1.0"
