"""The target client: processes, sockets, the raw JSON-RPC session and every timeout (all I/O).

Imports ``mcprobe.core`` and ``mcprobe.client`` only.
"""
