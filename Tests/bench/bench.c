/* make bench: libpasscode measured against baselines in the same run, printed as ratios.
 * Nothing here asserts a time. Every row names its baseline (and its bar, where the project set
 * one); a row that cannot measure says "could not measure: why" instead of printing a number. */
#define _GNU_SOURCE
#include <passcode.h>
#include <sodium.h>
#include <sqlite3.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Stores live in 0700 folders of their own (libpasscode refuses a folder others may write). */
static char shm_dir[] = "/dev/shm/passcode-bench-XXXXXX", disk_dir[] = "/var/tmp/passcode-bench-XXXXXX";

static const char *PC = "386491";

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void remove_store(const char *path) {
    char extra[300];
    unlink(path);
    snprintf(extra, sizeof extra, "%s-wal", path); unlink(extra);
    snprintf(extra, sizeof extra, "%s-shm", path); unlink(extra);
}

static passcode_store *make_store(const char *path) {
    remove_store(path);
    passcode_store *s = NULL;
    if (passcode_open(path, NULL, &s) != PASSCODE_OK) { fprintf(stderr, "open %s: %s\n", path, passcode_errmsg(NULL)); exit(1); }
    if (passcode_set(s, PC, 6) != PASSCODE_OK) { fprintf(stderr, "set: %s\n", passcode_errmsg(s)); exit(1); }
    uint32_t none[] = {0};
    passcode_set_custom_schedule(s, none, 1, 0);  /* no lockout during the runs */
    return s;
}

static void row(const char *what, double lib, double base, const char *unit, double scale) {
    printf("%-52s %10.2f%-2s %10.2f%-2s %8.3f\n", what, lib * scale, unit, base * scale, unit, lib / base);
}

/* A row with a bar: the ratio, then the bar and whether this run is within it. */
static void row_bar(const char *what, double lib, double base, const char *unit, double scale, double bar) {
    printf("%-52s %10.2f%-2s %10.2f%-2s %8.3f  bar <= %gx: %s\n", what, lib * scale, unit, base * scale, unit,
           lib / base, bar, lib / base <= bar ? "within" : "MISSED");
}

static void cannot(const char *what, const char *why) {
    printf("%-52s could not measure: %s\n", what, why);
}

/* The Argon2id inside libpasscode's own calls. This program defines libsodium's two Argon2id
 * entry points that libpasscode imports; the dynamic loader binds libpasscode's calls to these
 * (an executable's definitions come first), and each times the real one (RTLD_NEXT) and adds
 * it up. A verify's cost over "its" Argon2id is then the verify's time less the Argon2id's in
 * the same call: what the library adds, without the run-to-run spread of a 64 MiB hash (a few
 * percent on this machine's shared memory), which a separate bare verify would add to it. */
static double argon_in_lib;
static int argon_calls;

/* The Argon2id time since the last call (and the calls counted into *calls); starts afresh. */
static double argon_taken(int *calls) {
    double t = argon_in_lib;
    *calls += argon_calls;
    argon_in_lib = 0;
    argon_calls = 0;
    return t;
}

int crypto_pwhash_str_verify(const char str[crypto_pwhash_STRBYTES], const char *const passwd, unsigned long long passwdlen) {
    static int (*real)(const char *, const char *, unsigned long long);
    if (!real) { void *p = dlsym(RTLD_NEXT, "crypto_pwhash_str_verify"); memcpy(&real, &p, sizeof real); }
    if (!real) abort();
    double t0 = now_s();
    int rc = real(str, passwd, passwdlen);
    argon_in_lib += now_s() - t0;
    argon_calls++;
    return rc;
}

int crypto_pwhash(unsigned char *const out, unsigned long long outlen, const char *const passwd, unsigned long long passwdlen,
                  const unsigned char *const salt, unsigned long long opslimit, size_t memlimit, int alg) {
    static int (*real)(unsigned char *, unsigned long long, const char *, unsigned long long, const unsigned char *,
                       unsigned long long, size_t, int);
    if (!real) { void *p = dlsym(RTLD_NEXT, "crypto_pwhash"); memcpy(&real, &p, sizeof real); }
    if (!real) abort();
    double t0 = now_s();
    int rc = real(out, outlen, passwd, passwdlen, salt, opslimit, memlimit, alg);
    argon_in_lib += now_s() - t0;
    argon_calls++;
    return rc;
}

/* verify right and wrong, and the unlock key: each against the Argon2id it ran (above), with a
 * bar on the right verify; then against a separate bare crypto_pwhash_str_verify with the same
 * parameters, interleaved, as a cross-check (its ratio carries the hash's own spread). */
static void verify_rows(const char *dir, const char *label, double bar) {
    char path[256];
    snprintf(path, sizeof path, "%s/passcode-bench-%d.db", dir, (int)getpid());
    passcode_store *s = make_store(path);
    char hash[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str(hash, PC, 6, crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0) abort();
    enum { N = 10 };
    double bare = 0, ok = 0, bad = 0, key = 0, ok_argon = 0, bad_argon = 0, key_argon = 0;
    int calls = 0, bare_calls = 0;
    uint8_t out[32];
    for (int i = 0; i < N; i++) {  /* interleaved, so that machine noise hits all alike */
        double t0 = now_s();
        if (crypto_pwhash_str_verify(hash, PC, 6) != 0) abort();
        double t1 = now_s();
        argon_taken(&bare_calls);  /* the bare verify's own: not libpasscode's */
        passcode_verify(s, PC, 6);
        double t2 = now_s();
        ok_argon += argon_taken(&calls);
        char wrong[16];
        snprintf(wrong, sizeof wrong, "90%04d", 1357 + 2 * i);
        passcode_verify(s, wrong, 6);
        double t3 = now_s();
        bad_argon += argon_taken(&calls);
        passcode_unlock_key(s, PC, 6, out, sizeof out);
        double t4 = now_s();
        key_argon += argon_taken(&calls);
        bare += t1 - t0; ok += t2 - t1; bad += t3 - t2; key += t4 - t3;
    }
    char what[128];
    snprintf(what, sizeof what, "verify right vs its own Argon2id (%s)", label);
    if (calls < 3 * N) cannot(what, "libpasscode's Argon2id calls were not seen (not bound to this program's)");
    else {
        row_bar(what, ok / N, ok_argon / N, "ms", 1e3, bar);
        snprintf(what, sizeof what, "verify wrong, durably counted, vs its Argon2id (%s)", label);
        row(what, bad / N, bad_argon / N, "ms", 1e3);
        snprintf(what, sizeof what, "passcode_unlock_key vs its Argon2id (%s)", label);
        row(what, key / N, key_argon / N, "ms", 1e3);
    }
    snprintf(what, sizeof what, "verify right vs a separate bare verify (%s)", label);
    row(what, ok / N, bare / N, "ms", 1e3);
    snprintf(what, sizeof what, "verify wrong vs a separate bare verify (%s)", label);
    row(what, bad / N, bare / N, "ms", 1e3);
    passcode_close(s);
    remove_store(path);
}

/* A bound store through swtpm (started here on loopback) against the same verify without a TPM
 * and a bare Argon2id verify, interleaved. swtpm is a software TPM: a hardware TPM is slower
 * per command (tens of ms for the key derivation), so read these as the library's overhead. */
static void tpm_rows(void) {
    if (system("command -v swtpm >/dev/null && command -v tpm2_dictionarylockout >/dev/null") != 0) {
        cannot("TPM rows (vs bare Argon2id)", "swtpm or tpm2-tools missing (scripts/ensure-deps.sh)");
        return;
    }
    char dir[64], cmd[1024], tcti[64], bound_path[128], plain_path[128];
    snprintf(dir, sizeof dir, "/dev/shm/passcode-bench-tpm-%d", (int)getpid());
    int port = 25000 + (getpid() % 2000) * 2;
    snprintf(tcti, sizeof tcti, "swtpm:host=127.0.0.1,port=%d", port);
    snprintf(cmd, sizeof cmd, "mkdir -p %s && swtpm socket --tpm2 --tpmstate dir=%s --server type=tcp,port=%d,bindaddr=127.0.0.1 "
             "--ctrl type=tcp,port=%d,bindaddr=127.0.0.1 --flags not-need-init,startup-clear --daemon --pid file=%s/pid",
             dir, dir, port, port + 1, dir);
    if (system(cmd) != 0) { cannot("TPM rows (vs bare Argon2id)", "swtpm did not start"); return; }
    snprintf(cmd, sizeof cmd, "for i in $(seq 100); do tpm2_getcap -T %s properties-fixed >/dev/null 2>&1 && break; sleep 0.05; done; "
             "tpm2_dictionarylockout -T %s -s -n 1000 -t 1000 -l 1000 >/dev/null 2>&1", tcti, tcti);
    if (system(cmd) != 0) printf("TPM rows: could not set the TPM's lockout parameters\n");
    snprintf(bound_path, sizeof bound_path, "%s/bound.db", dir);
    snprintf(plain_path, sizeof plain_path, "%s/plain.db", dir);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_tpm(o, tcti);
    passcode_store *b = NULL;
    double t0 = now_s();
    int32_t rc = passcode_open(bound_path, o, &b);
    double open_bound = now_s() - t0;
    if (rc != PASSCODE_OK || passcode_set(b, PC, 6) != PASSCODE_OK) { printf("TPM rows: %s\n", passcode_errmsg(b)); exit(1); }
    uint32_t none[] = {0};
    passcode_set_custom_schedule(b, none, 1, 0);
    passcode_store *p = make_store(plain_path);
    char hash[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str(hash, PC, 6, crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0) abort();
    enum { N = 10 };
    double bare = 0, tpm_ok = 0, tpm_bad = 0, plain_ok = 0;
    for (int i = 0; i < N; i++) {
        char wrong[16];
        snprintf(wrong, sizeof wrong, "91%04d", 2357 + 2 * i);
        double a = now_s();
        if (crypto_pwhash_str_verify(hash, PC, 6) != 0) abort();
        double c = now_s();
        if (passcode_verify(b, PC, 6) != PASSCODE_OK) { printf("TPM rows: %s\n", passcode_errmsg(b)); exit(1); }
        double d = now_s();
        passcode_verify(b, wrong, 6);
        double e = now_s();
        passcode_verify(p, PC, 6);
        double f = now_s();
        bare += c - a; tpm_ok += d - c; tpm_bad += e - d; plain_ok += f - e;
    }
    row("unlock through the TPM (swtpm) vs bare Argon2id", tpm_ok / N, bare / N, "ms", 1e3);
    row("wrong guess through the TPM (swtpm) vs bare", tpm_bad / N, bare / N, "ms", 1e3);
    row("unlock without a TPM vs bare Argon2id", plain_ok / N, bare / N, "ms", 1e3);
    passcode_close(b);
    passcode_close(p);
    enum { O = 20 };
    t0 = now_s();
    for (int i = 0; i < O; i++) { passcode_store *x = NULL; passcode_open(bound_path, o, &x); passcode_close(x); }
    double t1 = now_s();
    for (int i = 0; i < O; i++) { passcode_store *x = NULL; passcode_open(plain_path, NULL, &x); passcode_close(x); }
    double t2 = now_s();
    row("open + close of a bound store vs an unbound one", (t1 - t0) / O, (t2 - t1) / O, "ms", 1e3);
    (void)open_bound;
    passcode_options_free(o);
    snprintf(cmd, sizeof cmd, "kill $(cat %s/pid); rm -rf %s", dir, dir);
    if (system(cmd) != 0) printf("TPM rows: swtpm was already gone\n");
}

/* seal + unseal of a buffer vs bare XChaCha20-Poly1305 encrypt + decrypt with a random nonce. */
static void seal_rows(void) {
    char path[256];
    snprintf(path, sizeof path, "%s/seal.db", shm_dir);
    passcode_store *s = make_store(path);
    uint8_t key[32];
    passcode_unlock_key(s, PC, 6, key, sizeof key);
    size_t sizes[] = {4096, 1 << 20};
    for (int k = 0; k < 2; k++) {
        size_t n = sizes[k];
        uint8_t *plain = calloc(n, 1), *sealed = malloc(n + 64), *back = malloc(n), nonce[24];
        int reps = n > 100000 ? 200 : 20000;
        double lib = 0, base = 0;
        size_t len = 0, got = 0;
        unsigned long long clen = 0, mlen = 0;
        for (int i = 0; i < reps; i++) {
            double t0 = now_s();
            passcode_seal(s, plain, n, sealed, n + 64, &len);
            passcode_unseal(s, sealed, len, back, n, &got);
            double t1 = now_s();
            randombytes_buf(nonce, sizeof nonce);
            crypto_aead_xchacha20poly1305_ietf_encrypt(sealed, &clen, plain, n, NULL, 0, NULL, nonce, key);
            if (crypto_aead_xchacha20poly1305_ietf_decrypt(back, &mlen, NULL, sealed, clen, NULL, 0, nonce, key) != 0) abort();
            double t2 = now_s();
            lib += t1 - t0; base += t2 - t1;
        }
        row(k ? "seal + unseal 1 MiB vs bare XChaCha20-Poly1305" : "seal + unseal 4 KiB vs bare XChaCha20-Poly1305",
            lib / reps, base / reps, "us", 1e6);
        free(plain); free(sealed); free(back);
    }
    sodium_memzero(key, sizeof key);
    passcode_close(s);
    remove_store(path);
}

static char mailed[16];
static int32_t bench_deliver(void *p, const char *code, size_t n, char *m, size_t size) {
    (void)p; (void)m; (void)size;
    memcpy(mailed, code, n < 15 ? n : 15);
    mailed[n < 15 ? n : 15] = 0;
    return 0;
}

/* The integrity MAC (with a pepper) and the Argon2id reset-code check, each against its baseline. */
static void integrity_and_reset_rows(void) {
    char plain_path[256], pepper_path[256];
    snprintf(plain_path, sizeof plain_path, "%s/plain.db", shm_dir);
    snprintf(pepper_path, sizeof pepper_path, "%s/pepper.db", shm_dir);
    passcode_store *plain = make_store(plain_path);
    remove_store(pepper_path);
    static const uint8_t pepper[32] = {1, 2, 3, 4};
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_pepper(o, pepper, 32);
    passcode_store *peppered = NULL;
    if (passcode_open(pepper_path, o, &peppered) != PASSCODE_OK || passcode_set(peppered, PC, 6) != PASSCODE_OK) exit(1);
    passcode_options_free(o);
    uint32_t none[] = {0};
    passcode_set_custom_schedule(peppered, none, 1, 0);
    char hash[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str(hash, PC, 6, crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0) abort();
    passcode_set_reset_delivery_callback(plain, bench_deliver, NULL);
    if (passcode_reset_request(plain) != PASSCODE_OK) exit(1);
    enum { N = 10 };
    double with_mac = 0, without = 0, check = 0, bare = 0;
    for (int i = 0; i < N; i++) {
        double t0 = now_s();
        passcode_verify(peppered, PC, 6);
        double t1 = now_s();
        passcode_verify(plain, PC, 6);
        double t2 = now_s();
        passcode_reset_check(plain, mailed, strlen(mailed));  /* a correct check gives its try back */
        double t3 = now_s();
        if (crypto_pwhash_str_verify(hash, PC, 6) != 0) abort();
        double t4 = now_s();
        with_mac += t1 - t0; without += t2 - t1; check += t3 - t2; bare += t4 - t3;
    }
    row("verify with pepper + integrity MAC vs without (tmpfs)", with_mac / N, without / N, "ms", 1e3);
    row("passcode_reset_check vs bare Argon2id verify (tmpfs)", check / N, bare / N, "ms", 1e3);
    passcode_close(plain);
    passcode_close(peppered);
    remove_store(plain_path);
    remove_store(pepper_path);
}

/* The store's size after 10,000 failed attempts spread over simulated months: the bounded log. */
static int64_t sim_boot = 1000000, sim_wall = 1700000000000LL;
static void sim_clock(void *p, int64_t *b, int64_t *w, uint64_t *id) { (void)p; *b = sim_boot; *w = sim_wall; *id = 1; }

static void file_size_row(void) {
    char path[256], wal[300];
    snprintf(path, sizeof path, "%s/size.db", shm_dir);
    snprintf(wal, sizeof wal, "%s-wal", path);
    remove_store(path);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);  /* the size does not depend on the cost */
    passcode_options_set_clock(o, sim_clock, NULL);
    passcode_store *s = NULL;
    if (passcode_open(path, o, &s) != PASSCODE_OK || passcode_set(s, PC, 6) != PASSCODE_OK) exit(1);
    passcode_close(s);  /* the baseline: the same store before any failure, checkpointed by the close */
    struct stat fresh;
    double fresh_kb = stat(path, &fresh) == 0 ? (double)fresh.st_size / 1024.0 : 1;
    if (passcode_open(path, o, &s) != PASSCODE_OK) exit(1);
    uint32_t none[] = {0};
    passcode_set_custom_schedule(s, none, 1, 0);
    for (int i = 0; i < 10000; i++) {
        char wrong[16];
        snprintf(wrong, sizeof wrong, "9%05d", i);
        passcode_verify(s, wrong, 6);
        sim_boot += 15 * 60 * 1000;  /* one every 15 minutes: about 104 days */
        sim_wall += 15 * 60 * 1000;
    }
    passcode_close(s);
    passcode_store *again = NULL;
    passcode_open(path, o, &again);  /* the last close checkpointed the log into the file */
    passcode_close(again);
    passcode_options_free(o);
    struct stat st, sw;
    long db = stat(path, &st) == 0 ? (long)st.st_size : -1, log = stat(wal, &sw) == 0 ? (long)sw.st_size : 0;
    if (db < 0) cannot("store size after 10,000 failures (vs a new store)", "the store file is gone");
    else printf("%-52s %10.1fKB %10.1fKB %8.2f  (WAL %ld bytes; the log keeps 1,000 events / 90 days)\n",
                "store size after 10,000 failures vs a new store", db / 1024.0, fresh_kb, db / 1024.0 / fresh_kb, log);
    remove_store(path);
}

/* Peak resident memory of a child doing one verify, against one doing a bare verify. */
static long child_peak_kb(int use_lib, const char *path) {
    pid_t pid = fork();
    if (pid == 0) {
        if (use_lib) {
            passcode_store *s = NULL;
            passcode_open(path, NULL, &s);
            passcode_verify(s, PC, 6);
        } else {
            char hash[crypto_pwhash_STRBYTES];
            if (crypto_pwhash_str(hash, PC, 6, crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE) != 0) abort();
        }
        _exit(0);
    }
    int st;
    struct rusage ru;
    wait4(pid, &st, 0, &ru);
    return ru.ru_maxrss;
}

/* Where a function's library is loaded from (so the bench finds it wherever it runs from). */
static int library_of(void *symbol, char *out, size_t size) {
    Dl_info info;
    if (!dladdr(symbol, &info) || !info.dli_fname || !*info.dli_fname) return 0;
    if (!realpath(info.dli_fname, out)) snprintf(out, size, "%s", info.dli_fname);
    return 1;
}

/* dlopen(path) in a fresh process: bench_load (Tests/bench/load.c, linked to neither library)
 * next to this program, started with exec, prints the fastest of its runs in seconds. */
static double load_time(const char *path, char *why, size_t size) {
    char self[4096], helper[4200], cmd[8600];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) { snprintf(why, size, "/proc/self/exe unreadable"); return -1; }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    snprintf(helper, sizeof helper, "%s/bench_load", self);
    if (access(helper, X_OK) != 0) { snprintf(why, size, "%.500s missing (make bench builds it)", helper); return -1; }
    snprintf(cmd, sizeof cmd, "'%s' '%s' 2>&1", helper, path);
    FILE *p = popen(cmd, "r");
    if (!p) { snprintf(why, size, "popen failed"); return -1; }
    char line[512] = "";
    if (!fgets(line, sizeof line, p)) line[0] = 0;
    int st = pclose(p);
    line[strcspn(line, "\n")] = 0;
    char *end = NULL;
    double t = strtod(line, &end);
    if (st != 0 || end == line || t <= 0) { snprintf(why, size, "%.500s", *line ? line : "bench_load failed"); return -1; }
    return t;
}

#define LOAD_ROUNDS 30

/* The smallest of n values. */
static double fastest(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++) if (v[i] < m) m = v[i];
    return m;
}

static void load_row(void) {
    const char *what = "library load (fresh process) vs libsodium's";
    char lib[4096], sodium[4096], why[600];
    uint32_t (*ours)(void) = passcode_version_number;
    int (*theirs)(void) = sodium_init;
    void *a_symbol, *b_symbol;  /* dladdr takes an object pointer: copied, as ISO C allows */
    memcpy(&a_symbol, &ours, sizeof a_symbol);
    memcpy(&b_symbol, &theirs, sizeof b_symbol);
    if (!library_of(a_symbol, lib, sizeof lib)) { cannot(what, "dladdr found no libpasscode"); return; }
    Dl_info info;
    if (!dladdr(b_symbol, &info) || !info.dli_fname || !strrchr(info.dli_fname, '/')) { cannot(what, "dladdr found no libsodium"); return; }
    /* libsodium by the name it is linked by (libsodium.so.23), as every program loads it and as
     * libpasscode's NEEDED entry loads it: by name, the dynamic loader reads its cache
     * (/etc/ld.so.cache, about 15 µs here) once per process, and a program that links libsodium
     * pays that with or without libpasscode. A full path would skip the cache on the baseline's
     * side only, and charge it to libpasscode. */
    snprintf(sodium, sizeof sodium, "%s", strrchr(info.dli_fname, '/') + 1);
    /* Rounds that alternate the two, each side the fastest of 5 fresh processes per round; the
     * row gives the fastest of all 150 of each side: a load is about 0.1 ms, and the machine's
     * noise only ever adds to it (page faults, a descheduled process), so the fastest is the
     * cost itself, as timeit's documentation advises; alternating makes a quiet stretch serve
     * both sides. 45 of each side (9 rounds) still let libsodium's fastest move by a third
     * between runs on a shared 2-core machine; 150 take about 2 s. */
    double xs[LOAD_ROUNDS], ys[LOAD_ROUNDS];
    for (int round = 0; round < LOAD_ROUNDS; round++) {
        xs[round] = load_time(lib, why, sizeof why);
        if (xs[round] < 0) { cannot(what, why); return; }
        ys[round] = load_time(sodium, why, sizeof why);
        if (ys[round] < 0) { cannot(what, why); return; }
    }
    double a = fastest(xs, LOAD_ROUNDS), b = fastest(ys, LOAD_ROUNDS);
    row_bar(what, a, b, "us", 1e6, 2.0);
    printf("%-52s %s, and %s by name\n", "  (loaded from)", lib, sodium);
    /* libsqlite3 is loaded at the first store opened (Sources/shared/CSQLite/loader.c), not with the
     * library: what a program that opens a store pays in all is the library and libsqlite3, here
     * against libsodium and libsqlite3 loaded together, the same fresh-process way (what is left
     * above it is libpasscode's own load). */
    char both[8300], ours_both[4200];
    snprintf(both, sizeof both, "%s' 'libsqlite3.so.0", sodium);
    snprintf(ours_both, sizeof ours_both, "%.4000s' 'libsqlite3.so.0", lib);
    double c = -1, a2 = -1;
    for (int round = 0; round < LOAD_ROUNDS; round++) {
        xs[round] = load_time(ours_both, why, sizeof why);
        ys[round] = xs[round] < 0 ? -1 : load_time(both, why, sizeof why);
        if (xs[round] < 0 || ys[round] < 0) break;
        if (round == LOAD_ROUNDS - 1) { a2 = fastest(xs, LOAD_ROUNDS); c = fastest(ys, LOAD_ROUNDS); }
    }
    if (c < 0 || a2 < 0) cannot("load + libsqlite3 (a first open's) vs libsodium + libsqlite3", why);
    else row("load + libsqlite3 (a first open's) vs libsodium + libsqlite3", a2, c, "us", 1e6);
    /* The EMBEDDED=0 library, when make test-full-runtime (or make bench-full-runtime) built it. */
    char full[4200];
    snprintf(full, sizeof full, "%.4000s", lib);
    char *slash = strrchr(full, '/');
    if (slash) {
        snprintf(slash, sizeof full - (size_t)(slash - full), "/full-runtime/libpasscode.so.0");
        if (access(full, R_OK) == 0) {
            double d = load_time(full, why, sizeof why);
            if (d < 0) cannot("EMBEDDED=0 library load vs this one", why);
            else row("EMBEDDED=0 library load vs this one", d, a, "us", 1e6);
        }
    }
}

/* passcode_is_set and the one-call lock screen against the EMBEDDED=0 library (the full Swift
 * runtime linked in statically), when make test-full-runtime built it beside this one: loaded
 * with dlopen (RTLD_LOCAL, its own store), rounds interleaved with this library's, the fastest
 * of each kept. */
static void full_runtime_rows(passcode_store *ours, const char *dir) {
    const char *what = "passcode_is_set vs the EMBEDDED=0 build";
    char lib[4096], full[4200], path[300];
    uint32_t (*v)(void) = passcode_version_number;
    void *symbol;
    memcpy(&symbol, &v, sizeof symbol);
    if (!library_of(symbol, lib, sizeof lib)) { cannot(what, "dladdr found no libpasscode"); return; }
    char *slash = strrchr(lib, '/');
    if (slash) *slash = 0;
    snprintf(full, sizeof full, "%.4000s/full-runtime/libpasscode.so.0", lib);
    if (access(full, R_OK) != 0) { cannot(what, "no build/full-runtime/libpasscode.so.0 (make test-full-runtime builds it)"); return; }
    void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    if (!h) { cannot(what, dlerror()); return; }
    typedef passcode_status (*open_f)(const char *, passcode_options *, passcode_store **);
    typedef passcode_status (*set_f)(passcode_store *, const char *, size_t);
    typedef passcode_status (*is_set_f)(passcode_store *, int32_t *);
    typedef passcode_status (*screen_f)(passcode_store *, passcode_lock_screen *);
    typedef void (*close_f)(passcode_store *);
    open_f o; set_f st; is_set_f is; screen_f sc; close_f cl;
    void *p;
    p = dlsym(h, "passcode_open"); memcpy(&o, &p, sizeof o);
    p = dlsym(h, "passcode_set"); memcpy(&st, &p, sizeof st);
    p = dlsym(h, "passcode_is_set"); memcpy(&is, &p, sizeof is);
    p = dlsym(h, "passcode_lock_screen_read"); memcpy(&sc, &p, sizeof sc);
    p = dlsym(h, "passcode_close"); memcpy(&cl, &p, sizeof cl);
    if (!o || !st || !is || !sc || !cl) { cannot(what, "a function is missing from the EMBEDDED=0 library"); return; }
    snprintf(path, sizeof path, "%s/full-runtime.db", dir);
    remove_store(path);
    passcode_store *theirs = NULL;
    if (o(path, NULL, &theirs) != PASSCODE_OK || st(theirs, PC, 6) != PASSCODE_OK) { cannot(what, "its store did not open"); return; }
    enum { Q = 20000, ROUNDS = 25 };
    int32_t out;
    passcode_lock_screen screen;
    screen.size = sizeof screen;
    double a_set = 1e9, b_set = 1e9, a_poll = 1e9, b_poll = 1e9, t0, t1;
    for (int r = 0; r < ROUNDS; r++) {
        t0 = now_s(); for (int i = 0; i < Q; i++) passcode_is_set(ours, &out); t1 = now_s();
        if ((t1 - t0) / Q < a_set) a_set = (t1 - t0) / Q;
        t0 = now_s(); for (int i = 0; i < Q; i++) is(theirs, &out); t1 = now_s();
        if ((t1 - t0) / Q < b_set) b_set = (t1 - t0) / Q;
        t0 = now_s(); for (int i = 0; i < Q; i++) passcode_lock_screen_read(ours, &screen); t1 = now_s();
        if ((t1 - t0) / Q < a_poll) a_poll = (t1 - t0) / Q;
        t0 = now_s(); for (int i = 0; i < Q; i++) sc(theirs, &screen); t1 = now_s();
        if ((t1 - t0) / Q < b_poll) b_poll = (t1 - t0) / Q;
    }
    row_bar(what, a_set, b_set, "ns", 1e9, 1.0);
    row_bar("lock-screen poll (one call) vs the EMBEDDED=0 build", a_poll, b_poll, "ns", 1e9, 1.0);
    cl(theirs);
    remove_store(path);
}

/* Rows with a median: PASSCODE_BENCH_RUNS runs (make bench BENCH_RUNS=n; default 5, at most
 * MAX_RUNS), each measured in full; the row gives the run of the median ratio, and the runs'
 * ratios are listed under it. One run's noise on a shared machine then moves no row. */
#define MAX_RUNS 25

static int bench_runs(void) {
    const char *e = getenv("PASSCODE_BENCH_RUNS");
    int n = e && *e ? atoi(e) : 5;
    return n < 1 ? 1 : n > MAX_RUNS ? MAX_RUNS : n;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (the lower middle one when n is even). */
static double median(const double *v, int n) {
    double sorted[MAX_RUNS] = {0};
    memcpy(sorted, v, (size_t)n * sizeof *v);
    qsort(sorted, (size_t)n, sizeof *sorted, by_value);
    return sorted[(n - 1) / 2];
}

/* The row of the run whose lib/base ratio is the median, with its bar, and every run's ratio. */
static void row_median(const char *what, const double *lib, const double *base, int n, const char *unit, double scale, double bar) {
    double ratios[MAX_RUNS] = {0};
    for (int i = 0; i < n; i++) ratios[i] = lib[i] / base[i];
    double m = median(ratios, n);
    int at = 0;
    while (at < n - 1 && ratios[at] != m) at++;
    if (bar > 0) row_bar(what, lib[at], base[at], unit, scale, bar);
    else row(what, lib[at], base[at], unit, scale);
    printf("%-52s", n == 1 ? "  (1 run)" : "  (each run's ratio; the row: the median)");
    for (int i = 0; i < n; i++) printf(" %.3f", ratios[i]);
    printf("\n");
}

/* One open + close of the store, through SQLite alone: what any program pays to open an SQLite
 * file and read it (the schema, at the first statement) before libpasscode checks anything. */
static void sqlite_open_close(const char *path) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) abort();
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) abort();
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* Seconds per open + close through bench_open_close (Tests/bench/open_close.c, next to this
 * program) of `lib`, in a fresh process: its fastest batch; < 0 with the reason in why when it
 * could not. */
static double open_close_in(const char *lib, const char *store, int batches, int count, char *why, size_t size) {
    char self[4096], cmd[9000];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) { snprintf(why, size, "/proc/self/exe unreadable"); return -1; }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    snprintf(cmd, sizeof cmd, "'%.4000s/bench_open_close' '%.4000s' '%.500s' %d %d 2>&1", self, lib, store, batches, count);
    FILE *p = popen(cmd, "r");
    if (!p) { snprintf(why, size, "popen failed"); return -1; }
    char line[512] = "";
    if (!fgets(line, sizeof line, p)) line[0] = 0;
    int st = pclose(p);
    line[strcspn(line, "\n")] = 0;
    char *end = NULL;
    double t = strtod(line, &end);
    if (st != 0 || end == line || t <= 0) { snprintf(why, size, "%.500s", *line ? line : "bench_open_close failed"); return -1; }
    return t;
}

/* open + close of an existing store: against a bare open(2) + close(2) of the same file, against
 * SQLite's own open + first read + close of it, and against the library of an earlier release
 * (make bench-baseline: 0.7.0). Each in batches of B, interleaved, the fastest batch of each
 * kept (an open + close is a fixed amount of work: noise only adds to it), in every run. What an
 * open does beyond SQLite's part, and why, is in docs/hacking.md ("What an open costs"). */
static void open_close_rows(const char *path, int runs) {
    enum { B = 20, BATCHES = 10, PROCESSES = 3 };
    double lib_r[MAX_RUNS], bare_r[MAX_RUNS], sql_r[MAX_RUNS], t0, t1, t2, t3;
    for (int run = 0; run < runs; run++) {
        lib_r[run] = bare_r[run] = sql_r[run] = 1e9;
        for (int b = 0; b < BATCHES; b++) {
            t0 = now_s();
            for (int i = 0; i < B; i++) { passcode_store *x = NULL; passcode_open(path, NULL, &x); passcode_close(x); }
            t1 = now_s();
            for (int i = 0; i < B; i++) { int fd = open(path, O_RDWR | O_CLOEXEC); if (fd >= 0) close(fd); }
            t2 = now_s();
            for (int i = 0; i < B; i++) sqlite_open_close(path);
            t3 = now_s();
            if ((t1 - t0) / B < lib_r[run]) lib_r[run] = (t1 - t0) / B;
            if ((t2 - t1) / B < bare_r[run]) bare_r[run] = (t2 - t1) / B;
            if ((t3 - t2) / B < sql_r[run]) sql_r[run] = (t3 - t2) / B;
        }
    }
    row_median("open + close of a store vs bare open(2) + close(2)", lib_r, bare_r, runs, "us", 1e6, 0);
    row_median("open + close vs SQLite's open + first read + close", lib_r, sql_r, runs, "us", 1e6, 0);

    const char *what = "open + close vs the 0.7.0 library's (own processes)";
    char lib[4096], base[4300], why[600], ours_store[300], their_store[300];
    uint32_t (*v)(void) = passcode_version_number;
    void *symbol;
    memcpy(&symbol, &v, sizeof symbol);
    if (!library_of(symbol, lib, sizeof lib)) { cannot(what, "dladdr found no libpasscode"); return; }
    snprintf(base, sizeof base, "%.4000s", lib);
    char *slash = strrchr(base, '/');
    if (slash) snprintf(slash, sizeof base - (size_t)(slash - base), "/baseline-0.7.0/libpasscode.so.0");
    if (access(base, R_OK) != 0) { cannot(what, "no build/baseline-0.7.0/libpasscode.so.0 (make bench-baseline builds it)"); return; }
    snprintf(ours_store, sizeof ours_store, "%s/ours.db", shm_dir);
    snprintf(their_store, sizeof their_store, "%s/baseline.db", shm_dir);
    for (int run = 0; run < runs; run++) {
        lib_r[run] = bare_r[run] = 1e9;
        for (int p = 0; p < PROCESSES; p++) {  /* alternating, each the fastest of its batches */
            double a = open_close_in(lib, ours_store, BATCHES, B, why, sizeof why);
            if (a < 0) { cannot(what, why); return; }
            double b = open_close_in(base, their_store, BATCHES, B, why, sizeof why);
            if (b < 0) { cannot(what, why); return; }
            if (a < lib_r[run]) lib_r[run] = a;
            if (b < bare_r[run]) bare_r[run] = b;
        }
    }
    row_median(what, lib_r, bare_r, runs, "us", 1e6, 1.0);
    remove_store(ours_store);
    remove_store(their_store);
}

static void remove_dirs(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", shm_dir, disk_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s, %s\n", shm_dir, disk_dir);
}

int main(void) {
    if (sodium_init() < 0) return 1;
    if (!mkdtemp(shm_dir) || !mkdtemp(disk_dir)) { perror("mkdtemp"); return 1; }
    atexit(remove_dirs);
    printf("libpasscode %s benchmarks; Argon2id INTERACTIVE (t=2, 64 MiB); %ld cores\n", passcode_version_string(), sysconf(_SC_NPROCESSORS_ONLN));
    printf("%-52s %12s %12s %8s\n", "measure", "libpasscode", "baseline", "ratio");
    const char *only = getenv("PASSCODE_BENCH_ONLY");
    int calls_only = only && !strcmp(only, "calls");  /* make bench-calls: the cheap calls and the load */
    if (!calls_only) {
        verify_rows(shm_dir, "tmpfs", 1.02);
        verify_rows(disk_dir, "disk", 1.05);
        if (only && !strcmp(only, "verify")) return 0;  /* make bench-verify */
        tpm_rows();
        integrity_and_reset_rows();
        seal_rows();
        file_size_row();
    }

    char path[256];
    snprintf(path, sizeof path, "%s/calls.db", shm_dir);
    passcode_store *s = make_store(path);

    /* Cheap calls, against a call that only crosses the ABI. Interleaved rounds, the fastest
     * round of each kept, so that a busy machine (shared cores) hits all alike; the whole of it
     * measured in `runs` runs, and the rows give the median run. */
    enum { Q = 20000, ROUNDS = 25 };
    int runs = bench_runs();
    int32_t v;
    passcode_lock_screen screen;
    screen.size = sizeof screen;
    int32_t locked, reason, refusal;
    int64_t left;
    double is_set_r[MAX_RUNS], empty_r[MAX_RUNS], poll_r[MAX_RUNS], three_r[MAX_RUNS], t0, t1;
    for (int run = 0; run < runs; run++) {
        double is_set_t = 1e9, empty_call = 1e9, poll_t = 1e9, three_t = 1e9;
        for (int r = 0; r < ROUNDS; r++) {
            t0 = now_s();
            for (int i = 0; i < Q; i++) passcode_is_set(s, &v);
            t1 = now_s();
            if ((t1 - t0) / Q < is_set_t) is_set_t = (t1 - t0) / Q;
            t0 = now_s();
            for (int i = 0; i < Q; i++) (void)passcode_version_number();
            t1 = now_s();
            if ((t1 - t0) / Q < empty_call) empty_call = (t1 - t0) / Q;
            /* What a lock screen polls each frame, all answered from the cache while nothing commits. */
            t0 = now_s();
            for (int i = 0; i < Q; i++) passcode_lock_screen_read(s, &screen);
            t1 = now_s();
            if ((t1 - t0) / Q < poll_t) poll_t = (t1 - t0) / Q;
            t0 = now_s();
            for (int i = 0; i < Q; i++) {
                passcode_lock_state(s, &locked, &reason);
                passcode_lockout_remaining(s, &left);
                passcode_biometric_check(s, &refusal);
            }
            t1 = now_s();
            if ((t1 - t0) / Q < three_t) three_t = (t1 - t0) / Q;
        }
        is_set_r[run] = is_set_t;
        empty_r[run] = empty_call;
        poll_r[run] = poll_t;
        three_r[run] = three_t;
    }
    double empty_call = median(empty_r, runs);
    row("passcode_is_set (cached answer) vs an empty ABI call", median(is_set_r, runs), empty_call, "ns", 1e9);
    row_median("lock-screen poll (one call) vs passcode_is_set", poll_r, is_set_r, runs, "ns", 1e9, 1.1);
    full_runtime_rows(s, shm_dir);
    row("the same poll as 3 calls vs the one call", median(three_r, runs), median(poll_r, runs), "ns", 1e9);
    /* The same query when another connection committed just before: read from the file. */
    enum { W = 300 };
    passcode_store *other = NULL;
    if (passcode_open(path, NULL, &other) != PASSCODE_OK) abort();
    double read_after = 0, cached_again = 0, t2;
    for (int i = 0; i < W; i++) {
        if (passcode_event_report(other, PASSCODE_APP_EVENT_BACKGROUND, NULL) != PASSCODE_OK) abort();
        t0 = now_s();
        passcode_is_set(s, &v);
        t1 = now_s();
        passcode_is_set(s, &v);
        t2 = now_s();
        read_after += t1 - t0;
        cached_again += t2 - t1;
    }
    passcode_close(other);
    row("passcode_is_set after a commit elsewhere vs cached", read_after / W, cached_again / W, "ns", 1e9);
    passcode_flow *f = NULL;
    passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &f);
    t0 = now_s();
    for (int i = 0; i < Q; i++) { passcode_flow_digit(f, 3); passcode_flow_delete(f); }
    t1 = now_s();
    row("a digit into a flow (+ delete) vs an empty ABI call", (t1 - t0) / (2 * Q), empty_call, "ns", 1e9);
    passcode_flow_free(f);

    passcode_close(s);
    open_close_rows(path, runs);

    load_row();
    if (calls_only) {
        remove_store(path);
        return 0;
    }

    /* N processes verifying at once vs one. */
    int procs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (procs > 8) procs = 8;
    if (procs < 2) procs = 2;
    enum { V = 6 };
    double single = 0, multi = 0;
    for (int round = 0; round < 2; round++) {
        int n = round == 0 ? 1 : procs;
        t0 = now_s();
        for (int p = 0; p < n; p++) {
            if (fork() == 0) {
                passcode_store *c = NULL;
                if (passcode_open(path, NULL, &c) != PASSCODE_OK) _exit(1);
                for (int k = 0; k < V; k++) passcode_verify(c, PC, 6);
                passcode_close(c);
                _exit(0);
            }
        }
        for (int p = 0; p < n; p++) wait(NULL);
        t1 = now_s();
        if (round == 0) single = V / (t1 - t0); else multi = n * V / (t1 - t0);
    }
    char what[128];
    snprintf(what, sizeof what, "verify throughput, %d processes vs 1 (per second)", procs);
    printf("%-52s %10.1f   %10.1f   %8.2f\n", what, multi, single, multi / single);

    long lib_kb = child_peak_kb(1, path), bare_kb = child_peak_kb(0, path);
    if (lib_kb <= 0 || bare_kb <= 0) cannot("peak memory of a verify vs a bare Argon2id hash", "wait4 gave no usage");
    else printf("%-52s %10.1fMB %10.1fMB %8.3f  (Argon2id setting %.1f MB)\n", "peak memory of a verify vs a bare Argon2id hash",
                lib_kb / 1024.0, bare_kb / 1024.0, (double)lib_kb / (double)bare_kb, crypto_pwhash_MEMLIMIT_INTERACTIVE / 1048576.0);
    remove_store(path);
    return 0;
}
