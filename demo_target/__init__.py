"""A deliberately flawed MCP server used by the demo and the tests (SPEC §9)."""
