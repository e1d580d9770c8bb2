"""The target client: processes, sockets, the raw JSON-RPC session and every timeout (all I/O).

Imports ``mcprobe.core`` and ``mcprobe.client`` only. Importing it defers the SDK package's
``__init__`` (``sdk_init``): the client uses ``mcp.shared`` and ``mcp_types``, never the SDK's
own client or server, and start-up is part of every audit's wall time.
"""

from mcprobe.client.sdk_init import defer_package_init

defer_package_init()
