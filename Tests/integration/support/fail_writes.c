/* LD_PRELOAD shim for the bridge under test (preload.py, fixture fail_writes): a full or
   read-only disk, also for root. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* While the file named by FOCUS_TEST_FAIL_TRIGGER exists, every write to a file whose path
   contains FOCUS_TEST_FAIL_MATCH fails with errno FOCUS_TEST_FAIL_ERRNO (a full disk: ENOSPC,
   a read-only one: EROFS). Nothing else is touched. */
static int should_fail(int fd) {
    const char *trigger = getenv("FOCUS_TEST_FAIL_TRIGGER");
    const char *match = getenv("FOCUS_TEST_FAIL_MATCH");
    if (!trigger || !match || access(trigger, F_OK) != 0) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    if (!strstr(path, match)) return 0;
    const char *e = getenv("FOCUS_TEST_FAIL_ERRNO");
    errno = e ? atoi(e) : ENOSPC;
    return 1;
}

#define REAL(name) static __typeof__(name) *real_##name; \
    if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t count) {
    REAL(write);
    if (should_fail(fd)) return -1;
    return real_write(fd, buf, count);
}
ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    REAL(pwrite);
    if (should_fail(fd)) return -1;
    return real_pwrite(fd, buf, count, offset);
}
ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t offset) {
    REAL(pwrite64);
    if (should_fail(fd)) return -1;
    return real_pwrite64(fd, buf, count, offset);
}
ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
    REAL(writev);
    if (should_fail(fd)) return -1;
    return real_writev(fd, iov, iovcnt);
}
ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
    REAL(pwritev);
    if (should_fail(fd)) return -1;
    return real_pwritev(fd, iov, iovcnt, offset);
}
int ftruncate(int fd, off_t length) {
    REAL(ftruncate);
    if (should_fail(fd)) return -1;
    return real_ftruncate(fd, length);
}
int ftruncate64(int fd, off64_t length) {
    REAL(ftruncate64);
    if (should_fail(fd)) return -1;
    return real_ftruncate64(fd, length);
}
int fallocate(int fd, int mode, off_t offset, off_t len) {
    REAL(fallocate);
    if (should_fail(fd)) return -1;
    return real_fallocate(fd, mode, offset, len);
}
int posix_fallocate(int fd, off_t offset, off_t len) {
    REAL(posix_fallocate);
    if (should_fail(fd)) return errno;
    return real_posix_fallocate(fd, offset, len);
}
