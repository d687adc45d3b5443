#ifndef C_MALLOC_COUNTER_H
#define C_MALLOC_COUNTER_H

/// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc)
/// made by this process so far, counted by the interposers in CMallocCounter.c, which forward to
/// glibc. Linked only into `alloc-check`, a process of its own, so nothing else is counted.
long CMallocCounter_count(void);

/// 1 when the interposers are in place; 0 in a build for the thread sanitizer, which brings its
/// own allocator (the interposers are left out there, and the count stays 0).
int CMallocCounter_isActive(void);

/// With `on` nonzero, every counted allocation writes its call stack to standard error (to find
/// where one comes from); 0 stops that.
void CMallocCounter_trace(int on);

#endif
