#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

/* SQLITE_TRANSIENT is a macro cast Swift cannot import. */
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/* The store's change stamp: the wal-index header, the first 48 bytes of the -shm file
 * (https://www.sqlite.org/walformat.html, "The WAL-Index Header"). Every commit, by any
 * connection of any process, rewrites it with a higher change counter (iChange); SQLite's own
 * readers compare it to learn whether their page cache still holds. The file is mapped by
 * SQLite already: this asks the VFS for that mapping (xShmMap of region 0, never extending it),
 * so a check costs no system call.
 *
 * Writers store the second copy, then a barrier, then the first; a reader takes the first, a
 * barrier, then the second, and trusts them only when the two agree and the header is
 * initialised. Returns 1 and fills out[0..5] then; 0 when there is no mapping or a commit is
 * being written (the caller then reads the store as usual). */
static inline int csqlite_change_stamp(sqlite3 *db, uint64_t out[6]) {
    sqlite3_file *file = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || file == NULL) return 0;
    const sqlite3_io_methods *m = file->pMethods;
    if (m == NULL || m->iVersion < 2 || m->xShmMap == NULL) return 0;
    volatile void *region = NULL;
    if (m->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK || region == NULL) return 0;
    const volatile unsigned char *h = (const volatile unsigned char *)region;
    unsigned char first[48], second[48];
    for (int i = 0; i < 48; i++) first[i] = h[i];
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < 48; i++) second[i] = h[48 + i];
    if (memcmp(first, second, 48) != 0 || first[12] == 0) return 0;  /* in flux, or not initialised */
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
