/* The C library as libpasscode's Swift code uses it, without Swift's Glibc module: the same
 * sources build with the full Swift runtime and with Embedded Swift, which has no Glibc module.
 * The headers below are imported as they are; what Swift cannot import from them (errno is a
 * macro over a function, open/openat/fcntl are variadic, the S_IF* file types are macros of
 * another type than st_mode) is written here once, as small inline functions and constants. */
#ifndef PASSCODE_SHIMS_H
#define PASSCODE_SHIMS_H

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static inline int shim_errno(void) { return errno; }
static inline void shim_set_errno(int value) { errno = value; }

/* open(2), openat(2) and fcntl(2) with their optional argument always given. */
static inline int shim_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }
static inline int shim_openat(int dir, const char *path, int flags, mode_t mode) {
    return openat(dir, path, flags, mode);
}
static inline int shim_fcntl(int fd, int command, long argument) { return fcntl(fd, command, argument); }

/* The file types of st_mode, as mode_t. */
static const mode_t shim_s_ifmt = S_IFMT;
static const mode_t shim_s_ifreg = S_IFREG;
static const mode_t shim_s_ifdir = S_IFDIR;
static const mode_t shim_s_iflnk = S_IFLNK;

#endif
