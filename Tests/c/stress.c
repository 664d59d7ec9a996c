/* stress PROCESSES THREADS ROUNDS: many processes, each with one handle shared by many threads,
 * all verifying against one store at once (cheap Argon2id so that the store is the bottleneck).
 *   A. all wrong: the failure counter is exact, and no call sees anything but WRONG_PASSCODE
 *      (in particular never BUSY);
 *   B. right and wrong mixed: every call is OK or WRONG_PASSCODE; one more success clears it;
 *   C. lockout across processes: with a 60 s lockout after 5 failures, exactly 5 attempts get
 *      checked; every other call, in any process, is LOCKED_OUT.
 * Prints "N passed, N failed". */
#include <passcode.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

#define PC1 "386491"

static char path[128];
static int threads_per_process, rounds;
static int phase;

typedef struct { long ok, wrong, locked, other; } tally;
static tally *shared;  /* one per process, in shared memory */

typedef struct { passcode_store *s; int process, thread; tally t; } worker;

static void *run(void *p) {
    worker *w = p;
    for (int r = 0; r < rounds; r++) {
        char g[16];
        int right = phase == 1 && (w->thread + r) % 2 == 0;
        if (right) snprintf(g, sizeof g, "%s", PC1);
        else snprintf(g, sizeof g, "9%01d%02d%02d", w->process % 10, w->thread % 100, r % 100);
        int32_t rc = passcode_verify(w->s, g, 6);
        if (rc == PASSCODE_OK) w->t.ok++;
        else if (rc == PASSCODE_ERR_WRONG_PASSCODE) w->t.wrong++;
        else if (rc == PASSCODE_ERR_LOCKED_OUT) w->t.locked++;
        else { w->t.other++; fprintf(stderr, "unexpected %d: %s\n", rc, passcode_errmsg(w->s)); }
    }
    return NULL;
}

static passcode_store *open_store(void) {
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_store *s = NULL;
    if (passcode_open(path, o, &s) != PASSCODE_OK) { fprintf(stderr, "open: %s\n", passcode_errmsg(NULL)); exit(3); }
    passcode_options_free(o);
    return s;
}

static void process(int index) {
    passcode_store *s = open_store();
    pthread_t *t = calloc((size_t)threads_per_process, sizeof *t);
    worker *w = calloc((size_t)threads_per_process, sizeof *w);
    for (int i = 0; i < threads_per_process; i++) {
        w[i].s = s; w[i].process = index; w[i].thread = i;
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    tally sum = {0, 0, 0, 0};
    for (int i = 0; i < threads_per_process; i++) {
        pthread_join(t[i], NULL);
        sum.ok += w[i].t.ok; sum.wrong += w[i].t.wrong; sum.locked += w[i].t.locked; sum.other += w[i].t.other;
    }
    shared[index] = sum;
    passcode_close(s);
    _exit(0);
}

static tally run_phase(int processes) {
    memset(shared, 0, sizeof(tally) * (size_t)processes);
    pid_t *pids = calloc((size_t)processes, sizeof *pids);
    for (int p = 0; p < processes; p++) if ((pids[p] = fork()) == 0) process(p);
    tally sum = {0, 0, 0, 0};
    for (int p = 0; p < processes; p++) {
        int st;
        waitpid(pids[p], &st, 0);
        sum.ok += shared[p].ok; sum.wrong += shared[p].wrong; sum.locked += shared[p].locked; sum.other += shared[p].other;
    }
    free(pids);
    return sum;
}


int main(int argc, char **argv) {
    int processes = argc > 1 ? atoi(argv[1]) : 8;
    threads_per_process = argc > 2 ? atoi(argv[2]) : 16;
    rounds = argc > 3 ? atoi(argv[3]) : 3;
    char dir[] = "/tmp/passcode-stress-XXXXXX";  /* a 0700 folder of its own */
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 2; }
    snprintf(path, sizeof path, "%s/store.db", dir);
    shared = mmap(NULL, sizeof(tally) * (size_t)processes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    passcode_store *s = open_store();
    passcode_set(s, PC1, 6);
    uint32_t none[] = {0};
    passcode_set_custom_schedule(s, none, 1, 0);
    long total = (long)processes * threads_per_process * rounds;
    int32_t n = -1;

    phase = 0;
    tally a = run_phase(processes);
    passcode_failed_attempts(s, &n);
    CHECK_MSG(a.wrong == total && a.other == 0 && a.locked == 0, "A: %ld wrong of %ld, %ld other", a.wrong, total, a.other);
    CHECK_MSG(n == total, "A: counter %d, expected exactly %ld", n, total);

    phase = 1;
    tally b = run_phase(processes);
    CHECK_MSG(b.ok + b.wrong == total && b.other == 0, "B: %ld ok + %ld wrong of %ld, %ld other", b.ok, b.wrong, total, b.other);
    passcode_failed_attempts(s, &n);
    CHECK_MSG(n >= 0 && n <= b.wrong, "B: counter %d outside 0..%ld", n, b.wrong);
    CHECK_MSG(passcode_verify(s, PC1, 6) == PASSCODE_OK, "B: final success");
    passcode_failed_attempts(s, &n);
    CHECK_MSG(n == 0, "B: counter %d after a success", n);

    uint32_t lock5[] = {0, 0, 0, 0, 60};
    passcode_set_custom_schedule(s, lock5, 5, 0);
    phase = 2;
    tally c = run_phase(processes);
    passcode_failed_attempts(s, &n);
    CHECK_MSG(c.wrong == 5 && c.locked == total - 5 && c.other == 0, "C: %ld checked (want 5), %ld locked out (want %ld), %ld other", c.wrong, c.locked, total - 5, c.other);
    CHECK_MSG(n == 5, "C: counter %d, want 5", n);

    passcode_close(s);
    unlink(path);
    char extra[200];
    snprintf(extra, sizeof extra, "%s-wal", path); unlink(extra);
    snprintf(extra, sizeof extra, "%s-shm", path); unlink(extra);
    rmdir(dir);
    printf("stress: %d processes x %d threads x %d rounds = %ld verifies per phase; busy errors: %ld\n",
           processes, threads_per_process, rounds, total, a.other + b.other + c.other);
    return tl_summary();
}
