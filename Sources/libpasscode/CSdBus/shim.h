/* sd-bus's types only (libsystemd-dev). No library is linked: in service mode libpasscode loads
 * libsystemd.so.0 with dlopen at the first passcode_open that names the service
 * (Sources/libpasscode/Passcode/ServiceClient.swift), so the NEEDED list of libpasscode.so stays as it is. */
#include <systemd/sd-bus.h>
