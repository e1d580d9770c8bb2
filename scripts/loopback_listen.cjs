// Preloaded (node --require) into a third-party Node server by scripts/conformance: every
// TCP listen() that names no host (Express's `app.listen(PORT)` binds all interfaces) is
// bound to 127.0.0.1 instead. The server already runs in a loopback-only network namespace;
// this makes it listen where the project's rule says its test servers listen, and nowhere else.
"use strict";
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof args[1] !== "string") args.splice(1, 0, "127.0.0.1");
    else args[1] = "127.0.0.1";
  } else if (first && typeof first === "object" && first.path === undefined) {
    args[0] = { ...first, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
