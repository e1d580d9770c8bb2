"""mcprobe as a stdio MCP server: the six ``probe_*`` tools and the connection registry."""
