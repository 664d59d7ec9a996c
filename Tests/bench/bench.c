/* make bench: libpasscode against a bare libsodium baseline, measured in the same run.
 * Prints ratios (and ns per call for cheap calls); asserts nothing. */
#include <passcode.h>
#include <sodium.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *store_dir(void) {
    /* tmpfs when there is one: the figure then shows libpasscode's own overhead. */
    return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

int main(void) {
    if (sodium_init() < 0) return 1;
    char path[256];
    snprintf(path, sizeof path, "%s/passcode-bench-%d.db", store_dir(), (int)getpid());
    passcode_store *s = NULL;
    if (passcode_open(path, NULL, &s) != PASSCODE_OK) { fprintf(stderr, "open: %s\n", passcode_errmsg(NULL)); return 1; }
    const char *pc = "386491";
    if (passcode_set(s, pc, 6) != PASSCODE_OK) { fprintf(stderr, "set: %s\n", passcode_errmsg(s)); return 1; }
    char hash[crypto_pwhash_STRBYTES];
    crypto_pwhash_str(hash, pc, 6, crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE);

    enum { N = 12 };
    /* Interleave the two so that machine noise hits both alike. */
    double bare = 0, lib_ok = 0, lib_bad = 0;
    for (int i = 0; i < N; i++) {
        double t0 = now_s();
        if (crypto_pwhash_str_verify(hash, pc, 6) != 0) return 1;
        double t1 = now_s();
        if (passcode_verify(s, pc, 6) != PASSCODE_OK) { fprintf(stderr, "verify: %s\n", passcode_errmsg(s)); return 1; }
        double t2 = now_s();
        char wrong[8];
        snprintf(wrong, sizeof wrong, "90%04d", 1357 + 2 * i);
        passcode_verify(s, wrong, 6);  /* a failed verify with its durable record */
        double t3 = now_s();
        passcode_verify(s, pc, 6);     /* clear the counter so no lockout starts */
        bare += t1 - t0; lib_ok += t2 - t1; lib_bad += t3 - t2;
    }
    printf("libpasscode benchmarks (store on %s, Argon2id INTERACTIVE t=2 m=64MiB, %d rounds)\n", store_dir(), N);
    printf("%-44s %12s %12s %8s\n", "measure", "libpasscode", "baseline", "ratio");
    printf("%-44s %10.2fms %10.2fms %8.3f\n", "verify, right passcode vs bare verify", lib_ok / N * 1e3, bare / N * 1e3, lib_ok / bare);
    printf("%-44s %10.2fms %10.2fms %8.3f\n", "verify, wrong passcode (durable) vs bare", lib_bad / N * 1e3, bare / N * 1e3, lib_bad / bare);

    /* A cheap query, against a call that does nothing but cross the ABI. */
    enum { Q = 20000 };
    int32_t v;
    double t0 = now_s();
    for (int i = 0; i < Q; i++) passcode_is_set(s, &v);
    double t1 = now_s();
    for (int i = 0; i < Q; i++) (void)passcode_version_number();
    double t2 = now_s();
    printf("%-44s %10.0fns %10.0fns %8.1f\n", "passcode_is_set vs passcode_version_number", (t1 - t0) / Q * 1e9, (t2 - t1) / Q * 1e9, (t1 - t0) / (t2 - t1));

    /* open + close of an existing store. */
    enum { O = 200 };
    passcode_close(s);
    t0 = now_s();
    for (int i = 0; i < O; i++) { passcode_store *x = NULL; passcode_open(path, NULL, &x); passcode_close(x); }
    t1 = now_s();
    printf("%-44s %10.0fus\n", "open + close of a store", (t1 - t0) / O * 1e6);

    /* Two processes verifying at once vs one: throughput ratio (ideal: the core count, at most 2 here). */
    int procs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (procs > 4) procs = 4;
    enum { V = 6 };
    double single, multi;
    for (int round = 0; round < 2; round++) {
        int n = round == 0 ? 1 : procs;
        t0 = now_s();
        for (int p = 0; p < n; p++) {
            if (fork() == 0) {
                passcode_store *c = NULL;
                if (passcode_open(path, NULL, &c) != PASSCODE_OK) _exit(1);
                for (int k = 0; k < V; k++) passcode_verify(c, pc, 6);
                passcode_close(c);
                _exit(0);
            }
        }
        for (int p = 0; p < n; p++) wait(NULL);
        t1 = now_s();
        if (round == 0) single = V / (t1 - t0); else multi = n * V / (t1 - t0);
    }
    printf("%-44s %8.1f/s %9.1f/s %8.2f  (%d processes, %ld cores)\n", "verify throughput, N processes vs 1", multi, single, multi / single, procs, sysconf(_SC_NPROCESSORS_ONLN));
    unlink(path);
    char extra[300];
    snprintf(extra, sizeof extra, "%s-wal", path); unlink(extra);
    snprintf(extra, sizeof extra, "%s-shm", path); unlink(extra);
    return 0;
}
