// Allocation counter for `alloc-check`: the C allocation functions, defined in the executable so
// that every library in the process (the Swift runtime, Foundation, Dispatch) calls them, count
// and forward to glibc's own implementations (`__libc_malloc` …). `free` is not counted. They are
// weak: a sanitizer runtime's allocator, linked in, takes precedence (and the count stays 0).
#include "CMallocCounter.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <errno.h>
#include <execinfo.h>
#include <unistd.h>

#if defined(__has_feature)
#  if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#    define C_MALLOC_COUNTER_OFF 1
#  endif
#endif

static _Atomic long allocations = 0;
static _Atomic int tracing = 0;
static _Thread_local int insideTrace = 0;

long CMallocCounter_count(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }

#ifdef C_MALLOC_COUNTER_OFF

int CMallocCounter_isActive(void) { return 0; }

void CMallocCounter_trace(int on) { (void)on; }

#else

// Whether this process's allocations go through the functions below: not when a sanitizer's
// runtime brings its own (its definitions win over these weak ones). Asked of the allocator itself.
int CMallocCounter_isActive(void) {
    long before = CMallocCounter_count();
    void *volatile probe = malloc(16);
    free(probe);
    return CMallocCounter_count() > before;
}

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);

void CMallocCounter_trace(int on) {
    if (on) {
        // The first backtrace loads the unwinder (which allocates): do it before tracing starts.
        void *frames[4];
        (void)backtrace(frames, 4);
    }
    atomic_store(&tracing, on);
}

static inline void counted(void) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    if (atomic_load_explicit(&tracing, memory_order_relaxed) && !insideTrace) {
        insideTrace = 1;
        void *frames[40];
        int count = backtrace(frames, 40);
        backtrace_symbols_fd(frames, count, STDERR_FILENO);
        (void)write(STDERR_FILENO, "--\n", 3);
        insideTrace = 0;
    }
}

__attribute__((weak)) void *malloc(size_t size) {
    counted();
    return __libc_malloc(size);
}

__attribute__((weak)) void *calloc(size_t count, size_t size) {
    counted();
    return __libc_calloc(count, size);
}

__attribute__((weak)) void *realloc(void *pointer, size_t size) {
    counted();
    return __libc_realloc(pointer, size);
}

__attribute__((weak)) void *memalign(size_t alignment, size_t size) {
    counted();
    return __libc_memalign(alignment, size);
}

__attribute__((weak)) void *aligned_alloc(size_t alignment, size_t size) {
    counted();
    return __libc_memalign(alignment, size);
}

__attribute__((weak)) void *valloc(size_t size) {
    counted();
    return __libc_valloc(size);
}

__attribute__((weak)) int posix_memalign(void **result, size_t alignment, size_t size) {
    // glibc's rule: a power of two and a multiple of the pointer size.
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) return EINVAL;
    counted();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

#endif
