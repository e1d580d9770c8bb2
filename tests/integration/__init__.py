"""Audits of real published MCP servers (installed by scripts/real_servers), network-isolated."""
