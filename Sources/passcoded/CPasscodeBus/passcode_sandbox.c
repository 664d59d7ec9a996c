// The sandbox reader (include/passcode_sandbox.h). A caller in a Flatpak reaches the system bus
// through xdg-dbus-proxy, which runs in a bubblewrap of its own holding the app's /.flatpak-info:
// the pid the bus reports is the proxy's, and that file, read through /proc/<pid>/root, names
// the app. passcoded runs as its own user, and /proc/<pid>/root of another uid's process needs
// ptrace access: a helper forked while root does the reading, keeping uid 0 with CAP_SYS_PTRACE
// and CAP_DAC_READ_SEARCH alone. Each question is answered by a child of the helper that dies
// after two seconds, so that a file on a filesystem that never answers (FUSE) holds no one.
#define _GNU_SOURCE
#include "passcode_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/// The most bytes of a /.flatpak-info read: flatpak writes a few hundred.
#define INFO_MAX 65536

struct request {
    uint32_t serial;
    int32_t pid;
    uint32_t uid;  // the caller's, as the bus reports it: one worker per uid at most
};

struct answer {
    uint32_t serial;
    int32_t code;
    char id[PASSCODE_SANDBOX_ID_MAX + 1];
    char message[256];
};

static int say(char *message, size_t size, int code, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    if (message && size) vsnprintf(message, size, format, ap);
    va_end(ap);
    return code;
}

int passcode_sandbox_id_valid(const char *text, size_t n) {
    if (n == 0 || n > PASSCODE_SANDBOX_ID_MAX) return 0;
    size_t elements = 1, start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || text[i] == '.') {
            if (i == start) return 0;  // an empty element: "..", or a dot first or last
            if (text[start] >= '0' && text[start] <= '9') return 0;
            if (i < n) elements++;
            start = i + 1;
            continue;
        }
        char c = text[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (!ok) return 0;
    }
    // '-' in the last element only (as flatpak_is_valid_name).
    const char *last_dot = memrchr(text, '.', n);
    if (last_dot && memchr(text, '-', (size_t)(last_dot - text))) return 0;
    return elements >= 3;
}

static const char *trim(const char *s, const char *end, const char **out_end) {
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    *out_end = end;
    return s;
}

int passcode_sandbox_parse_info(const char *text, size_t n, char *id, size_t id_size, char *message, size_t message_size) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == 0 || (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f)
            return say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the sandbox's /.flatpak-info holds binary data (a control byte at offset %zu)", i);
    }
    int in_application = 0, names = 0;
    const char *name = NULL, *name_end = NULL;
    const char *p = text, *end = text + n;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        const char *line_end;
        const char *line = trim(p, eol, &line_end);
        if (line < line_end && line[0] == '[') {
            in_application = (size_t)(line_end - line) == strlen("[Application]") && memcmp(line, "[Application]", strlen("[Application]")) == 0;
        } else if (in_application && line < line_end && line[0] != '#') {
            const char *eq = memchr(line, '=', (size_t)(line_end - line));
            if (eq) {
                const char *key_end;
                const char *key = trim(line, eq, &key_end);
                if ((size_t)(key_end - key) == 4 && memcmp(key, "name", 4) == 0) {
                    names++;
                    name = trim(eq + 1, line_end, &name_end);
                }
            }
        }
        p = eol < end ? eol + 1 : end;
    }
    if (names == 0) return say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the sandbox's /.flatpak-info has no name in an [Application] group");
    if (names > 1) return say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the sandbox's /.flatpak-info names its application %d times", names);
    size_t len = (size_t)(name_end - name);
    if (len > PASSCODE_SANDBOX_ID_MAX)
        return say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the sandbox's /.flatpak-info names an app id of %zu bytes, more than %d", len, PASSCODE_SANDBOX_ID_MAX);
    if (!passcode_sandbox_id_valid(name, len))
        return say(message, message_size, PASSCODE_SANDBOX_MALFORMED,
                   "the sandbox's /.flatpak-info names no valid app id (%zu bytes; at least three elements of A-Z a-z 0-9 _ -, separated by dots)", len);
    if (id_size <= len) return say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the app id does not fit");
    memcpy(id, name, len);
    id[len] = 0;
    return PASSCODE_SANDBOX_APP;
}

/// The start time of `pid` (field 22 of /proc/<pid>/stat, in clock ticks since boot), 0 if unknown.
static unsigned long long start_time(pid_t pid) {
    char path[64], buffer[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n <= 0) return 0;
    buffer[n] = 0;
    char *p = strrchr(buffer, ')');
    if (!p) return 0;
    p++;
    for (int field = 2; field < 21 && p; field++) p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

/// The filesystem type of the mount that `fd` (a descriptor of this process, opened under the
/// root of `pid`) is on: its mount id from /proc/self/fdinfo, that mount's line in
/// /proc/<pid>/mountinfo. Neither read asks a filesystem, and the mount is the one the descriptor
/// reached (not the last line for a path: a moved mount keeps its place in the table).
/// 0 with the type in `out`; -1 when the mount is not in the table or a line is over-long.
static int mount_type(pid_t pid, int fd, char *out, size_t size) {
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    long mnt = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "mnt_id:", 7) == 0) mnt = strtol(line + 7, NULL, 10);
    fclose(f);
    if (mnt < 0) return -1;
    snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)pid);
    f = fopen(path, "re");
    if (!f) return -1;
    out[0] = 0;
    while (fgets(line, sizeof line, f)) {
        // A line longer than the buffer would be read in pieces, each parsed as a line of its own:
        // such a table (no sandbox has one) is not read further.
        if (!strchr(line, '\n') && !feof(f)) break;
        // id parent major:minor root mount-point options [optional...] - type source super-options
        char *save = NULL, *p = strtok_r(line, " ", &save);
        if (!p || strtol(p, NULL, 10) != mnt) continue;
        while (p && strcmp(p, "-") != 0) p = strtok_r(NULL, " ", &save);
        char *type = p ? strtok_r(NULL, " ", &save) : NULL;
        if (type) snprintf(out, size, "%s", type);
        break;
    }
    fclose(f);
    return out[0] ? 0 : -1;
}

/// Whether a filesystem of type `t` may keep a reader waiting as long as its user likes: FUSE, or
/// an overlay (which a user namespace may mount, and which may stack a FUSE mount).
static int stalls(const char *t) {
    return strncmp(t, "fuse", 4) == 0 || strcmp(t, "overlay") == 0 || strncmp(t, "overlay.", 8) == 0;
}

/// Whether a file on a filesystem of type `t` is read as /.flatpak-info: memory and disk
/// filesystems only, whose reads no user holds. A file of proc, sysfs, cgroup or the like is
/// made by the kernel as it is read, and some of its reads wait on locks a user's own process
/// can hold for as long as it likes (an epoll's fdinfo, while the epoll waits on FUSE).
/// Flatpak's /.flatpak-info is on a tmpfs.
static int ordinary(const char *t) {
    static const char *const types[] = {"tmpfs", "ramfs", "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "zfs", "bcachefs"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t, types[i]) == 0) return 1;
    return 0;
}

/// What the worker answers about `pid`.
static int read_app(pid_t pid, char *id, size_t id_size, char *message, size_t message_size) {
    // The pid is pinned first (a pidfd), then read, then checked still to be the same process:
    // alive through the pidfd, with the start time it had. A pid reused during the read fails here.
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) return say(message, message_size, PASSCODE_SANDBOX_UNVERIFIED, "the calling process (pid %d) is gone", (int)pid);
    unsigned long long started = start_time(pid);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/root", (int)pid);
    int root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0 || started == 0) {
        int e = errno;
        close(pidfd);
        return say(message, message_size, PASSCODE_SANDBOX_UNVERIFIED, "the calling process's root cannot be opened (%s)", strerror(e));
    }
    // A FUSE filesystem answers when its user likes, and an overlay (which a user namespace may
    // mount) may stack one: nothing on either is looked up or read. The root's mount is checked
    // before the name is looked up in it, and the mount the name reached before the file is asked
    // anything (each by the mount the descriptor is on). So is one the mount table does not name
    // (a root moved into a directory of a mount the process cannot see). The alarm of the worker,
    // and the helper's own bound, are the bound for any other that hangs. Flatpak's /.flatpak-info
    // is on a tmpfs.
    char fstype[64];
    if (mount_type(pid, root, fstype, sizeof fstype) != 0 || stalls(fstype)) {
        int known = fstype[0] != 0;
        close(root);
        close(pidfd);
        return known ? say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the caller's root is on a %s filesystem (%s), which is not read",
                           fstype[0] == 'f' ? "FUSE" : "stacked (overlay)", fstype)
                     : say(message, message_size, PASSCODE_SANDBOX_MALFORMED,
                           "the filesystem of the caller's root cannot be told from its mount table, so nothing under it is read");
    }
    int code;
    int f = openat(root, ".flatpak-info", O_PATH | O_NOFOLLOW | O_CLOEXEC);
    close(root);
    if (f >= 0 && (mount_type(pid, f, fstype, sizeof fstype) != 0 || !ordinary(fstype))) {
        int known = fstype[0] != 0;
        close(f);
        close(pidfd);
        if (!known)
            return say(message, message_size, PASSCODE_SANDBOX_MALFORMED,
                       "the filesystem that holds the caller's /.flatpak-info cannot be told from its mount table, so the file is not read");
        if (stalls(fstype))
            return say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the sandbox's /.flatpak-info is on a %s filesystem (%s), which is not read",
                       fstype[0] == 'f' ? "FUSE" : "stacked (overlay)", fstype);
        return say(message, message_size, PASSCODE_SANDBOX_MALFORMED,
                   "the sandbox's /.flatpak-info is on a %s filesystem, which is not read (only a memory or disk filesystem's file is)", fstype);
    }
    struct stat st;
    if (f < 0) {
        code = errno == ENOENT ? PASSCODE_SANDBOX_NONE
                               : say(message, message_size, PASSCODE_SANDBOX_UNVERIFIED, "the sandbox's /.flatpak-info cannot be opened (%s)", strerror(errno));
    } else if (fstat(f, &st) != 0) {
        code = say(message, message_size, PASSCODE_SANDBOX_UNVERIFIED, "the sandbox's /.flatpak-info cannot be read (%s)", strerror(errno));
    } else if (S_ISLNK(st.st_mode)) {
        code = say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the sandbox's /.flatpak-info is a symbolic link");
    } else if (!S_ISREG(st.st_mode)) {
        code = say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the sandbox's /.flatpak-info is not a regular file");
    } else if (st.st_size > INFO_MAX) {
        code = say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the sandbox's /.flatpak-info is %lld bytes, more than %d",
                   (long long)st.st_size, INFO_MAX);
    } else {
        // Reopened for reading through the O_PATH descriptor: what was checked is what is read.
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", f);
        int rf = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (rf < 0) {
            code = say(message, message_size, PASSCODE_SANDBOX_UNVERIFIED, "the sandbox's /.flatpak-info cannot be read (%s)", strerror(errno));
        } else {
            char *buffer = malloc(INFO_MAX + 1);
            size_t total = 0;
            ssize_t n = 0;
            while (buffer && total <= INFO_MAX && (n = read(rf, buffer + total, INFO_MAX + 1 - total)) > 0) total += (size_t)n;
            close(rf);
            if (!buffer || n < 0) {
                code = say(message, message_size, PASSCODE_SANDBOX_UNVERIFIED, "the sandbox's /.flatpak-info cannot be read");
            } else if (total > INFO_MAX) {
                code = say(message, message_size, PASSCODE_SANDBOX_MALFORMED, "the sandbox's /.flatpak-info is more than %d bytes", INFO_MAX);
            } else {
                code = passcode_sandbox_parse_info(buffer, total, id, id_size, message, message_size);
            }
            free(buffer);
        }
    }
    if (f >= 0) close(f);
    // A pidfd turns readable when its process exits (a signal 0 would need CAP_KILL).
    struct pollfd exited = {.fd = pidfd, .events = POLLIN};
    int alive = poll(&exited, 1, 0) == 0 && start_time(pid) == started;
    close(pidfd);
    if (!alive) return say(message, message_size, PASSCODE_SANDBOX_UNVERIFIED, "the calling process (pid %d) ended or was replaced while it was read", (int)pid);
    return code;
}

/// Keeps uid 0 with CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH alone, for good.
static int keep_reading_rights(void) {
    for (int cap = 0; cap < 64; cap++) {
        if (cap == CAP_SYS_PTRACE || cap == CAP_DAC_READ_SEARCH) continue;
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return -1;
    }
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    uint32_t keep = (1u << CAP_SYS_PTRACE) | (1u << CAP_DAC_READ_SEARCH);
    data[0].effective = data[0].permitted = keep;
    if (syscall(SYS_capset, &header, data) != 0) return -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    // No core dump and no ptrace by passcoded's user of a process that keeps these rights.
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return -1;
    return 0;
}

static void write_all(int fd, const void *data, size_t size) {
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(1);
        p += n;
        size -= (size_t)n;
    }
}

/// A question the helper is working on: its worker, the pipe of the worker's answer, and when it began.
struct job {
    uint32_t serial;
    uint32_t uid;
    pid_t worker;  // 0: the slot is free
    int dead;      // answered and killed, not yet reaped (a worker the kernel holds): its slot stays taken
    int pipe;
    struct timespec begun;
    size_t got;
    struct answer answer;
};

/// At most this many questions are read at once, each by a worker of its own: passcoded has at
/// most one question out per uid, so a uid whose sandbox is slow to read (2.5 s at most) holds its
/// own worker, not the others' questions. Past it, a question is answered at once: busy. A worker
/// is killed when it is done or out of time and reaped when the kernel lets it go, never waited
/// for: until then its uid's next question is refused at once, so one uid holds one slot at most.
#define HELPER_WORKERS 32
#define HELPER_WAIT_MS 2500

static long elapsed_ms(const struct timespec *since) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/// Ends `j`: its answer (or the refusal of a worker that did not answer in time) sent to passcoded,
/// its pipe closed, its worker killed and reaped if it is gone already (else later: reap()).
static void finish(int fd, struct job *j) {
    struct answer a;
    memset(&a, 0, sizeof a);
    a.serial = j->serial;
    if (j->got == sizeof j->answer) {
        a.code = j->answer.code;
        memcpy(a.id, j->answer.id, sizeof a.id);
        memcpy(a.message, j->answer.message, sizeof a.message);
        a.id[sizeof a.id - 1] = 0;
        a.message[sizeof a.message - 1] = 0;
    } else {
        a.code = say(a.message, sizeof a.message, PASSCODE_SANDBOX_UNVERIFIED, "the calling process could not be read within 2 seconds");
    }
    close(j->pipe);
    j->pipe = -1;
    kill(j->worker, SIGKILL);
    j->dead = 1;
    // A worker that answered is gone within a moment; one the kernel holds (a wait it does not
    // interrupt) is left after 20 ms, to be reaped when it goes.
    for (int i = 0; i < 20 && j->worker; i++) {
        if (waitpid(j->worker, NULL, WNOHANG) == j->worker) j->worker = 0;
        else nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
    write_all(fd, &a, sizeof a);
}

/// Reaps the killed workers the kernel has let go; whether any is still held.
static int reap(struct job *jobs) {
    int held = 0;
    for (int i = 0; i < HELPER_WORKERS; i++) {
        if (!jobs[i].worker || !jobs[i].dead) continue;
        if (waitpid(jobs[i].worker, NULL, WNOHANG) == jobs[i].worker) jobs[i].worker = 0;
        else held = 1;
    }
    return held;
}

static void helper_loop(int fd) {
    struct job jobs[HELPER_WORKERS];
    memset(jobs, 0, sizeof jobs);
    for (;;) {
        // Wait for a question or a worker's answer, at most until the earliest worker's deadline
        // (and a tenth of a second while a killed worker waits to be reaped).
        int held = reap(jobs);
        struct pollfd p[HELPER_WORKERS + 1];
        int index[HELPER_WORKERS + 1];
        int count = 0, busy = 0;
        long wait = held ? 100 : -1;
        p[count++] = (struct pollfd){.fd = fd, .events = POLLIN};
        for (int i = 0; i < HELPER_WORKERS; i++) {
            if (!jobs[i].worker) continue;
            busy++;
            if (jobs[i].dead) continue;
            long left = HELPER_WAIT_MS - elapsed_ms(&jobs[i].begun);
            if (left < 0) left = 0;
            if (wait < 0 || left < wait) wait = left;
            index[count] = i;
            p[count++] = (struct pollfd){.fd = jobs[i].pipe, .events = POLLIN};
        }
        int r = poll(p, (nfds_t)count, (int)wait);
        if (r < 0 && errno != EINTR) _exit(0);
        for (int k = 1; r > 0 && k < count; k++) {
            struct job *j = &jobs[index[k]];
            if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(j->pipe, (char *)&j->answer + j->got, sizeof j->answer - j->got);
            if (n < 0 && errno == EINTR) continue;
            if (n > 0) j->got += (size_t)n;
            if (n <= 0 || j->got == sizeof j->answer) finish(fd, j);
        }
        // A worker past its time is killed, whatever it does (its alarm may be held off: a stopped
        // worker, a read the kernel does not interrupt).
        for (int i = 0; i < HELPER_WORKERS; i++)
            if (jobs[i].worker && !jobs[i].dead && elapsed_ms(&jobs[i].begun) >= HELPER_WAIT_MS) finish(fd, &jobs[i]);
        if (r <= 0 || !(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;

        struct request req;
        ssize_t n = recv(fd, &req, sizeof req, MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n != (ssize_t)sizeof req) _exit(0);  // passcoded is gone (or wrote nonsense)
        struct answer a;
        memset(&a, 0, sizeof a);
        a.serial = req.serial;
        // passcoded asks one question of a uid at a time: a worker still reading for this uid is
        // for a question passcoded gave up on (out of its time), and is ended now; one the kernel
        // still holds after it was killed keeps its slot, and the uid waits for it.
        int same_uid = 0;
        for (int i = 0; i < HELPER_WORKERS; i++) {
            if (!jobs[i].worker || jobs[i].uid != req.uid) continue;
            if (!jobs[i].dead) finish(fd, &jobs[i]);
            if (jobs[i].worker) same_uid = 1;
        }
        int slot = -1;
        for (int i = 0; i < HELPER_WORKERS && slot < 0; i++)
            if (!jobs[i].worker) slot = i;
        int pipefd[2];
        if (req.pid <= 0) {
            a.code = say(a.message, sizeof a.message, PASSCODE_SANDBOX_UNVERIFIED, "no process to read");
            write_all(fd, &a, sizeof a);
            continue;
        }
        if (same_uid) {
            a.code = say(a.message, sizeof a.message, PASSCODE_SANDBOX_UNAVAILABLE, "a process of this user read earlier still holds the sandbox reader");
            write_all(fd, &a, sizeof a);
            continue;
        }
        if (slot < 0 || pipe2(pipefd, O_CLOEXEC) != 0) {
            a.code = say(a.message, sizeof a.message, PASSCODE_SANDBOX_UNAVAILABLE, "the sandbox reader is reading %d callers already", busy);
            write_all(fd, &a, sizeof a);
            continue;
        }
        pid_t worker = fork();
        if (worker == 0) {
            close(pipefd[0]);
            close(fd);
            for (int i = 0; i < HELPER_WORKERS; i++)
                if (jobs[i].worker && jobs[i].pipe >= 0) close(jobs[i].pipe);
            alarm(2);  // a read that hangs (a FUSE filesystem) ends with the worker
            struct answer w;
            memset(&w, 0, sizeof w);
            w.code = read_app(req.pid, w.id, sizeof w.id, w.message, sizeof w.message);
            write_all(pipefd[1], &w, sizeof w);
            _exit(0);
        }
        close(pipefd[1]);
        if (worker < 0) {
            close(pipefd[0]);
            a.code = say(a.message, sizeof a.message, PASSCODE_SANDBOX_UNAVAILABLE, "the sandbox reader cannot start a worker");
            write_all(fd, &a, sizeof a);
            continue;
        }
        struct job *j = &jobs[slot];
        memset(j, 0, sizeof *j);
        j->serial = req.serial;
        j->uid = req.uid;
        j->worker = worker;
        j->pipe = pipefd[0];
        clock_gettime(CLOCK_MONOTONIC, &j->begun);
    }
}

int passcode_sandbox_helper_start(void) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return -1;
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        int e = errno;
        close(pair[0]);
        close(pair[1]);
        errno = e;
        return -1;
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (getppid() != parent) _exit(0);
        prctl(PR_SET_NAME, "passcoded-sandbox", 0, 0, 0);
        // Only its end of the pair (moved to 3) and standard error stay open.
        int fd = pair[1];
        if (fd != 3) {
            if (dup2(fd, 3) != 3) _exit(1);
            fd = 3;
        }
        int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 1);
        }
        syscall(SYS_close_range, 4, ~0U, 0);
        signal(SIGPIPE, SIG_IGN);
        signal(SIGCHLD, SIG_DFL);
        if (keep_reading_rights() != 0) {
            dprintf(2, "passcoded: the sandbox reader cannot keep CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH alone: %s\n", strerror(errno));
            _exit(1);
        }
        char ready = 1;  // passcoded starts only once the helper holds what it needs, and nothing more
        if (send(fd, &ready, 1, MSG_NOSIGNAL) != 1) _exit(1);
        helper_loop(fd);
        _exit(0);
    }
    close(pair[1]);
    // Its first word: ready, or the socket closed because it could not take its rights.
    char ready = 0;
    struct pollfd p = {.fd = pair[0], .events = POLLIN};
    int r;
    do {
        r = poll(&p, 1, 5000);
    } while (r < 0 && errno == EINTR);
    if (r != 1 || recv(pair[0], &ready, 1, 0) != 1 || ready != 1) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        close(pair[0]);
        errno = EPERM;
        return -1;
    }
    return pair[0];
}

static uint32_t next_serial;

/// The helper's answer `a` as its caller takes it: the app id (checked again on this side: the
/// helper's answer is trusted no further than the rule) or the message, and the verdict.
static int verdict(struct answer *a, char *id, size_t id_size, char *message, size_t message_size) {
    a->id[sizeof a->id - 1] = 0;
    a->message[sizeof a->message - 1] = 0;
    if (a->code == PASSCODE_SANDBOX_APP) {
        size_t len = strlen(a->id);
        if (!passcode_sandbox_id_valid(a->id, len) || len >= id_size)
            return say(message, message_size, PASSCODE_SANDBOX_UNVERIFIED, "the sandbox reader answered no valid app id");
        memcpy(id, a->id, len + 1);
        return a->code;
    }
    if (a->code < PASSCODE_SANDBOX_NONE || a->code > PASSCODE_SANDBOX_UNAVAILABLE)
        return say(message, message_size, PASSCODE_SANDBOX_UNVERIFIED, "the sandbox reader answered no known verdict");
    if (message && message_size) snprintf(message, message_size, "%s", a->message);
    return a->code;
}

int passcode_sandbox_query(int fd, pid_t pid, int timeout_ms, char *id, size_t id_size, char *message, size_t message_size) {
    if (fd < 0) return say(message, message_size, PASSCODE_SANDBOX_UNAVAILABLE, "the sandbox reader is not running");
    struct request req = {.serial = ++next_serial, .pid = pid};
    ssize_t n;
    do {
        n = send(fd, &req, sizeof req, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof req) return say(message, message_size, PASSCODE_SANDBOX_UNAVAILABLE, "the sandbox reader is not running");
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, timeout_ms);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return say(message, message_size, PASSCODE_SANDBOX_UNAVAILABLE, "the sandbox reader did not answer in time");
        struct answer a;
        n = recv(fd, &a, sizeof a, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n != (ssize_t)sizeof a) return say(message, message_size, PASSCODE_SANDBOX_UNAVAILABLE, "the sandbox reader is not running");
        if (a.serial != req.serial) continue;  // the late answer of an earlier question
        return verdict(&a, id, id_size, message, message_size);
    }
}

int passcode_sandbox_ask(int fd, uint32_t serial, pid_t pid, uid_t uid) {
    if (fd < 0) return -EBADF;
    struct request req = {.serial = serial, .pid = pid, .uid = uid};
    ssize_t n;
    do {
        n = send(fd, &req, sizeof req, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return -errno;
    return n == (ssize_t)sizeof req ? 0 : -EIO;
}

int passcode_sandbox_take(int fd, uint32_t *serial, char *id, size_t id_size, char *message, size_t message_size) {
    if (fd < 0) return -EBADF;
    struct answer a;
    ssize_t n;
    do {
        n = recv(fd, &a, sizeof a, MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
    if (n != (ssize_t)sizeof a) return -EPIPE;  // the helper is gone (0), or wrote nonsense
    *serial = a.serial;
    return verdict(&a, id, id_size, message, message_size);
}
