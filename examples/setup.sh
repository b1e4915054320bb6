#!/usr/bin/env bash
# What the example clients need beyond Python: Node 18 or later (for fetch), from Debian's
# packages. Run by `make test` before the smoke test; does nothing when a recent node is there.
set -euo pipefail
if command -v node >/dev/null 2>&1 && node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)'; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "examples/setup.sh: the JavaScript client needs Node 18 or later; install it (Debian: apt-get install nodejs)" >&2
    exit 1
fi
echo "examples/setup.sh: installing nodejs from Debian's packages"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs >/dev/null
node --version
