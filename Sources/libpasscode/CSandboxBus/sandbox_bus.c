/* The service client's connection through flatpak's xdg-dbus-proxy (include/sandbox_bus.h).
 *
 * sd-bus authenticates in one write: "\0AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\n" (older versions:
 * "\0AUTH EXTERNAL <hex uid>\r\n", with "NEGOTIATE_UNIX_FD\r\n" when fds are negotiated), BEGIN
 * sent before the bus said OK. xdg-dbus-proxy before 0.1.6 takes BEGIN as the end of the
 * authentication on both sides, reads the bus's answers that follow as messages ("Invalid message
 * header read") and ends the connection: sd-bus then fails with ENOTCONN. A client that sends a
 * line and waits for its answer before the next (as libdbus and GDBus do) passes every version.
 *
 * So inside a sandbox the client connects to the proxy itself and gives sd-bus one end of a
 * socket pair. sd-bus writes its authentication there and waits for answers; the handshake below
 * sends each of its lines to the proxy and waits until the proxy's answer to it has arrived,
 * without reading it (MSG_PEEK), then sends the next; BEGIN goes last, when every answer is there.
 * Then dup3 puts the proxy's socket at the number sd-bus holds: sd-bus reads the answers to what
 * it wrote from the proxy's socket itself, checks them as it always does (the OK and its guid, the
 * fds' AGREE), and from then on talks to the proxy with no one in between. So no thread runs, no
 * message (and no passcode) passes through a buffer of the library's, a child made by fork()
 * inherits one socket as outside a sandbox, and closing the bus closes the one socket there is.
 * Only the authentication's lines are read here: the uid's text, nothing secret.
 *
 * The proxy sees this process's credentials (SO_PEERCRED of the connect), as it would sd-bus's. */
#define _GNU_SOURCE
#include "include/sandbox_bus.h"  /* the Embedded build compiles this file without the target's include path */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The authentication sd-bus writes is a few dozen bytes; the proxy's answers as many. */
#define AUTH_MAX 512
#define ANSWERS_MAX 1024

static uint64_t now_usec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Milliseconds left until `deadline` for poll, rounded up; 0 once it passed. */
static int left_ms(uint64_t deadline) {
    uint64_t now = now_usec();
    if (now >= deadline) return 0;
    uint64_t ms = (deadline - now + 999) / 1000;
    return ms > 60000 ? 60000 : (int)ms;
}

/* Waits until `fd` is ready for `events`: 1, 0 at the deadline, or a negative errno. */
static int wait_for(int fd, short events, uint64_t deadline) {
    for (;;) {
        int ms = left_ms(deadline);
        if (ms == 0) return 0;
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, ms);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -errno;
        if (r > 0) return 1;
    }
}

static void sleep_ms(long ms) {
    struct timespec ts = {.tv_sec = 0, .tv_nsec = ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

void sandbox_bus_abandon(sandbox_bus_fds *fds, int with_bus_end) {
    if (with_bus_end) close_fd(&fds->bus_end);
    close_fd(&fds->own_end);
    close_fd(&fds->proxy);
}

int sandbox_bus_connect(const char *path, uint64_t timeout_usec, sandbox_bus_fds *fds) {
    fds->bus_end = fds->own_end = fds->proxy = -1;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = strlen(path);
    if (length >= sizeof address.sun_path) return -ENAMETOOLONG;
    memcpy(address.sun_path, path, length + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    uint64_t deadline = now_usec() + timeout_usec;
    /* A Unix socket connects at once or fails; EAGAIN is a full backlog: tried again until the deadline. */
    while (connect(fd, (const struct sockaddr *)&address, sizeof address) < 0) {
        int e = errno;
        if (e == EINTR) continue;
        if (e != EAGAIN || left_ms(deadline) == 0) {
            close(fd);
            return e == EAGAIN ? -ETIMEDOUT : -e;
        }
        sleep_ms(10);
    }
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    fds->bus_end = pair[0];
    fds->own_end = pair[1];
    fds->proxy = fd;
    return 0;
}

/* Sends all of `data` to `fd` by the deadline: 0, or a negative errno. */
static int send_all(int fd, const char *data, size_t size, uint64_t deadline) {
    while (size > 0) {
        ssize_t n = send(fd, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN) return errno == EPIPE ? -ECONNRESET : -errno;
            int r = wait_for(fd, POLLOUT, deadline);
            if (r <= 0) return r < 0 ? r : -ETIMEDOUT;
            continue;
        }
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

/* The number of complete lines ("\r\n") at the start of `data`. */
static int count_lines(const char *data, size_t size) {
    int lines = 0;
    for (size_t i = 0; i + 1 < size; i++)
        if (data[i] == '\r' && data[i + 1] == '\n') lines++;
    return lines;
}

/* Waits until `fd` holds `lines` complete answer lines, none of them read: 0, or a negative errno. */
static int await_answers(int fd, int lines, uint64_t deadline) {
    char seen[ANSWERS_MAX];
    for (;;) {
        int r = wait_for(fd, POLLIN, deadline);
        if (r < 0) return r;
        if (r == 0) return -ETIMEDOUT;
        ssize_t n = recv(fd, seen, sizeof seen, MSG_PEEK | MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n < 0) return -errno;
        if (n == 0) return -ECONNRESET;
        if (count_lines(seen, (size_t)n) >= lines) return 0;
        if ((size_t)n == sizeof seen) return -EPROTO;
        /* Part of an answer: the socket stays readable, so poll would not wait for the rest. */
        if (left_ms(deadline) == 0) return -ETIMEDOUT;
        sleep_ms(1);
    }
}

/* Reads what sd-bus wrote to the pair, up to and with its "BEGIN\r\n" line. Its size, or a negative errno. */
static ssize_t read_authentication(int fd, char *auth, size_t capacity, uint64_t deadline) {
    size_t size = 0;
    for (;;) {
        ssize_t n = recv(fd, auth + size, capacity - size, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN) return -errno;
        if (n == 0) return -ECONNRESET;
        if (n > 0) size += (size_t)n;
        if (size >= 7 && memcmp(auth + size - 7, "BEGIN\r\n", 7) == 0) return (ssize_t)size;
        if (size == capacity) return -EPROTO;
        if (n < 0) {
            int r = wait_for(fd, POLLIN, deadline);
            if (r < 0) return r;
            if (r == 0) return -ETIMEDOUT;
        }
    }
}

int sandbox_bus_handshake(sandbox_bus_fds *fds, uint64_t timeout_usec) {
    uint64_t deadline = now_usec() + timeout_usec;
    char auth[AUTH_MAX];
    ssize_t size = read_authentication(fds->own_end, auth, sizeof auth, deadline);
    int r = size < 0 ? (int)size : 0;
    /* A D-Bus client starts with one NUL byte, then its AUTH command. */
    if (r == 0 && (size < 6 || memcmp(auth, "\0AUTH ", 6) != 0)) r = -EPROTO;
    const char *line = auth, *end = auth + (size > 0 ? size : 0);
    int answers = 0;
    while (r == 0 && line < end) {
        const char *eol = memmem(line, (size_t)(end - line), "\r\n", 2);
        if (!eol) {
            r = -EPROTO;
            break;
        }
        size_t length = (size_t)(eol + 2 - line);
        int begin = length == 7 && memcmp(line, "BEGIN\r\n", 7) == 0;
        r = send_all(fds->proxy, line, length, deadline);
        line += length;
        if (r < 0 || begin) break;
        /* Every command but BEGIN has one answer line; the next goes once it is there. */
        r = await_answers(fds->proxy, ++answers, deadline);
    }
    if (r == 0 && line != end) r = -EPROTO;  /* BEGIN was not the last line */
    if (r == 0 && dup3(fds->proxy, fds->bus_end, O_CLOEXEC) < 0) r = -errno;
    sandbox_bus_abandon(fds, 0);
    return r;
}
