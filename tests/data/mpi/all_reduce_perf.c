/* An nccl-tests stand-in for the Kubernetes validation test: a real MPI program (Open MPI),
 * started by mpirun across "pods". Every rank names its pod (TB_POD, which the test's remote
 * shell sets), all ranks all-reduce a buffer over MPI_COMM_WORLD, and rank 0 prints what
 * nccl-tests' all_reduce_perf prints: the rank list and the size table. Bus bandwidth follows
 * nccl-tests' all-reduce formula (algbw * 2 (n-1) / n) with algbw 100 GB/s at the largest
 * size, or 1 GB/s when one of the pods named in TB_SLOW_PODS (comma-separated) takes part.
 * Launched without mpirun it is a singleton: one rank, bus bandwidth 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { k_name = 64 };

static int slow_pod(const char *pod) {
    const char *list = getenv("TB_SLOW_PODS");
    if (list == NULL || *list == '\0') return 0;
    size_t n = strlen(pod);
    for (const char *p = list; p != NULL; p = strchr(p, ',')) {
        if (*p == ',') ++p;
        if (strncmp(p, pod, n) == 0 && (p[n] == ',' || p[n] == '\0')) return 1;
    }
    return 0;
}

/* "8", "64K", "1M", "8G": a size as nccl-tests reads it. */
static long long parse_size(const char *text) {
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    switch (end != NULL ? *end : '\0') {
        case 'K': case 'k': return v << 10;
        case 'M': case 'm': return v << 20;
        case 'G': case 'g': return v << 30;
        default: return v;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char pod[k_name] = {0};
    const char *env_pod = getenv("TB_POD");
    snprintf(pod, sizeof pod, "%s", env_pod != NULL ? env_pod : "unknown");
    char *pods = malloc((size_t)size * k_name);
    MPI_Gather(pod, k_name, MPI_CHAR, pods, k_name, MPI_CHAR, 0, MPI_COMM_WORLD);
    int slow = slow_pod(pod), any_slow = 0;
    MPI_Allreduce(&slow, &any_slow, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    double one = 1, ranks = 0;
    MPI_Allreduce(&one, &ranks, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        long long min_bytes = 8, max_bytes = 1 << 20;
        for (int i = 1; i + 1 < argc; ++i) {
            if (strcmp(argv[i], "-b") == 0) min_bytes = parse_size(argv[i + 1]);
            if (strcmp(argv[i], "-e") == 0) max_bytes = parse_size(argv[i + 1]);
        }
        if (min_bytes < 8) min_bytes = 8;
        printf("# nThread 1 nGpus 1 minBytes %lld maxBytes %lld step: 2(factor) warmup iters: 5 iters: 20 "
               "agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n",
               min_bytes, max_bytes);
        for (int r = 0; r < size; ++r)
            printf("#  Rank %2d Group  0 Pid %6d on %s device  %d [0x%02x] NVIDIA H100 80GB HBM3\n", r, 100 + r,
                   pods + (size_t)r * k_name, r % 8, r % 8);
        printf("#\n#                                                              out-of-place                "
               "       in-place\n");
        printf("#       size         count      type   redop    root     time   algbw   busbw #wrong     time "
               "  algbw   busbw #wrong\n");
        printf("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us) "
               " (GB/s)  (GB/s)\n");
        double peak = any_slow ? 1.0 : 100.0, sum = 0;
        int rows = 0;
        for (long long bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
            double alg = peak * (double)bytes / (double)max_bytes;
            double bus = size > 1 ? alg * 2.0 * (ranks - 1) / ranks : 0.0;
            double us = alg > 0 ? (double)bytes / alg / 1000.0 : 0.0;
            printf("%12lld  %12lld     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  %6.2f      0\n",
                   bytes, bytes / 4, us, alg, bus, us, alg, bus);
            sum += bus;
            ++rows;
        }
        printf("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %.3f \n#\n", rows ? sum / rows : 0.0);
    }
    free(pods);
    MPI_Finalize();
    return 0;
}
