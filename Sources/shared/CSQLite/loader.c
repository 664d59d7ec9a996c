/* libsqlite3.so.0, loaded at the first store opened rather than linked.
 *
 * Debian's libsqlite3 is linked with BIND_NOW and calls its own exported functions through its
 * PLT, so loading it binds about 1,700 symbols: 0.3 ms, three times libsodium's whole load. A
 * program that links libpasscode and never opens a store (one that only asks the version, or a
 * status's message) should not pay that, nor a program at its start before the lock screen is
 * needed. So the library defines the sqlite3_* functions it calls here, each forwarding to
 * the function of the same name in libsqlite3.so.0, found by dlsym when csqlite_load first runs
 * (before the first sqlite3_open_v2: Store/SQLite.swift).
 *
 * The same SQLite a link would give, and one SQLite per process (two copies break each other's
 * POSIX locks on a file both open):
 *  - When the process's global scope has SQLite already (the host links libsqlite3, or links a
 *    SQLite statically and exports it, -rdynamic or a plugin host's export list), its functions
 *    are taken from there (dlsym(RTLD_DEFAULT, ...)), which is what the dynamic loader bound a
 *    linked libpasscode's calls to. libsqlite3's own calls to its exported functions (it calls
 *    sqlite3_initialize, sqlite3_malloc, sqlite3_vfs_register... through its PLT) are bound to
 *    that global copy first too, so using libsqlite3.so.0's functions there would mix two
 *    copies' state (every open then fails: "SQLite's default VFS is not the unix one").
 *  - Otherwise libsqlite3.so.0 is loaded (RTLD_LOCAL: the loader's search path, as for a link;
 *    the copy already in the process when a plugin such as Python's _sqlite3 loaded it), once.
 * One difference from a link: the file is found when the first store is opened, in the file
 * system the process sees then; a host that chroots, or enters another mount namespace, between
 * loading libpasscode and its first store gets that root's libsqlite3.so.0 (run as root into a
 * tree another user can write, that user's code).
 *
 * These definitions are hidden: they bind the library's own calls and are never exported (the
 * version script of libpasscode.so exports the header's functions only, and passcoded, whose
 * symbols are exported for its backtraces, must not offer them to libsqlite3's own calls). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#pragma GCC visibility push(hidden)
#include <sqlite3.h>
#pragma GCC visibility pop

/* SQLITE_DBCONFIG_TRUSTED_SCHEMA (shim.h's csqlite_harden) is SQLite 3.31.0's. */
#define CSQLITE_OLDEST 3031000

/* Every function the library calls, as X(return type, name, (parameters), (arguments), value
 * returned when SQLite could not be loaded). */
#define CSQLITE_FUNCTIONS(X)                                                                                         \
    X(int, sqlite3_initialize, (void), (), SQLITE_ERROR)                                                             \
    X(int, sqlite3_libversion_number, (void), (), 0)                                                                 \
    X(sqlite3_vfs *, sqlite3_vfs_find, (const char *name), (name), NULL)                                             \
    X(int, sqlite3_vfs_register, (sqlite3_vfs *vfs, int make_default), (vfs, make_default), SQLITE_ERROR)            \
    X(int, sqlite3_open_v2, (const char *name, sqlite3 **db, int flags, const char *vfs), (name, db, flags, vfs),   \
      SQLITE_CANTOPEN)                                                                                               \
    X(int, sqlite3_close_v2, (sqlite3 *db), (db), SQLITE_MISUSE)                                                     \
    X(int, sqlite3_extended_result_codes, (sqlite3 *db, int on), (db, on), SQLITE_MISUSE)                            \
    X(int, sqlite3_limit, (sqlite3 *db, int id, int value), (db, id, value), -1)                                     \
    X(int, sqlite3_busy_timeout, (sqlite3 *db, int ms), (db, ms), SQLITE_MISUSE)                                     \
    X(int, sqlite3_file_control, (sqlite3 *db, const char *name, int op, void *arg), (db, name, op, arg),            \
      SQLITE_MISUSE)                                                                                                 \
    X(int, sqlite3_exec, (sqlite3 *db, const char *sql, int (*cb)(void *, int, char **, char **), void *arg,         \
                          char **err),                                                                               \
      (db, sql, cb, arg, err), SQLITE_MISUSE)                                                                        \
    X(const char *, sqlite3_errmsg, (sqlite3 *db), (db), "SQLite is not loaded")                                     \
    X(const char *, sqlite3_errstr, (int rc), (rc), "SQLite is not loaded")                                          \
    X(int, sqlite3_get_autocommit, (sqlite3 *db), (db), 1)                                                           \
    X(int, sqlite3_changes, (sqlite3 *db), (db), 0)                                                                  \
    X(sqlite3_int64, sqlite3_last_insert_rowid, (sqlite3 *db), (db), 0)                                              \
    X(int, sqlite3_prepare_v3, (sqlite3 *db, const char *sql, int bytes, unsigned int flags, sqlite3_stmt **stmt,    \
                                const char **tail),                                                                  \
      (db, sql, bytes, flags, stmt, tail), SQLITE_MISUSE)                                                            \
    X(int, sqlite3_step, (sqlite3_stmt *stmt), (stmt), SQLITE_MISUSE)                                                \
    X(int, sqlite3_reset, (sqlite3_stmt *stmt), (stmt), SQLITE_MISUSE)                                               \
    X(int, sqlite3_finalize, (sqlite3_stmt *stmt), (stmt), SQLITE_OK)                                                \
    X(int, sqlite3_clear_bindings, (sqlite3_stmt *stmt), (stmt), SQLITE_MISUSE)                                      \
    X(int, sqlite3_bind_blob, (sqlite3_stmt *stmt, int i, const void *p, int n, void (*d)(void *)),                  \
      (stmt, i, p, n, d), SQLITE_MISUSE)                                                                             \
    X(int, sqlite3_bind_text, (sqlite3_stmt *stmt, int i, const char *p, int n, void (*d)(void *)),                  \
      (stmt, i, p, n, d), SQLITE_MISUSE)                                                                             \
    X(int, sqlite3_bind_int64, (sqlite3_stmt *stmt, int i, sqlite3_int64 v), (stmt, i, v), SQLITE_MISUSE)            \
    X(int, sqlite3_bind_null, (sqlite3_stmt *stmt, int i), (stmt, i), SQLITE_MISUSE)                                 \
    X(int, sqlite3_column_count, (sqlite3_stmt *stmt), (stmt), 0)                                                    \
    X(int, sqlite3_column_type, (sqlite3_stmt *stmt, int i), (stmt, i), SQLITE_NULL)                                 \
    X(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt *stmt, int i), (stmt, i), 0)                                \
    X(const void *, sqlite3_column_blob, (sqlite3_stmt *stmt, int i), (stmt, i), NULL)                               \
    X(const unsigned char *, sqlite3_column_text, (sqlite3_stmt *stmt, int i), (stmt, i), NULL)                      \
    X(int, sqlite3_column_bytes, (sqlite3_stmt *stmt, int i), (stmt, i), 0)                                  \
    X(sqlite3_mutex *, sqlite3_mutex_alloc, (int type), (type), NULL)

/* The loaded functions: one pointer per name, and the two below that need their own forwarder. */
#define CSQLITE_POINTER(ret, name, params, args, failed) ret(*name) params;
static struct {
    CSQLITE_FUNCTIONS(CSQLITE_POINTER)
    void (*sqlite3_progress_handler)(sqlite3 *db, int ops, int (*cb)(void *), void *arg);
    int (*sqlite3_db_config)(sqlite3 *db, int op, ...);
} fn;

/* ---- fork() while another thread is inside SQLite ------------------------------------------
 * A child made by fork() has one thread, and every lock another thread of the parent held at that
 * moment stays held in the child for ever. SQLite's global state is guarded by its static
 * mutexes (the allocator's, the VFS's list of open files and its shared memory, the page cache's,
 * the random number generator's, the list of VFSes), which a thread opening or closing a store
 * takes briefly many times; a child whose first store call needs one of them then waited for
 * ever (about 7 forks in 100 while another thread opened stores in a loop). SQLite has no fork
 * handler of its own, but its static mutexes are reachable (sqlite3_mutex_alloc of a static
 * type returns the process's one) and are plain pthread mutexes: the prepare handler takes each,
 * in the order SQLite itself nests them (the random number generator's before the VFS list's,
 * which it looks up; every other one before the allocator's, which is taken last and holds none),
 * so that fork() happens while no other thread is inside one of them, and both the parent and
 * the child release them after. The child then finds SQLite's global state whole: what a thread
 * of the parent had half done is not in it (it was between those locks). A connection's own
 * mutex is not taken: a call on a handle while another thread forks is the caller's to avoid
 * (the header says so). Tests/c/api_processes.c, test_fork_while_another_thread_opens: 25 of
 * 100 children hung without these handlers, none with them.
 * The handlers are registered once, when SQLite is first loaded: before that no thread can be
 * inside it through the library. */
static const int fork_mutexes[] = {
    SQLITE_MUTEX_STATIC_PRNG,  /* sqlite3_randomness looks the default VFS up under it (MAIN) */
    SQLITE_MUTEX_STATIC_MAIN,  /* the VFS list, sqlite3_initialize */
    SQLITE_MUTEX_STATIC_VFS1,  /* the unix VFS: its open files (inodes) and shared memory */
    SQLITE_MUTEX_STATIC_VFS2,
    SQLITE_MUTEX_STATIC_VFS3,
    SQLITE_MUTEX_STATIC_LRU,   /* the page cache's groups */
    SQLITE_MUTEX_STATIC_PMEM,  /* the page cache's memory */
    SQLITE_MUTEX_STATIC_MEM,   /* sqlite3_malloc's statistics: innermost */
};
#define FORK_MUTEXES (sizeof fork_mutexes / sizeof fork_mutexes[0])

/* The mutexes themselves: found when the handlers are registered (sqlite3_mutex_alloc of a
 * static type allocates nothing, but is not a call to make in a fork handler). NULL ones (SQLite
 * built without threads) are skipped. */
static sqlite3_mutex *fork_held[FORK_MUTEXES];
static void (*fork_enter)(sqlite3_mutex *);
static void (*fork_leave)(sqlite3_mutex *);

static void fork_prepare(void) {
    for (size_t i = 0; i < FORK_MUTEXES; i++) if (fork_held[i]) fork_enter(fork_held[i]);
}

static void fork_release(void) {
    for (size_t i = FORK_MUTEXES; i-- > 0;) if (fork_held[i]) fork_leave(fork_held[i]);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;          /* 1 once every function was found */
static char failure[400];   /* why not, when not */

static void load(void) {
    /* The process's own SQLite when its global scope has one (see the top of this file). */
    int global = dlsym(RTLD_DEFAULT, "sqlite3_libversion_number") != NULL;
    const char *which = global ? "the SQLite in this process" : "the SQLite loaded";
    void *h = global ? RTLD_DEFAULT /* (a null pointer in glibc: not a failure) */ : dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!global && h == NULL) {
        const char *e = dlerror();
        snprintf(failure, sizeof failure, "cannot load SQLite (%s); the store needs libsqlite3.so.0, 3.31.0 or later",
                 e ? e : "libsqlite3.so.0");
        return;
    }
    /* Each name from the one SQLite chosen above: the global scope's, or the loaded library's
     * own scope (dlsym of its handle), never a mix. */
#define CSQLITE_FIND(ret, name, params, args, failed)                                                  \
    if ((*(void **)&fn.name = dlsym(h, #name)) == NULL) {                                             \
        snprintf(failure, sizeof failure, "%s lacks %s; the store needs SQLite 3.31.0 or later", which, #name); \
        return;                                                                                        \
    }
    CSQLITE_FUNCTIONS(CSQLITE_FIND)
    CSQLITE_FIND(void, sqlite3_progress_handler, (), (), )
    CSQLITE_FIND(int, sqlite3_db_config, (), (), )
#undef CSQLITE_FIND
    int version = fn.sqlite3_libversion_number();
    if (version < CSQLITE_OLDEST) {
        snprintf(failure, sizeof failure, "%s is %d.%d.%d; the store needs 3.31.0 or later", which, version / 1000000,
                 version / 1000 % 1000, version % 1000);
        return;
    }
    *(void **)&fork_enter = dlsym(h, "sqlite3_mutex_enter");
    *(void **)&fork_leave = dlsym(h, "sqlite3_mutex_leave");
    if (fork_enter == NULL || fork_leave == NULL) {
        snprintf(failure, sizeof failure, "%s lacks sqlite3_mutex_enter; the store needs SQLite 3.31.0 or later", which);
        return;
    }
    /* Initialised first: its static mutexes exist from then on (sqlite3_mutex_alloc needs it). */
    if (fn.sqlite3_initialize() != SQLITE_OK) {
        snprintf(failure, sizeof failure, "%s cannot be initialised", which);
        return;
    }
    for (size_t i = 0; i < FORK_MUTEXES; i++) fork_held[i] = fn.sqlite3_mutex_alloc(fork_mutexes[i]);
    if (pthread_atfork(fork_prepare, fork_release, fork_release) != 0) {
        snprintf(failure, sizeof failure, "the fork handlers for %s cannot be registered", which);
        return;
    }
    /* A loaded library stays open for the life of the process, as a linked one would. */
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

static int ready(void) {
    if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) return 1;
    pthread_once(&once, load);
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
}

__attribute__((visibility("hidden"))) int csqlite_load(char *why, size_t size) {
    if (ready()) return 1;
    if (why != NULL && size > 0) snprintf(why, size, "%s", failure);
    return 0;
}

/* The forwarders. Called before csqlite_load succeeded (never, by the library's own code), each
 * returns its failure value and loads nothing twice. */
#pragma GCC visibility push(hidden)
#define CSQLITE_FORWARD(ret, name, params, args, failed)                                               \
    ret name params {                                                                                  \
        if (!ready()) return failed;                                                                   \
        return fn.name args;                                                                           \
    }
CSQLITE_FUNCTIONS(CSQLITE_FORWARD)

void sqlite3_progress_handler(sqlite3 *db, int ops, int (*cb)(void *), void *arg) {
    if (ready()) fn.sqlite3_progress_handler(db, ops, cb, arg);
}

/* Variadic in SQLite. The library passes only the options whose arguments are (int, int *):
 * DEFENSIVE, ENABLE_TRIGGER, ENABLE_VIEW, TRUSTED_SCHEMA, ENABLE_LOAD_EXTENSION and
 * NO_CKPT_ON_CLOSE (shim.h); any other option is refused. */
int sqlite3_db_config(sqlite3 *db, int op, ...) {
    if (!ready()) return SQLITE_MISUSE;
    switch (op) {
    case SQLITE_DBCONFIG_DEFENSIVE:
    case SQLITE_DBCONFIG_ENABLE_TRIGGER:
    case SQLITE_DBCONFIG_ENABLE_VIEW:
    case SQLITE_DBCONFIG_TRUSTED_SCHEMA:
    case SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION:
    case SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE: break;
    default: return SQLITE_MISUSE;
    }
    va_list ap;
    va_start(ap, op);
    int on = va_arg(ap, int);
    int *result = va_arg(ap, int *);
    va_end(ap);
    return fn.sqlite3_db_config(db, op, on, result);
}
#pragma GCC visibility pop
