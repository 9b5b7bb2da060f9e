#!/usr/bin/env bash
# Installs Debian's chromium for the console's browser tests (test/browser) when it is missing.
# playwright-core drives it; no browser is downloaded from elsewhere.
set -euo pipefail
command -v chromium >/dev/null && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
chromium --version
