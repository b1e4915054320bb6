#!/usr/bin/env bash
# The browser the board's tests drive: Debian's headless Chromium and its chromedriver (selenium
# itself comes with the project's `test` extra). Nothing else is downloaded: selenium is pointed at
# these two programs, so its own driver download is never tried.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "The browser tests need Debian's chromium and chromium-driver: run as root on Debian," \
         "or install them (apt-get install chromium chromium-driver)." >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
command -v chromium >/dev/null && command -v chromedriver >/dev/null
