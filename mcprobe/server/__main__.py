"""``python -m mcprobe.server`` runs the stdio MCP server."""

from mcprobe.server.app import main

main()
