/* Sources/libpasscode/embedded/embedded_random.c's arc4random_buf (the Embedded library's own, the seed of Swift's
 * hashing, so that the library needs no glibc 2.36): it fills exactly the bytes asked for, the
 * bytes look random, and it still fills them when the getrandom system call is refused (a
 * seccomp filter here answers ENOSYS), through libsodium. The Makefile compiles
 * embedded_random.c with -Darc4random_buf=embedded_arc4random_buf, so glibc's is not in play. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../c/testlib.h"

void embedded_arc4random_buf(void *buf, size_t n);

static int fail(const char *what) {
    FAIL_MSG("random_check: %s", what);
    return 1;
}

/* Exactly n bytes written (the 16 canary bytes after them untouched), and two draws differ. */
static int fills(size_t n) {
    unsigned char a[4200], b[4200];
    memset(a, 0xA5, sizeof a);
    memset(b, 0xA5, sizeof b);
    embedded_arc4random_buf(a, n);
    embedded_arc4random_buf(b, n);
    for (size_t i = n; i < n + 16; i++)
        if (a[i] != 0xA5 || b[i] != 0xA5) return fail("bytes written past the length asked for");
    if (n >= 16 && memcmp(a, b, n) == 0) return fail("two draws gave the same bytes");
    return 0;
}

/* 1 MiB: every byte value near its expected count of 4096 (a broken fill, zeros or a
 * repeating pattern, is far outside; random bytes are within 600 with overwhelming odds). */
static int uniform(void) {
    static unsigned char big[1 << 20];
    unsigned long counts[256] = {0};
    embedded_arc4random_buf(big, sizeof big);
    for (size_t i = 0; i < sizeof big; i++) counts[big[i]]++;
    for (int v = 0; v < 256; v++)
        if (counts[v] < 4096 - 600 || counts[v] > 4096 + 600) return fail("the byte values are far from uniform");
    return 0;
}

/* In a child: getrandom answers ENOSYS from now on, as under a seccomp filter that lacks it. */
static int refuse_getrandom(void) {
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getrandom, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof code / sizeof code[0], code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(void) {
    const size_t sizes[] = {0, 1, 7, 8, 16, 33, 256, 4097};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (fills(sizes[i])) return 1;
    if (uniform()) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        if (refuse_getrandom() != 0) { perror("random_check: seccomp"); _exit(2); }
        unsigned char probe[8];
        if (syscall(SYS_getrandom, probe, sizeof probe, 0) != -1 || errno != ENOSYS) _exit(3);
        _exit(fills(64) || fills(4097) || uniform() ? 1 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) == 1) return fail("with getrandom refused, the fill is wrong or crashed");
    if (WEXITSTATUS(st) != 0) return fail("the seccomp filter that refuses getrandom could not be set up");
    printf("random_check: the Embedded library's arc4random_buf fills exactly what is asked, uniformly, "
           "with getrandom and with it refused (libsodium)\n");
    return 0;
}
