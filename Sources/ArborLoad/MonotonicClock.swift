#if canImport(Glibc)
  import Glibc
#endif

/// Now, in nanoseconds of the monotonic clock.
func monotonicNanoseconds() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
