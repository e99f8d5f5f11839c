// A wall clock put wrong and then right while a process runs, for tests of the real binary
// (Tests/HyzerLiveSyncTests/ClockPutRightTests.swift; docs/sync-protocol.md, "Live connections
// heal"). Loaded with LD_PRELOAD, it adds to CLOCK_REALTIME (and gettimeofday, time) the whole
// seconds written in the file named by CLOCK_SHIFT_FILE, read again at most every 50 ms, so the
// test can put the clock right by writing 0. Monotonic and boot-time clocks, which every timer of
// a Swift process runs on, are left alone: libfaketime shifts those too, and a process under it
// never wakes from a sleep.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

typedef int (*clock_gettime_function)(clockid_t, struct timespec *);

static clock_gettime_function real_clock_gettime(void) {
    static clock_gettime_function real;
    if (!real) real = (clock_gettime_function)dlsym(RTLD_NEXT, "clock_gettime");
    return real;
}

static long long shift_seconds(void) {
    static long long shift;
    static long long read_at_ms = -1000;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    struct timespec now;
    real_clock_gettime()(CLOCK_MONOTONIC, &now);
    long long now_ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    pthread_mutex_lock(&lock);
    if (now_ms - read_at_ms >= 50) {
        read_at_ms = now_ms;
        const char *path = getenv("CLOCK_SHIFT_FILE");
        FILE *file = path ? fopen(path, "r") : NULL;
        if (file) {
            long long value;
            if (fscanf(file, "%lld", &value) == 1) shift = value;
            fclose(file);
        }
    }
    long long result = shift;
    pthread_mutex_unlock(&lock);
    return result;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    int result = real_clock_gettime()(id, ts);
    if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) ts->tv_sec += shift_seconds();
    return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    struct timespec ts;
    int result = clock_gettime(CLOCK_REALTIME, &ts);
    if (result == 0) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    (void)tz;
    return result;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}
