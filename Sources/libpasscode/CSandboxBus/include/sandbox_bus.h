/* The service client's connection inside a Flatpak or bubblewrap sandbox, whose system bus is
 * flatpak's xdg-dbus-proxy (sandbox_bus.c says why sd-bus is not given the socket to connect itself).
 *
 * The client (ServiceClient.swift, SdBusLibrary.openBus):
 *   1. sandbox_bus_connect: the proxy's socket connected, and a socket pair;
 *   2. gives sd-bus the pair's `bus_end` (sd_bus_set_fd; fds not negotiated) and starts it: sd-bus
 *      writes its whole authentication into the pair at once;
 *   3. sandbox_bus_handshake: that authentication sent to the proxy one line at a time, each
 *      answer awaited, then the proxy's socket put in the place of `bus_end` (dup3): sd-bus reads
 *      the proxy's answers itself and talks to the proxy directly from then on.
 * Nothing of the library's is left between sd-bus and the proxy: no thread, no buffer. These
 * functions are hidden (never exported by libpasscode.so). */
#ifndef PASSCODE_SANDBOX_BUS_H
#define PASSCODE_SANDBOX_BUS_H

#include <stdint.h>

typedef struct {
    int bus_end;  /* given to sd-bus, which closes it; after the handshake, the proxy's socket */
    int own_end;  /* the other end of the pair: where sd-bus's authentication is read */
    int proxy;    /* the proxy's socket, until the handshake moves it to bus_end */
} sandbox_bus_fds;

/* Connects to the Unix socket at `path` (non-blocking, close-on-exec) and makes the pair. 0, or
 * a negative errno with nothing left open. Waits at most `timeout_usec` for a full backlog. */
__attribute__((visibility("hidden"))) int sandbox_bus_connect(const char *path, uint64_t timeout_usec, sandbox_bus_fds *fds);

/* Plays what sd-bus wrote to `bus_end` to the proxy one line at a time, waiting (at most
 * `timeout_usec` in all) for the proxy's answer to each before the next, and `BEGIN` last; the
 * answers stay unread in the proxy's socket for sd-bus. Then the proxy's socket takes the number
 * of `bus_end`. `own_end` and `proxy` are closed in every case (-1 after); `bus_end` stays
 * sd-bus's. 0, or a negative errno: -ETIMEDOUT (the proxy did not answer), -ECONNRESET (it closed
 * the connection), -EPROTO (not a D-Bus authentication). */
__attribute__((visibility("hidden"))) int sandbox_bus_handshake(sandbox_bus_fds *fds, uint64_t timeout_usec);

/* Closes what is still open of `fds` (`bus_end` too when `with_bus_end`: sd-bus never took it). */
__attribute__((visibility("hidden"))) void sandbox_bus_abandon(sandbox_bus_fds *fds, int with_bus_end);

#endif
