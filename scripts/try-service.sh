#!/bin/sh
# make try-service: service mode tried without installing anything. As root (passcoded starts as
# root and drops to a user of its own), it starts a private system-like bus with the checkout's
# bus policy and the checkout's passcoded on it, stores in a temporary folder, a throwaway service
# user; prints the bus address; runs COMMAND (default: a shell) as the user who called sudo with
# DBUS_SYSTEM_BUS_ADDRESS set to that bus; and removes the bus, the daemon, the stores and the user
# when COMMAND ends, exiting with its status. TRY_SERVICE_CONF: lines added to passcoded.conf (a
# mail relay, fprint_timeout, ...: passcoded(8)). fprintd's and logind's names may be owned by
# root on the bus, as their own policies let them (a fprintd, or the GTK tests' templates, started
# as root with DBUS_SYSTEM_BUS_ADDRESS set). The bus, passcoded and the user are the tests' own
# (Tests/service/harness.py, which test-service and test-pam use too).
#
# usage: [TRY_SERVICE_CONF='fprint_timeout = 5'] scripts/try-service.sh PASSCODED [COMMAND...]
exec /usr/bin/python3 "$(cd "$(dirname "$0")/.." && pwd)/Tests/service/harness.py" "$@"
