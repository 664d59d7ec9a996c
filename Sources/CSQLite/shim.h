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
