// Counts the allocations of a process, for `make bench-allocations`: loaded with
// LD_PRELOAD, it forwards malloc and its kin to glibc's own (__libc_*, so that no dlsym
// can recurse) and counts them; at exit it writes "allocations frees" to
// $MALLOC_COUNT_FILE.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static unsigned long allocations, frees;

static void counted(void) { __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) { counted(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { counted(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) {
  if (pointer == NULL) counted();
  return __libc_realloc(pointer, size);
}
void *memalign(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
  counted();
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *result = pointer;
  return 0;
}
void free(void *pointer) {
  if (pointer != NULL) __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
  __libc_free(pointer);
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("MALLOC_COUNT_FILE");
  if (path == NULL) return;
  char line[64];
  int length = snprintf(line, sizeof line, "%lu %lu\n", __atomic_load_n(&allocations, __ATOMIC_RELAXED),
                        __atomic_load_n(&frees, __ATOMIC_RELAXED));
  int file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (file < 0) return;
  ssize_t written = write(file, line, (size_t)length);
  (void)written;
  close(file);
}
