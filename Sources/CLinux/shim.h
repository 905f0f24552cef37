#ifndef NEWSSTAND_CLINUX_SHIM_H
#define NEWSSTAND_CLINUX_SHIM_H

/* Linux calls that Swift's Glibc module leaves out because they need _GNU_SOURCE. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

/* glibc's own declarations (sys/xattr.h), written out: that header brings sys/types.h and with
   it sys/select.h's fd_set, which a clean build then finds defined twice, here and in Dispatch's
   module. */
extern int lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags);
extern ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size);
extern int lremovexattr(const char *path, const char *name);

/* A pipe whose two ends close on exec, made in one step so no concurrent spawn can inherit it. */
static inline int clinux_pipe_cloexec(int descriptors[2]) {
    return pipe2(descriptors, O_CLOEXEC);
}

/* Starts writing a range of a file to the disk without waiting for it. */
static inline int clinux_start_writeback(int descriptor, long long offset, long long length) {
    return sync_file_range(descriptor, offset, length, SYNC_FILE_RANGE_WRITE);
}

/* Sets aside room on the disk for a file's first `length` bytes (its size grows to that), without
   writing them; EOPNOTSUPP where the file system cannot. */
static inline int clinux_allocate(int descriptor, long long length) {
    return fallocate(descriptor, 0, 0, length);
}

/* Extended attributes of a file, never of what a symlink points to. */
static inline int clinux_set_attribute(const char *path, const char *name, const void *value, size_t size) {
    return lsetxattr(path, name, value, size, 0);
}

static inline long clinux_get_attribute(const char *path, const char *name, void *value, size_t size) {
    return (long)lgetxattr(path, name, value, size);
}

static inline int clinux_remove_attribute(const char *path, const char *name) {
    return lremovexattr(path, name);
}

#ifndef M_TOP_PAD
#define M_TOP_PAD -2 /* glibc's value, when the malloc.h found is not glibc's own */
#endif

/* Has malloc ask the kernel for `bytes` more than it needs each time it grows, and keep as much
   free at the top before it gives memory back. */
static inline int clinux_keep_free_memory(int bytes) {
    return mallopt(M_TOP_PAD, bytes);
}

#ifndef M_MMAP_THRESHOLD
#define M_MMAP_THRESHOLD -3 /* glibc's value, as M_TOP_PAD above */
#endif

/* Has malloc serve blocks up to `bytes` from its heaps rather than from a mapping of their own. */
static inline int clinux_keep_large_blocks_in_heap(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

/* Asks the kernel to back a range with 2 MiB pages where it can (transparent huge pages). */
static inline int clinux_advise_huge_pages(void *start, size_t length) {
    return madvise(start, length, MADV_HUGEPAGE);
}

/* Has malloc's heap grow by `bytes` (and what M_TOP_PAD adds) now. The block is held in a
   volatile so the compiler keeps the pair, which it would otherwise drop as unused. */
static inline void clinux_grow_heap(size_t bytes) {
    void *volatile block = malloc(bytes);
    free(block);
}

/* Where malloc serves a small block from now: the heap this thread allocates from. Held in a
   volatile, as above. */
static inline unsigned long clinux_heap_address(void) {
    void *volatile block = malloc(64);
    unsigned long address = (unsigned long)block;
    free(block);
    return address;
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 */
#endif

/* Puts a range already in 4 KiB pages into 2 MiB pages now, its untouched part included. */
static inline int clinux_collapse_huge_pages(void *start, size_t length) {
    return madvise(start, length, MADV_COLLAPSE);
}

#endif
