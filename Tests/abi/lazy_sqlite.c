/* libsqlite3 is loaded at the first store opened, not when libpasscode is (Sources/shared/CSQLite/loader.c).
 *
 *   lazy_sqlite LIBRARY DIR          the library loads without SQLite; the version and a status's
 *                                    text need none; the first passcode_open maps libsqlite3.so.0
 *                                    once, and the store works (set, verify, a wrong guess).
 *   lazy_sqlite LIBRARY DIR missing  run where libsqlite3.so.0 cannot be loaded (Tests/abi/exports.sh
 *                                    runs it in a mount namespace with the file hidden): the open is
 *                                    PASSCODE_ERR_IO, its message says what is missing, and no
 *                                    file is left behind; asking again gives the same answer.
 *
 * Linked to neither libpasscode nor SQLite: both come only through dlopen here. Built a second
 * time with -DHOST_SQLITE (lazy_sqlite_host): a host that links a SQLite of its own statically
 * and exports it (-rdynamic). There the store runs on the host's SQLite, as it did when
 * libpasscode linked libsqlite3 (the dynamic loader bound its calls to the host's copy): no
 * libsqlite3.so.0 is loaded, libpasscode's checking VFS is registered in the host's copy, and
 * the host's SQLite still works after (loader.c: one SQLite per process). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HOST_SQLITE
#include <sqlite3.h>
#endif

#include "../c/testlib.h"

static int sqlite_mappings(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    REQUIRE(maps != NULL, "cannot read /proc/self/maps");
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, maps)) n += strstr(line, "/libsqlite3.so") != NULL;
    fclose(maps);
    return n;
}

int main(int argc, char **argv) {
    REQUIRE(argc == 3 || (argc == 4 && strcmp(argv[3], "missing") == 0), "usage: lazy_sqlite LIBRARY DIR [missing]");
    int missing = argc == 4;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    REQUIRE(h != NULL, "dlopen %s: %s", argv[1], dlerror());
    REQUIRE(sqlite_mappings() == 0, "libsqlite3 is mapped as soon as the library is loaded (NEEDED again?)");

    const char *(*version)(void);
    const char *(*strerror_)(int32_t);
    int32_t (*open_)(const char *, void *, void **);
    const char *(*errmsg)(void *);
    void (*close_)(void *);
    int32_t (*set)(void *, const char *, size_t);
    int32_t (*verify)(void *, const char *, size_t);
    /* (the POSIX idiom: ISO C has no conversion from dlsym's void * to a function pointer) */
    *(void **)&version = dlsym(h, "passcode_version_string");
    *(void **)&strerror_ = dlsym(h, "passcode_strerror");
    *(void **)&open_ = dlsym(h, "passcode_open");
    *(void **)&errmsg = dlsym(h, "passcode_errmsg");
    *(void **)&close_ = dlsym(h, "passcode_close");
    *(void **)&set = dlsym(h, "passcode_set");
    *(void **)&verify = dlsym(h, "passcode_verify");
    REQUIRE(version && strerror_ && open_ && errmsg && close_ && set && verify, "a function is missing from the library");
    REQUIRE(strlen(version()) >= 5 && strlen(strerror_(18)) > 0, "the version or a status's text is empty");
    REQUIRE(sqlite_mappings() == 0, "asking the version or a status's text loaded libsqlite3");

    char path[4096];
    snprintf(path, sizeof path, "%s/lazy.store", argv[2]);
    unlink(path);
    void *store = NULL;
    int32_t rc = open_(path, NULL, &store);
    if (missing) {
        const char *why = errmsg(NULL);
        REQUIRE(rc == 18, "open without SQLite: status %d (%s), not PASSCODE_ERR_IO (18)", rc, why);
        REQUIRE(store == NULL, "open without SQLite gave a handle");
        REQUIRE(strstr(why, "cannot load SQLite") && strstr(why, "libsqlite3.so.0"), "the message does not say what is missing: %s", why);
        struct stat st;
        REQUIRE(stat(path, &st) != 0, "a failed open left %s behind", path);
        REQUIRE(open_(path, NULL, &store) == 18 && strstr(errmsg(NULL), "cannot load SQLite"), "a second open answered differently");
        printf("lazy_sqlite: without libsqlite3.so.0: PASSCODE_ERR_IO, \"%s\"; no file made\n", why);
        return 0;
    }
    REQUIRE(rc == 0, "open: %d (%s)", rc, errmsg(NULL));
#ifdef HOST_SQLITE
    REQUIRE(sqlite_mappings() == 0, "libsqlite3.so.0 was loaded beside the host's own SQLite (two copies in one process)");
    REQUIRE(sqlite3_vfs_find("libpasscode-strict") != NULL, "the store does not run on the host's SQLite (its VFS is not there)");
#else
    REQUIRE(sqlite_mappings() > 0, "a store is open but libsqlite3 is not mapped");
#endif
    int maps_after_first = sqlite_mappings();
    REQUIRE(set(store, "258147", 6) == 0, "set: %s", errmsg(store));
    REQUIRE(verify(store, "111111", 6) == 4, "a wrong guess was not PASSCODE_ERR_WRONG_PASSCODE: %s", errmsg(store));
    REQUIRE(verify(store, "258147", 6) == 0, "verify: %s", errmsg(store));
    void *second = NULL;
    REQUIRE(open_(path, NULL, &second) == 0, "second open: %s", errmsg(NULL));
    REQUIRE(sqlite_mappings() == maps_after_first, "a second open mapped libsqlite3 again");
    close_(second);
    close_(store);
    unlink(path);
#ifdef HOST_SQLITE
    sqlite3 *db = NULL;
    REQUIRE(sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK
            && sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1)", NULL, NULL, NULL) == SQLITE_OK,
            "the host's own SQLite fails after a store was opened");
    sqlite3_close(db);
    printf("lazy_sqlite: in a host exporting its own static SQLite (%s), the store runs on it (no libsqlite3.so.0 loaded), and set, a wrong guess and verify work\n", sqlite3_libversion());
    return 0;
#endif
    printf("lazy_sqlite: loading the library maps no SQLite; the first open does, once; set, a wrong guess and verify work\n");
    return 0;
}
