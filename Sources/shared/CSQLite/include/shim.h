/* SQLite as the library uses it. libsqlite3.so.0 is not linked: at the first store opened
 * (csqlite_load) loader.c takes the process's SQLite, or loads libsqlite3.so.0 with dlopen, and
 * the sqlite3_* functions below call it through the loader's table, so that a program that links
 * libpasscode but opens no store never pays for SQLite's load (about 0.3 ms of symbol binding:
 * Debian builds it with BIND_NOW). */
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Finds SQLite (the process's, else libsqlite3.so.0 loaded) and every function the library
 * calls, once per process (thread-safe). 1 when found; 0 when not, with the reason in `why` (no
 * such library, a function it lacks, a version older than 3.31.0). Every later call gives the
 * same answer. */
__attribute__((visibility("hidden"))) int csqlite_load(char *why, size_t size);

/* rename(from, to) that fails with EEXIST instead of replacing `to`: renameat2 with
 * RENAME_NOREPLACE (Linux 3.15), which glibc declares only under _GNU_SOURCE. Gives a new store
 * its name on file systems without hard links (FileSystem.linkStoreFile). */
static inline int csqlite_rename_noreplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1u /* RENAME_NOREPLACE */);
}

/* SQLITE_TRANSIENT is a macro cast Swift cannot import. */
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/* The store's change stamp: the wal-index header, the first 48 bytes of the -shm file
 * (https://www.sqlite.org/walformat.html, "The WAL-Index Header"). Every commit, by any
 * connection of any process, rewrites it with a higher change counter (iChange); SQLite's own
 * readers compare it to learn whether their page cache still holds. The file is mapped by
 * SQLite already: this asks the VFS for that mapping (xShmMap of region 0, never extending it),
 * so a check costs no system call (csqlite_shm_region: the mapping of region 0, or NULL).
 *
 * Writers store the second copy, then a barrier, then the first; a reader takes the first, a
 * barrier, then the second, and trusts them only when the two agree and the header is
 * initialised. Returns 1 and fills out[0..5] then; 0 when there is no mapping or a commit is
 * being written (the caller then reads the store as usual). */
static inline sqlite3_file *csqlite_main_file(sqlite3 *db) {
    sqlite3_file *file = NULL;
    if (db == NULL || sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK) return NULL;
    return file;
}

static inline volatile void *csqlite_file_shm_region(sqlite3_file *file) {
    const sqlite3_io_methods *m = file ? file->pMethods : NULL;
    if (m == NULL || m->iVersion < 2 || m->xShmMap == NULL) return NULL;
    volatile void *region = NULL;
    if (m->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK) return NULL;
    return region;
}

static inline volatile void *csqlite_shm_region(sqlite3 *db) {
    return csqlite_file_shm_region(csqlite_main_file(db));
}

/* `file` is the connection's main file (csqlite_main_file), which its caller keeps while the
 * connection is open: the pager's own, the same from open to close, so that a lock-screen poll
 * does not ask sqlite3_file_control for it (a name lookup under the connection's mutex) each time. */
static inline int csqlite_change_stamp(sqlite3_file *file, uint64_t out[6]) {
    volatile void *region = csqlite_file_shm_region(file);
    if (region == NULL) return 0;
    /* Read a word at a time: the mapping is page-aligned, and 12 loads cost a lock-screen poll
     * far less than 96 byte loads (the copies are compared whole, so the width changes nothing). */
    const volatile uint64_t *h = (const volatile uint64_t *)region;
    uint64_t first[6], second[6];
    for (int i = 0; i < 6; i++) first[i] = h[i];
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < 6; i++) second[i] = h[6 + i];
    if (memcmp(first, second, 48) != 0 || ((const unsigned char *)first)[12] == 0) return 0;  /* in flux, or not initialised */
    memcpy(out, first, 48);
    return 1;
}

/* ---- Every connection opened as for an untrusted file ------------------------------------
 * (https://www.sqlite.org/security.html, "Defense Against The Dark Arts"). The store file is
 * attacker input: anyone who can write it once could plant a trigger that runs inside the
 * library's own writes, a view or an index whose SQL never ends, or values far beyond what the
 * library writes. sqlite3_db_config is variadic, which Swift cannot call: these wrappers can. */

/* The bound on one statement: the progress handler is called every CSQLITE_PROGRESS_OPS virtual
 * machine instructions and interrupts the statement after CSQLITE_PROGRESS_CALLS calls, i.e.
 * after 10 million instructions (about 0.1 to 0.5 s on the CI machine). The library's own
 * statements stay far below: the largest, the event log's trim and VACUUM of a store of a few
 * hundred KiB, take under 200,000. The counter is reset before every statement. */
#define CSQLITE_PROGRESS_OPS 1000
#define CSQLITE_PROGRESS_CALLS 10000

typedef struct { long calls; } csqlite_budget;

static int csqlite_progress(void *payload) {
    csqlite_budget *b = (csqlite_budget *)payload;
    return ++b->calls > CSQLITE_PROGRESS_CALLS;  /* non-zero: SQLITE_INTERRUPT */
}

/* Defensive mode (no writes to sqlite_master, no PRAGMA writable_schema), no triggers and no
 * views at all (the schema has none; one found there never runs), an untrusted schema (no
 * function with side effects from the schema's SQL), limits lowered to what the library's
 * own schema and statements need, no ATTACH, and the progress handler above. Returns
 * SQLITE_OK, or the first failure. */
static inline int csqlite_harden(sqlite3 *db, csqlite_budget *budget) {
    int on = -1, rc;
    if ((rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &on)) != SQLITE_OK || on != 1) return rc ? rc : SQLITE_ERROR;
    if ((rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &on)) != SQLITE_OK || on != 0) return rc ? rc : SQLITE_ERROR;
    if ((rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, &on)) != SQLITE_OK || on != 0) return rc ? rc : SQLITE_ERROR;
    if ((rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &on)) != SQLITE_OK || on != 0) return rc ? rc : SQLITE_ERROR;
    if ((rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &on)) != SQLITE_OK || on != 0) return rc ? rc : SQLITE_ERROR;
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000000);          /* a string or blob: 1 MB (a verifier is < 4 KiB) */
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 100000);       /* one statement's text, the schema's included */
    sqlite3_limit(db, SQLITE_LIMIT_COLUMN, 64);               /* columns of a table, index or result */
    sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 100);
    sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 4);
    sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 25000);           /* instructions of one prepared statement */
    sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, 8);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100);
    sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, 32);
    sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
    sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
    budget->calls = 0;
    sqlite3_progress_handler(db, CSQLITE_PROGRESS_OPS, csqlite_progress, budget);
    /* trusted_schema=OFF is what SQLITE_DBCONFIG_TRUSTED_SCHEMA set; the pragma says it again
     * for readers of the SQL. */
    return sqlite3_exec(db, "PRAGMA trusted_schema=OFF", NULL, NULL, NULL);
}

/* ---- Only our files: a VFS that checks each descriptor SQLite opens ----------------------
 * The store, its -journal and its -wal are opened by the default unix VFS, then checked on the
 * descriptor it opened (fstat, so no race between a check and the open): a regular file, owned
 * by this user, readable and writable by no one else, and the very file the path names now.
 * Anything else is closed at once and the open fails: a hot journal or a WAL planted by
 * another user is never replayed. The -shm file is checked after the fact (csqlite_check_shm).
 * The descriptor is read from the unix VFS's file object, whose first members have been
 * (methods, vfs, inode, fd) since SQLite 3.6; the check that the descriptor's inode is the
 * path's own fails closed if that layout ever changed. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

struct csqlite_unix_file_head { const sqlite3_io_methods *methods; sqlite3_vfs *vfs; void *inode; int fd; };

/* Storage lives inside functions: Swift's importer does not define a header's file-scope statics. */
static inline char *csqlite_refusal_text(void) {
    static __thread char text[512];
    return text;
}

static inline sqlite3_vfs *csqlite_strict_vfs(void) {
    static sqlite3_vfs vfs;
    return &vfs;
}

static int csqlite_refuse(sqlite3_file *file, const char *why) {
    snprintf(csqlite_refusal_text(), 512, "%s", why);
    if (file->pMethods) file->pMethods->xClose(file);
    file->pMethods = NULL;
    return SQLITE_CANTOPEN;
}

/* The owner and mode a store's file must have, given its status `st` (from a descriptor, or
 * from the path when no descriptor may be opened: see below). 0 when it is ours; else a
 * message in `why`. */
static inline int csqlite_stat_is_ours(const struct stat *st, const char *name, char *why, size_t size) {
    struct stat by_path;
    if (!S_ISREG(st->st_mode)) { snprintf(why, size, "%s is not a regular file", name); return 1; }
    if (st->st_uid != geteuid()) {
        snprintf(why, size, "%s is owned by uid %lu, not by this user (uid %lu): not ours, refused (never replayed)", name,
                 (unsigned long)st->st_uid, (unsigned long)geteuid());
        return 1;
    }
    if (st->st_mode & 077) {
        snprintf(why, size, "%s may be read or written by group or others (mode 0%lo): not ours, refused (never replayed)", name,
                 (unsigned long)(st->st_mode & 0777));
        return 1;
    }
    if (lstat(name, &by_path) != 0 || by_path.st_dev != st->st_dev || by_path.st_ino != st->st_ino) {
        snprintf(why, size, "%s was replaced while it was being opened", name);
        return 1;
    }
    return 0;
}

/* The same, on an open descriptor. */
static inline int csqlite_fd_is_ours(int fd, const char *name, char *why, size_t size) {
    struct stat st;
    if (fstat(fd, &st) != 0) { snprintf(why, size, "%s cannot be examined", name); return 1; }
    return csqlite_stat_is_ours(&st, name, why, size);
}

/* Never open and close a descriptor of our own on the store file or its -shm: POSIX record
 * locks belong to the process and the inode, so closing ANY descriptor of the file drops every
 * lock SQLite holds on it in this process. On the -shm that is the "dead man switch" read lock
 * that tells a later opener the wal-index is in use: without it the next process to open the
 * store takes the wal-index for abandoned, truncates and rebuilds it under the connections
 * using it, and commits are lost (two processes creating a store at once both set a first
 * passcode). Those two are examined by path with lstat, compared by inode with what SQLite
 * opened or mapped; the -journal and -wal, on which SQLite holds no lock, are opened. */
static int csqlite_strict_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    sqlite3_vfs *real = (sqlite3_vfs *)vfs->pAppData;
    int checked = name != NULL && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL));
    char why[400];
    struct stat before;
    int existed = 0;
    if (checked && (flags & SQLITE_OPEN_MAIN_DB)) {
        /* The store file: by path (see above), and again on SQLite's descriptor below. */
        if (lstat(name, &before) == 0) {
            existed = 1;
            if (csqlite_stat_is_ours(&before, name, why, sizeof why)) { snprintf(csqlite_refusal_text(), 512, "%s", why); return SQLITE_CANTOPEN; }
        }
    } else if (checked) {
        /* First on a descriptor of our own: running as root, SQLite chowns an existing journal
         * or WAL to the store's owner as it opens it, which would hide who planted it. */
        int fd = open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            existed = 1;
            int bad = csqlite_fd_is_ours(fd, name, why, sizeof why) || fstat(fd, &before) != 0;
            close(fd);
            if (bad) { snprintf(csqlite_refusal_text(), 512, "%s", why); return SQLITE_CANTOPEN; }
        }
    }
    int rc = real->xOpen(real, name, file, flags, out_flags);
    if (rc != SQLITE_OK || !checked) return rc;
    /* Then on the descriptor SQLite opened: the same file, still ours; or, when there was none
     * before, a file SQLite created just now (empty), not one planted in between. */
    const struct csqlite_unix_file_head *head = (const struct csqlite_unix_file_head *)file;
    struct stat now;
    if (fstat(head->fd, &now) != 0) return csqlite_refuse(file, "a store file cannot be examined after it was opened");
    if (existed && (now.st_dev != before.st_dev || now.st_ino != before.st_ino)) {
        snprintf(why, sizeof why, "%s was replaced while it was being opened", name);
        return csqlite_refuse(file, why);
    }
    if (!existed && now.st_size != 0) {
        snprintf(why, sizeof why, "%s appeared, not empty, while it was being created: not ours, refused (never replayed)", name);
        return csqlite_refuse(file, why);
    }
    if (csqlite_fd_is_ours(head->fd, name, why, sizeof why) != 0) return csqlite_refuse(file, why);
    return SQLITE_OK;
}

static inline int *csqlite_strict_state(void) {
    static int state;  /* 1: registered, -1: cannot be */
    return &state;
}

static void csqlite_register_strict_vfs(void) {
    sqlite3_vfs *real = sqlite3_initialize() == SQLITE_OK ? sqlite3_vfs_find("unix") : NULL;
    if (real == NULL || real != sqlite3_vfs_find(NULL)) { *csqlite_strict_state() = -1; return; }
    sqlite3_vfs *vfs = csqlite_strict_vfs();
    *vfs = *real;
    vfs->zName = "libpasscode-strict";
    vfs->pAppData = real;
    vfs->xOpen = csqlite_strict_open;
    vfs->pNext = NULL;
    *csqlite_strict_state() = sqlite3_vfs_register(vfs, 0) == SQLITE_OK ? 1 : -1;
}

/* The name of the checking VFS, registered once (not as the default: other users of SQLite in
 * the host process are not affected). NULL when the default VFS is not the unix one. */
static inline const char *csqlite_strict_vfs_name(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csqlite_register_strict_vfs);
    return *csqlite_strict_state() == 1 ? "libpasscode-strict" : NULL;
}

/* The last refusal of the checking VFS on this thread (empty when none), and forgets it. */
static inline void csqlite_take_refusal(char *out, size_t size) {
    snprintf(out, size, "%s", csqlite_refusal_text());
    csqlite_refusal_text()[0] = 0;
}

/* A device number's major and minor parts, as glibc's major() and minor() compute them: those
 * are functions (gnu_dev_major, gnu_dev_minor) outside optimised C, and each import is time at
 * every load of the library. */
static inline unsigned long csqlite_dev_major(dev_t dev) {
    return (unsigned long)(((dev >> 32) & 0xfffff000u) | ((dev >> 8) & 0xfffu));
}
static inline unsigned long csqlite_dev_minor(dev_t dev) {
    return (unsigned long)(((dev >> 12) & 0xffffff00u) | (dev & 0xffu));
}

/* A hexadecimal number at *p (lower or upper case), *p moved past it. */
static inline unsigned long csqlite_hex(const char **p) {
    unsigned long v = 0;
    for (;; (*p)++) {
        char c = **p;
        if (c >= '0' && c <= '9') v = v * 16 + (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f') v = v * 16 + (unsigned long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v = v * 16 + (unsigned long)(c - 'A' + 10);
        else return v;
    }
}

/* The file really mapped at `region` (device and inode, from /proc/self/maps): 1 when found,
 * 0 when not, -1 when the maps cannot be read. */
static inline int csqlite_mapped_file(volatile void *region, unsigned long *dev_major, unsigned long *dev_minor,
                                      unsigned long *inode) {
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL) return -1;
    char buffer[8192];  /* a few reads of the whole table, not one per 1 KiB (procfs's st_blksize) */
    setvbuf(maps, buffer, _IOFBF, sizeof buffer);
    unsigned long lo, hi, offset, at = (unsigned long)(uintptr_t)region;
    char perms[8], line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps)) {
        /* The range first, by hand: only the line of the mapping is read in full (sscanf over
         * every line of the table was most of an open's cost of this check). */
        const char *p = line;
        lo = csqlite_hex(&p);
        if (p == line || *p != '-') continue;
        const char *q = ++p;
        hi = csqlite_hex(&p);
        if (p == q || at < lo || at >= hi) continue;
        if (sscanf(line, "%lx-%lx %7s %lx %lx:%lx %lu", &lo, &hi, perms, &offset, dev_major, dev_minor, inode) == 7) found = 1;
    }
    fclose(maps);
    return found;
}

/* The files a connection has open for its log: the -wal (fstat of SQLite's descriptor) and the
 * -shm (the file really mapped, from /proc/self/maps), each learnt once per connection. */
typedef struct {
    unsigned long long wal_dev, wal_ino, shm_major, shm_minor, shm_ino;
    int known;                  /* both learnt (csqlite_log_files_moved) */
    int shm_known;              /* the -shm's identity learnt, for the mapping at shm_region */
    volatile void *shm_region;
} csqlite_log_ids;

/* The -shm file mapped at `region` (region 0 of the connection's wal-index), from
 * /proc/self/maps the first time and from `ids` afterwards: SQLite keeps a connection's
 * wal-index mapped from its first read in WAL mode to its close, so the file behind the mapping
 * cannot change while the region is the same. 1 when known; 0 when the mapping was not found;
 * -1 when the maps cannot be read. */
static inline int csqlite_shm_identity(volatile void *region, csqlite_log_ids *ids) {
    if (ids->shm_known && ids->shm_region == region) return 1;
    unsigned long dev_major = 0, dev_minor = 0, inode = 0;
    int found = csqlite_mapped_file(region, &dev_major, &dev_minor, &inode);
    if (found != 1) return found;
    ids->shm_major = dev_major;
    ids->shm_minor = dev_minor;
    ids->shm_ino = inode;
    ids->shm_region = region;
    ids->shm_known = 1;
    return 1;
}

/* The -shm file this connection has mapped must be ours too. SQLite opens it outside the VFS's
 * xOpen, so it is checked after the fact, race-free by inode: the mapping of region 0 is found
 * in /proc/self/maps (device and inode of the file really mapped), the path must name that
 * inode, and its owner and mode are read from the path's status (no descriptor: see
 * csqlite_stat_is_ours). Returns 0 when ours or
 * when no -shm is mapped (no WAL yet); else 1 with the reason in `why`. */
static inline int csqlite_check_shm(sqlite3 *db, const char *shm_path, csqlite_log_ids *ids, char *why, size_t size) {
    volatile void *region = csqlite_shm_region(db);
    if (region == NULL) return 0;
    int found = csqlite_shm_identity(region, ids);
    if (found < 0) { snprintf(why, size, "%s cannot be checked: /proc/self/maps is not readable", shm_path); return 1; }
    if (!found) { snprintf(why, size, "%s: its mapping was not found", shm_path); return 1; }
    struct stat st;  /* by path, never a descriptor of ours (see csqlite_stat_is_ours) */
    if (lstat(shm_path, &st) != 0) { snprintf(why, size, "%s cannot be examined", shm_path); return 1; }
    if (st.st_ino != ids->shm_ino || ids->shm_major != csqlite_dev_major(st.st_dev) || ids->shm_minor != csqlite_dev_minor(st.st_dev)) {
        snprintf(why, size, "%s is not the file this connection mapped (replaced or deleted)", shm_path);
        return 1;
    }
    return csqlite_stat_is_ours(&st, shm_path, why, size);
}

/* ---- One writer at a time, on one log -----------------------------------------------------
 * Deleting <store>-wal and <store>-shm while the store is open splits the wal-index: the
 * connections that had them open go on with the old (unlinked) files, a process that opens the
 * store next makes new ones, and SQLite's locks, which live in the -shm, no longer keep their
 * writers apart: each goes on with a log and a page cache of its own, and a count one of them
 * writes the other overwrites. So every write of the library takes a lock of its own first:
 * flock() on the descriptor SQLite opened for the store file (flock locks belong to the open
 * file description and are independent of SQLite's fcntl locks on Linux; no descriptor of ours
 * is opened or closed, since closing any descriptor of the file would drop SQLite's fcntl
 * locks), and under it checks that the -wal and -shm paths still name the files this
 * connection has open (csqlite_log_files_moved); when not, the caller opens the store again. */
#include <sys/file.h>
#include <time.h>

/* SQLite's descriptor for the store file of `db` (the unix VFS's, as above), or -1. */
static inline int csqlite_main_fd(sqlite3 *db) {
    sqlite3_file *file = csqlite_main_file(db);
    if (file == NULL || file->pMethods == NULL) return -1;
    return ((const struct csqlite_unix_file_head *)file)->fd;
}

/* Takes the writers' lock, waiting up to `timeout_ms`. 0: taken; 1: still held elsewhere at the
 * timeout; -1: no descriptor, or flock failed (errno). Taking it again on the same descriptor
 * is a no-op (it is the same open file description). */
static inline int csqlite_writer_lock(sqlite3 *db, int timeout_ms) {
    int fd = csqlite_main_fd(db);
    if (fd < 0) return -1;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return 0;
        if (errno != EWOULDBLOCK && errno != EINTR) return -1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long waited = (now.tv_sec - start.tv_sec) * 1000LL + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (waited >= timeout_ms) return 1;
        usleep(waited < 20 ? 500 : 5000);
    }
}

static inline void csqlite_writer_unlock(sqlite3 *db) {
    int fd = csqlite_main_fd(db);
    if (fd >= 0) flock(fd, LOCK_UN);
}

/* 1 when `<path>-wal` or `<path>-shm` no longer names the file this connection has open for it
 * (deleted, or replaced), with the reason in `why`; 0 when both still do, or when the
 * connection has no log open yet (not in WAL mode, or nothing read). Costs two lstat calls once
 * the files are known. */
static inline int csqlite_log_files_moved(sqlite3 *db, const char *path, csqlite_log_ids *ids, char *why, size_t size) {
    char wal_path[4200], shm_path[4200];
    snprintf(wal_path, sizeof wal_path, "%s-wal", path);
    snprintf(shm_path, sizeof shm_path, "%s-shm", path);
    if (!ids->known) {
        sqlite3_file *wal = NULL, *main_file = NULL;
        if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) != SQLITE_OK
            || sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &main_file) != SQLITE_OK
            || wal == NULL || main_file == NULL || wal->pMethods == NULL || main_file->pMethods == NULL) return 0;
        /* Only once the log is open (WAL mode, something read): mapping the -shm of a connection
         * that is not in WAL mode would open it for a connection SQLite never unmaps (a leak
         * valgrind saw, and a -shm file beside a store that is not ours). */
        volatile void *region = csqlite_shm_region(db);
        if (region == NULL) return 0;
        /* A log of the unix VFS, as the store itself (its method set is the no-lock one, whose
         * reads and writes are the same functions), not an in-memory journal: its descriptor is known. */
        if (wal->pMethods->xRead != main_file->pMethods->xRead) return 0;
        struct stat st;
        if (fstat(((const struct csqlite_unix_file_head *)wal)->fd, &st) != 0) {
            snprintf(why, size, "%s cannot be examined", wal_path);
            return 1;
        }
        if (csqlite_shm_identity(region, ids) != 1) {
            snprintf(why, size, "%s cannot be checked: its mapping was not found in /proc/self/maps", shm_path);
            return 1;
        }
        ids->wal_dev = st.st_dev;
        ids->wal_ino = st.st_ino;
        ids->known = 1;
    }
    struct stat st;
    if (lstat(wal_path, &st) != 0 || st.st_dev != ids->wal_dev || st.st_ino != ids->wal_ino) {
        snprintf(why, size, "%s was deleted or replaced while the store was open", wal_path);
        return 1;
    }
    if (lstat(shm_path, &st) != 0 || st.st_ino != ids->shm_ino || csqlite_dev_major(st.st_dev) != ids->shm_major
        || csqlite_dev_minor(st.st_dev) != ids->shm_minor) {
        snprintf(why, size, "%s was deleted or replaced while the store was open", shm_path);
        return 1;
    }
    return 0;
}

/* 1 when `path` still names the store file this connection has open. */
static inline int csqlite_main_file_same(sqlite3 *db, const char *path) {
    int fd = csqlite_main_fd(db);
    struct stat open_st, path_st;
    return fd >= 0 && fstat(fd, &open_st) == 0 && lstat(path, &path_st) == 0 && open_st.st_dev == path_st.st_dev
           && open_st.st_ino == path_st.st_ino;
}

/* Before a connection whose log files were deleted or replaced is closed: its close must neither
 * copy its old log into the store file (over what other processes wrote there since) nor delete
 * the -wal and -shm paths (which now name other connections' files). */
static inline int csqlite_no_checkpoint_on_close(sqlite3 *db) {
    int on = 0;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &on) == SQLITE_OK && on == 1 ? 0 : 1;
}
