#!/usr/bin/env bash
# PostgreSQL's binaries (initdb, pg_ctl) for the tests that start clusters of their own (tests/cluster_support.py:
# a server restart, a pulled network cable, the load faults), and iproute2 for the cable's network namespace, from
# Debian's packages, as tests/setup_browser.sh installs Chromium. The other PostgreSQL tests use the server at
# UW_TEST_POSTGRES (postgres_support.py). Nothing here creates or starts a cluster of the system's own.
set -euo pipefail
binaries_found() { command -v initdb >/dev/null || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; }
if binaries_found && command -v ip >/dev/null; then
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "The PostgreSQL fault tests need its binaries and iproute2: run as root on Debian, or install them" \
         "(apt-get install postgresql iproute2); without them those tests are skipped." >&2
    exit 0  # the tests say so themselves: they skip with one line each
fi
export DEBIAN_FRONTEND=noninteractive
# Debian's package would create and start a main cluster: neither (the tests make their own).
mkdir -p /etc/postgresql-common/createcluster.d
echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/uw-tests.conf
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends postgresql iproute2 >/dev/null
binaries_found
