"""Case generation: one valid and many labelled malformed argument objects per tool."""
