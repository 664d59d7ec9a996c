/* The Linux kernel key retention service, through its two system calls. glibc has no wrappers
 * (libkeyutils does, but would add a run-time dependency), and Swift cannot call the variadic
 * syscall(2), so these small inline functions do. Each returns what the system call returns
 * (-1 with errno on failure). See keyrings(7), add_key(2), keyctl(2). */
#ifndef PASSCODE_KEYRING_H
#define PASSCODE_KEYRING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

enum {
    passcode_keyring_session = -3,          /* KEY_SPEC_SESSION_KEYRING */
    passcode_keyring_user_session = -5,     /* KEY_SPEC_USER_SESSION_KEYRING */
    passcode_keyctl_get_keyring_id = 0,     /* KEYCTL_GET_KEYRING_ID */
    passcode_keyctl_revoke = 3,             /* KEYCTL_REVOKE */
    passcode_keyctl_setperm = 5,            /* KEYCTL_SETPERM */
    passcode_keyctl_describe = 6,           /* KEYCTL_DESCRIBE */
    passcode_keyctl_search = 10,            /* KEYCTL_SEARCH */
    passcode_keyctl_read = 11,              /* KEYCTL_READ */
    passcode_keyctl_set_timeout = 15,       /* KEYCTL_SET_TIMEOUT */
    passcode_keyctl_invalidate = 21         /* KEYCTL_INVALIDATE */
};

/* Possessor: view, read, write, search, link, setattr; nobody else anything. */
#define PASSCODE_KEY_POSSESSOR_ONLY 0x3f000000u

static inline int32_t passcode_add_key(const char *type, const char *description, const void *payload,
                                       size_t length, int32_t keyring) {
    return (int32_t)syscall(SYS_add_key, type, description, payload, length, keyring);
}

static inline long passcode_keyctl(int operation, unsigned long a, unsigned long b, unsigned long c, unsigned long d) {
    return syscall(SYS_keyctl, operation, a, b, c, d);
}

#endif
