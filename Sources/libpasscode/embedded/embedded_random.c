/* The one source of randomness the Embedded standard library calls: arc4random_buf, for the
 * seed of Swift's hashing (Dictionary and Set; not cryptography, which is libsodium's alone).
 * glibc has it only since 2.36, and binding it is one more import at every load: defined here,
 * hidden, on the getrandom system call (Linux 3.17), with libsodium's randombytes_buf when the
 * call is missing (a seccomp filter, say). Linked by scripts/embedded_build.sh only; the
 * EMBEDDED=0 build seeds its hashing in the Swift runtime. Tests/abi/random_check.c checks it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sodium.h>

__attribute__((visibility("hidden"))) void arc4random_buf(void *buf, size_t n) {
    unsigned char *p = buf;
    while (n > 0) {
        long got = syscall(SYS_getrandom, p, n, 0);
        if (got > 0) { p += got; n -= (size_t)got; continue; }
        if (got < 0 && errno == EINTR) continue;
        randombytes_buf(p, n);
        return;
    }
}
