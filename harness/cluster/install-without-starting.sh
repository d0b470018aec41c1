#!/bin/sh
# Installs Debian packages without starting their services: their postinsts ask policy-rc.d
# (invoke-rc.d, deb-systemd-invoke) and a 101 answer forbids every start. An existing
# policy-rc.d is left as it is; ours is removed afterwards, whatever apt-get did.
# Usage: install-without-starting.sh PACKAGE...
set -eu
policy=/usr/sbin/policy-rc.d
ours=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# dtbench: installing; no service starts\nexit 101\n' > "$policy"
  chmod 755 "$policy"
  ours=1
fi
cleanup() { if [ -n "$ours" ]; then rm -f "$policy"; fi; }
trap cleanup EXIT INT TERM
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
