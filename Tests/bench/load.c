/* make bench's load-time helper: dlopen of each library named, in order, in this fresh process,
 * linked to neither libpasscode nor libsodium, so that nothing is loaded already (several
 * libraries: the time of loading them all, for a baseline of libsodium and libsqlite3 together). Runs 5 times (each in a new
 * child, started with exec by the caller's first run) and prints the fastest in seconds, or
 * the reason it could not load the library (exit 1). */
#define _GNU_SOURCE
#include <dlfcn.h>
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

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "--once") == 0) {
        double total = 0;
        for (int i = 2; i < argc; i++) {
            double a = now_s();
            void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
            total += now_s() - a;
            if (!h) { printf("dlopen: %s\n", dlerror()); return 1; }
        }
        printf("%.9f\n", total);
        return 0;
    }
    if (argc < 2 || argc > 5) { fprintf(stderr, "usage: bench_load LIBRARY [LIBRARY...] (at most 4)\n"); return 2; }
    double best = -1;
    for (int i = 0; i < 5; i++) {
        int fds[2];
        if (pipe(fds) != 0) return 1;
        pid_t pid = fork();
        if (pid == 0) {
            dup2(fds[1], 1);
            close(fds[0]);
            char *args[8] = {argv[0], "--once"};
            for (int k = 1; k < argc; k++) args[k + 1] = argv[k];
            args[argc + 1] = NULL;
            execv("/proc/self/exe", args);
            printf("exec: failed\n");
            _exit(1);
        }
        close(fds[1]);
        char line[512] = "";
        ssize_t n = read(fds[0], line, sizeof line - 1);
        close(fds[0]);
        int st = 0;
        waitpid(pid, &st, 0);
        line[n > 0 ? n : 0] = 0;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) { printf("%s", *line ? line : "the child failed\n"); return 1; }
        double t = strtod(line, NULL);
        if (best < 0 || t < best) best = t;
    }
    printf("%.9f\n", best);
    return 0;
}
