#!/usr/bin/env bash
# nginx for the deploy tests (tests/test_deploy.py): Debian's nginx-light, the smallest nginx with
# the proxy and its cache, like tests/setup_browser.sh installs Chromium. The tests run it on free
# ports in a temporary directory; nothing here starts or enables the system's own nginx service.
# wrk (the load generator of the /healthz queue test and of the benchmarks) comes along when it
# can; without it the test uses a small Python load.
set -euo pipefail
nginx_found() { command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; }
if nginx_found && command -v wrk >/dev/null; then
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    if nginx_found; then
        exit 0  # wrk is optional
    fi
    echo "The deploy tests need nginx: run as root on Debian, or install it (apt-get install nginx-light wrk)." >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# policy-rc.d 101: the package's scripts must not start a system nginx on port 80.
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get install -y -qq --no-install-recommends nginx-light wrk >/dev/null
nginx_found
