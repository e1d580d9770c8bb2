"""Transports to a target: mcprobe's own stdio transport and Streamable HTTP / SSE."""
