#!/usr/bin/env bash
# Install Debian's Chromium for the browser test when it is missing (needs root; CI runs as root).
# Playwright's own `playwright install` is not used: the test launches /usr/bin/chromium directly.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "chromium is missing and this user is not root: run 'sudo apt-get install -y chromium' to enable the browser test." >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "installed: $(/usr/bin/chromium --version 2>/dev/null)"
