/* blkscope journal writer: an append-only journal as in the low-latency journalling study (STUDIES.md, 4).
 *
 * One writer appends fixed-size records at a fixed rate to a segment file and times every write() (and every
 * fdatasync(), separately) with clock_gettime(CLOCK_MONOTONIC). Open loop: write i is due at start + i/rate, so a
 * stalled write does not lower the offered rate (the stall shows in its own latency and in `late_writes`).
 * Segment preparation (--mode), done before timing starts:
 *   none     the file does not exist; the first write creates it and every write extends it (O_APPEND).
 *   sparse   ftruncate() to the final size: the inode has its size, but no blocks; writes fill holes (pwrite).
 *   prealloc fallocate() the final size, fill it with zeros, fsync: blocks allocated and written (pwrite).
 * --phase prepare does only that and exits; --phase run skips it (the file must have been prepared), so a caller
 * can prepare, sync and only then start tracing. The default, all, does both.
 * --reader starts a thread that pread()s --read-size bytes at random offsets below the writer's current end of
 * the same file, at --read-rate per second (0: as fast as it can), timing each read.
 * Output: one JSON document on stdout with the options, and per operation (write, fdatasync, read) count, mean,
 * min, p50, p99, p99.99, max (exact, from every sample) and a log-linear histogram in ns: width 1 below 64 ns,
 * then 32 buckets per power of two (relative width <= 1/32), as [lo, hi, count] with lo <= v < hi.
 *
 * Build: gcc -O2 -Wall -pthread -o journal journal.c   Usage: journal --help */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define VERSION "1"
#define SUB_BITS 5
#define NBUCKETS 2048

typedef struct {
    uint64_t *v;  /* every sample, for exact percentiles */
    size_t n, cap;
    uint64_t hist[NBUCKETS];
} lat_t;

static struct {
    const char *path, *mode, *phase;
    double duration_s, rate;
    long record, sync_every, read_size;
    int reader;
    double read_rate;
    unsigned seed;
} opt = {NULL, "none", "all", 10, 1000, 512, 0, 4096, 0, 0, 1};

static atomic_long written_end;  /* bytes the writer has completed: the reader stays below */
static atomic_int stop;
static int fd;
static lat_t lat_write, lat_sync, lat_read;

static void die(const char *what) {
    fprintf(stderr, "journal: %s: %s\n", what, strerror(errno));
    exit(1);
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_until(uint64_t ns) {
    struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {
    }
}

static unsigned bucket(uint64_t v) {
    if (v < (1u << (SUB_BITS + 1)))
        return (unsigned)v;
    unsigned shift = (63 - __builtin_clzll(v)) - SUB_BITS;
    return shift * (1u << SUB_BITS) + (unsigned)(v >> shift);
}

static void bucket_range(unsigned i, uint64_t *lo, uint64_t *hi) {
    if (i < (1u << (SUB_BITS + 1))) {
        *lo = i;
        *hi = i + 1;
        return;
    }
    unsigned shift = i / (1u << SUB_BITS) - 1, sub = i % (1u << SUB_BITS) + (1u << SUB_BITS);
    *lo = (uint64_t)sub << shift;
    *hi = (uint64_t)(sub + 1) << shift;
}

static void record(lat_t *l, uint64_t v) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 65536;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            die("realloc");
    }
    l->v[l->n++] = v;
    l->hist[bucket(v)]++;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* nearest-rank percentile of sorted samples */
static uint64_t pct(const lat_t *l, double p) {
    size_t r = (size_t)(p / 100.0 * (double)l->n + 0.999999999);
    if (r < 1)
        r = 1;
    return l->v[r - 1];
}

static void print_lat(const char *name, lat_t *l, int last) {
    double sum = 0;
    for (size_t i = 0; i < l->n; i++)
        sum += (double)l->v[i];
    qsort(l->v, l->n, sizeof *l->v, cmp_u64);
    printf("    \"%s\": {\"count\": %zu", name, l->n);
    if (l->n)
        printf(", \"mean_ns\": %.1f, \"min_ns\": %llu, \"p50_ns\": %llu, \"p99_ns\": %llu, \"p9999_ns\": %llu, "
               "\"max_ns\": %llu",
               sum / (double)l->n, (unsigned long long)l->v[0], (unsigned long long)pct(l, 50),
               (unsigned long long)pct(l, 99), (unsigned long long)pct(l, 99.99),
               (unsigned long long)l->v[l->n - 1]);
    printf(", \"histogram\": [");
    int first = 1;
    for (unsigned i = 0; i < NBUCKETS; i++) {
        if (!l->hist[i])
            continue;
        uint64_t lo, hi;
        bucket_range(i, &lo, &hi);
        printf("%s[%llu, %llu, %llu]", first ? "" : ", ", (unsigned long long)lo, (unsigned long long)hi,
               (unsigned long long)l->hist[i]);
        first = 0;
    }
    printf("]}%s\n", last ? "" : ",");
}

static void *reader_main(void *arg) {
    (void)arg;
    char *buf = malloc((size_t)opt.read_size);
    uint64_t state = opt.seed * 0x9E3779B97F4A7C15ull + 1, next = now_ns();
    uint64_t step = opt.read_rate > 0 ? (uint64_t)(1e9 / opt.read_rate) : 0;
    while (!atomic_load(&stop)) {
        long end = atomic_load(&written_end);
        if (end < opt.read_size) {
            usleep(1000);
            continue;
        }
        state ^= state << 13, state ^= state >> 7, state ^= state << 17; /* xorshift64 */
        off_t off = (off_t)(state % (uint64_t)(end - opt.read_size + 1)) & ~(off_t)511;
        uint64_t t0 = now_ns();
        if (pread(fd, buf, (size_t)opt.read_size, off) < 0)
            die("pread");
        record(&lat_read, now_ns() - t0);
        if (step) {
            next += step;
            sleep_until(next);
        }
    }
    free(buf);
    return NULL;
}

static void usage(void) {
    puts("usage: journal --file PATH [--mode none|sparse|prealloc] [--duration S] [--rate WRITES_PER_S]\n"
         "               [--record BYTES] [--sync-every N (0: never fdatasync)] [--reader]\n"
         "               [--read-size BYTES] [--read-rate READS_PER_S (0: unthrottled)] [--seed N]\n"
         "               [--phase all|prepare|run]");
}

int main(int argc, char **argv) {
    static struct option lo[] = {
        {"file", 1, 0, 'f'},   {"mode", 1, 0, 'm'},      {"duration", 1, 0, 'd'},  {"rate", 1, 0, 'r'},
        {"record", 1, 0, 'b'}, {"sync-every", 1, 0, 's'}, {"reader", 0, 0, 'R'},   {"read-size", 1, 0, 'z'},
        {"read-rate", 1, 0, 'q'}, {"seed", 1, 0, 'S'},   {"phase", 1, 0, 'p'},     {"help", 0, 0, 'h'},
        {"version", 0, 0, 'V'}, {0, 0, 0, 0}};
    for (int c; (c = getopt_long(argc, argv, "", lo, NULL)) != -1;) {
        switch (c) {
        case 'f': opt.path = optarg; break;
        case 'm': opt.mode = optarg; break;
        case 'd': opt.duration_s = atof(optarg); break;
        case 'r': opt.rate = atof(optarg); break;
        case 'b': opt.record = atol(optarg); break;
        case 's': opt.sync_every = atol(optarg); break;
        case 'R': opt.reader = 1; break;
        case 'z': opt.read_size = atol(optarg); break;
        case 'q': opt.read_rate = atof(optarg); break;
        case 'S': opt.seed = (unsigned)atol(optarg); break;
        case 'p': opt.phase = optarg; break;
        case 'V': puts("blkscope-journal " VERSION); return 0;
        case 'h': usage(); return 0;
        default: usage(); return 2;
        }
    }
    int none = !strcmp(opt.mode, "none"), sparse = !strcmp(opt.mode, "sparse"), pre = !strcmp(opt.mode, "prealloc");
    int all = !strcmp(opt.phase, "all"), do_prepare = all || !strcmp(opt.phase, "prepare"),
        do_run = all || !strcmp(opt.phase, "run");
    if (!opt.path || !(none || sparse || pre) || !(do_prepare || do_run) || opt.rate <= 0 || opt.duration_s <= 0 ||
        opt.record <= 0) {
        usage();
        return 2;
    }
    long n_writes = (long)(opt.rate * opt.duration_s);
    off_t size = (off_t)n_writes * opt.record;

    /* preparation, untimed */
    if (!do_prepare) {
        fd = open(opt.path, none ? O_RDWR | O_CREAT | O_APPEND : O_RDWR, 0644);
        if (fd < 0)
            die("open (prepared file)");
    } else if (none) {
        /* nothing to prepare but a fresh start; in the run, open() creates the file and writes extend it */
        if (unlink(opt.path) && errno != ENOENT)
            die("unlink");
        fd = do_run ? open(opt.path, O_RDWR | O_CREAT | O_APPEND, 0644) : -2;
        if (fd == -1)
            die("open");
    } else {
        fd = open(opt.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            die("open");
        if (sparse && ftruncate(fd, size))
            die("ftruncate");
        if (pre) {
            if (fallocate(fd, 0, 0, size))
                die("fallocate");
            char *zero = calloc(1, 1 << 20);
            for (off_t o = 0; o < size; o += 1 << 20) {
                size_t len = (size_t)(size - o < (1 << 20) ? size - o : (1 << 20));
                if (pwrite(fd, zero, len, o) != (ssize_t)len)
                    die("pwrite zeros");
            }
            free(zero);
            if (fsync(fd))
                die("fsync");
        }
    }
    if (!do_run) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char *rec = malloc((size_t)opt.record);
    memset(rec, 'j', (size_t)opt.record);

    pthread_t th;
    if (opt.reader && pthread_create(&th, NULL, reader_main, NULL))
        die("pthread_create");
    uint64_t step = (uint64_t)(1e9 / opt.rate), start = now_ns(), late = 0;
    for (long i = 0; i < n_writes; i++) {
        uint64_t due = start + (uint64_t)i * step;
        if (now_ns() > due + step)
            late++;  /* more than one interval behind schedule */
        sleep_until(due);
        snprintf(rec, (size_t)opt.record, "%ld\n", i); /* distinct content per record */
        uint64_t t0 = now_ns();
        ssize_t w = none ? write(fd, rec, (size_t)opt.record)
                         : pwrite(fd, rec, (size_t)opt.record, (off_t)i * opt.record);
        uint64_t t1 = now_ns();
        if (w != opt.record)
            die("write");
        record(&lat_write, t1 - t0);
        atomic_store(&written_end, (long)(i + 1) * opt.record);
        if (opt.sync_every > 0 && (i + 1) % opt.sync_every == 0) {
            if (fdatasync(fd))
                die("fdatasync");
            record(&lat_sync, now_ns() - t1);
        }
    }
    double elapsed = (double)(now_ns() - start) / 1e9;
    atomic_store(&stop, 1);
    if (opt.reader)
        pthread_join(th, NULL);
    close(fd);

    printf("{\n  \"tool\": \"blkscope-journal\",\n  \"version\": \"%s\",\n", VERSION);
    printf("  \"options\": {\"file\": \"%s\", \"mode\": \"%s\", \"duration_s\": %g, \"rate\": %g, \"record\": %ld, "
           "\"sync_every\": %ld, \"reader\": %s, \"read_size\": %ld, \"read_rate\": %g, \"seed\": %u, \"phase\": \"%s\"},\n",
           opt.path, opt.mode, opt.duration_s, opt.rate, opt.record, opt.sync_every, opt.reader ? "true" : "false",
           opt.read_size, opt.read_rate, opt.seed, opt.phase);
    printf("  \"clock\": \"CLOCK_MONOTONIC\",\n  \"histogram\": {\"unit\": \"ns\", \"sub_buckets\": %d, "
           "\"linear_below\": %d},\n", 1 << SUB_BITS, 1 << (SUB_BITS + 1));
    printf("  \"elapsed_s\": %.6f,\n  \"late_writes\": %llu,\n  \"bytes_written\": %lld,\n  \"latency\": {\n", elapsed,
           (unsigned long long)late, (long long)size);
    print_lat("write", &lat_write, 0);
    print_lat("fdatasync", &lat_sync, !opt.reader);
    if (opt.reader)
        print_lat("read", &lat_read, 1);
    printf("  }\n}\n");
    return 0;
}
