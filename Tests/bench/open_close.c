/* make bench's open + close helper: loads the libpasscode named (dlopen, in this fresh process,
 * so that two versions of the library never share one), makes a store with a passcode at the
 * path named, then times COUNT opens and closes of it and prints the mean in seconds, or why it
 * could not (exit 1). The bench runs it for this build and for a baseline build (bench-baseline)
 * in turn, so that the two are measured alike, in the same minutes of a shared machine. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int32_t (*open_f)(const char *, void *, void **);
typedef int32_t (*is_set_f)(void *, int32_t *);
typedef int32_t (*set_f)(void *, const char *, size_t);
typedef void (*close_f)(void *);

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: bench_open_close LIBRARY STORE BATCHES COUNT\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { printf("dlopen: %s\n", dlerror()); return 1; }
    open_f o; is_set_f is; set_f st; close_f cl;
    void *p;
    p = dlsym(lib, "passcode_open"); memcpy(&o, &p, sizeof o);
    p = dlsym(lib, "passcode_is_set"); memcpy(&is, &p, sizeof is);
    p = dlsym(lib, "passcode_set"); memcpy(&st, &p, sizeof st);
    p = dlsym(lib, "passcode_close"); memcpy(&cl, &p, sizeof cl);
    if (!o || !is || !st || !cl) { printf("a function is missing from %s\n", argv[1]); return 1; }
    void *s = NULL;
    int32_t set = 0;
    if (o(argv[2], NULL, &s) != 0 || is(s, &set) != 0 || (!set && st(s, "386491", 6) != 0)) {
        printf("the store %s did not open\n", argv[2]);
        return 1;
    }
    cl(s);
    int batches = atoi(argv[3]), count = atoi(argv[4]);
    if (batches < 1) batches = 1;
    if (count < 1) count = 1;
    double fastest = 1e9;
    for (int b = 0; b < batches; b++) {
        double t0 = now_s();
        for (int i = 0; i < count; i++) {
            void *x = NULL;
            if (o(argv[2], NULL, &x) != 0) { printf("an open of %s failed\n", argv[2]); return 1; }
            cl(x);
        }
        double t = (now_s() - t0) / count;
        if (t < fastest) fastest = t;
    }
    printf("%.9f\n", fastest);
    return 0;
}
