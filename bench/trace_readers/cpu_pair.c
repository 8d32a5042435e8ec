/* Where the host put two vCPUs: the round trip of one cache line between CPU A and CPU B (default 0 and 1),
 * averaged over 20 ms, printed in ns. On this VM it is bimodal: ~50-85 ns when the two vCPUs share a cache,
 * ~330-430 ns when the host runs them apart; a two-core ingest then takes 2.1-2.5x as long while each core alone
 * runs at full speed (bench/RESULTS.md, 2026-11-30 seventh session). ab_binary.sh runs it around every step.
 * Build: gcc -O2 -pthread -o cpu_pair cpu_pair.c; usage: cpu_pair [A B] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Atomic long flag __attribute__((aligned(64)));
static _Atomic int done;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *pong(void *arg) {
    if (pin(*(int *)arg) != 0) {
        fprintf(stderr, "cpu_pair: cannot run on CPU %d\n", *(int *)arg);
        exit(2);
    }
    for (long v = 1;; v += 2) {  /* answer each odd value with the next even one */
        while (atomic_load_explicit(&flag, memory_order_acquire) != v)
            if (atomic_load_explicit(&done, memory_order_relaxed)) return NULL;
        atomic_store_explicit(&flag, v + 1, memory_order_release);
    }
}

int main(int argc, char **argv) {
    int a = argc > 2 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 1;
    pthread_t t;
    /* the helper first: started with a mask of a alone, it would wait on a for this spinning thread */
    pthread_create(&t, NULL, pong, &b);
    if (pin(a) != 0) {
        fprintf(stderr, "cpu_pair: cannot run on CPU %d\n", a);
        return 2;
    }
    long v = 0, n = 0;
    double start = now();
    while (now() - start < 0.02) {
        for (int i = 0; i < 200; i++, v += 2) {
            atomic_store_explicit(&flag, v + 1, memory_order_release);
            while (atomic_load_explicit(&flag, memory_order_acquire) != v + 2) {
            }
        }
        n += 200;
    }
    double spent = now() - start;
    atomic_store(&done, 1);
    pthread_join(t, NULL);
    printf("%.0f\n", spent / n * 1e9);
    return 0;
}
