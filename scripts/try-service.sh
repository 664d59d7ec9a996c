#!/bin/sh
# make try-service: service mode tried without installing anything. As root (passcoded starts as
# root and drops to a user of its own), it starts a private system-like bus with the checkout's
# bus policy and the checkout's passcoded on it, stores in a temporary folder, a throwaway service
# user; prints the bus address; runs COMMAND (default: a shell) as the user who called sudo with
# DBUS_SYSTEM_BUS_ADDRESS set to that bus; and removes the bus, the daemon, the stores and the user
# when COMMAND ends. TRY_SERVICE_CONF: lines added to passcoded.conf (a mail relay, fprint_timeout,
# ...: passcoded(8)). fprintd's name may be owned by root on the bus, as fprintd's own policy lets
# it (a fprintd, or the GTK tests' template, started as root with DBUS_SYSTEM_BUS_ADDRESS set).
#
# usage: [TRY_SERVICE_CONF='fprint_timeout = 5'] scripts/try-service.sh PASSCODED [COMMAND...]
set -eu
passcoded=$1
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" != 0 ]; then
    echo "try-service: run it as root (sudo make try-service): passcoded starts as root and drops to a user of its own" >&2
    exit 2
fi
for tool in dbus-daemon useradd userdel setpriv; do
    command -v "$tool" >/dev/null || { echo "try-service: $tool is missing (apt-get install dbus-daemon passwd util-linux)" >&2; exit 2; }
done
# Under /tmp: every folder above the stores must be reachable by the service user and
# writable by root alone (the library's folder check).
dir=$(mktemp -d /tmp/passcode-try.XXXXXX)
chmod 711 "$dir"
service_user="passcode-try-$$"
bus_pid="" daemon_pid="" made_user=""
cleanup() {
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null || true
    [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null && wait "$bus_pid" 2>/dev/null || true
    [ -n "$made_user" ] && userdel "$service_user" 2>/dev/null || true
    rm -rf "$dir"
    echo "try-service: stopped; the bus, passcoded, its stores and the user $service_user are gone" >&2
}
trap cleanup EXIT INT TERM
useradd --system --no-create-home --shell /usr/sbin/nologin --user-group "$service_user"
made_user=1
cat > "$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><deny own="*"/><deny send_type="method_call"/><allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/><allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/><allow receive_type="method_return"/><allow receive_type="error"/><allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="net.reactivated.Fprint"/>
    <allow send_destination="org.freedesktop.login1"/>
  </policy>
  <policy user="root"><allow own="net.reactivated.Fprint"/><allow own="org.freedesktop.login1"/></policy>
  <include>$repo/service/org.libpasscode.Passcode1.conf</include>
</busconfig>
CONF
printf 'store_root = %s/stores\nuser = %s\n' "$dir" "$service_user" > "$dir/passcoded.conf"
[ -z "${TRY_SERVICE_CONF:-}" ] || printf '%s\n' "$TRY_SERVICE_CONF" >> "$dir/passcoded.conf"
chmod 644 "$dir/passcoded.conf"
dbus-daemon --nofork --nopidfile --config-file="$dir/bus.conf" 2>"$dir/bus.log" &
bus_pid=$!
i=0; while [ ! -S "$dir/bus" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$dir/bus" ] || { echo "try-service: the bus did not start: $(cat "$dir/bus.log")" >&2; exit 1; }
chmod 666 "$dir/bus"
address="unix:path=$dir/bus"
DBUS_SYSTEM_BUS_ADDRESS=$address "$passcoded" --config "$dir/passcoded.conf" 2>"$dir/passcoded.log" &
daemon_pid=$!
i=0; until grep -q ready "$dir/passcoded.log" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
grep -q ready "$dir/passcoded.log" || { echo "try-service: passcoded did not start: $(cat "$dir/passcoded.log")" >&2; exit 1; }
cat >&2 <<TEXT
try-service: passcoded runs on a private bus, as $service_user, stores in $dir/stores
  DBUS_SYSTEM_BUS_ADDRESS=$address
  from C:      passcode_options_set_service(opts, "org.example.App") before passcode_open
  from Python: passcode.Store("org.example.App", service="org.example.App")
  the methods: busctl --address=$address introspect org.libpasscode.Passcode1 /org/libpasscode/Passcode1
  passcoded's log: $dir/passcoded.log; leave the shell (exit) to stop everything
TEXT
[ $# -gt 0 ] || set -- "${SHELL:-/bin/sh}"
run_as=${SUDO_USER:-root}
if [ "$run_as" = root ]; then
    DBUS_SYSTEM_BUS_ADDRESS=$address "$@"
else
    uid=$(id -u "$run_as") gid=$(id -g "$run_as")
    env DBUS_SYSTEM_BUS_ADDRESS="$address" HOME="$(getent passwd "$run_as" | cut -d: -f6)" USER="$run_as" \
        setpriv --reuid="$uid" --regid="$gid" --init-groups -- "$@"
fi
