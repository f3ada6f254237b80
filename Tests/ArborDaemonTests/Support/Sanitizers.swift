#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether this test process runs under a sanitizer (`make test-tsan`, `make test-asan`).
/// The daemons the tests start come from the same build, so they run under it too, and
/// their memory is the sanitizer's allocator's: it keeps freed memory back (quarantine,
/// shadow), so a figure about resident memory says nothing about the daemon's own.
///
/// ```swift
/// @Suite(.disabled(if: Sanitizers.areActive, "resident memory is the sanitizer's")) struct MemoryTests { … }
/// ```
enum Sanitizers {
  static let areActive: Bool = {
    // The runtimes export their entry points from the executable they are linked into.
    guard let program = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(program) }
    let entryPoints: [String] = ["__tsan_init", "__asan_init"]
    return entryPoints.contains { dlsym(program, $0) != nil }
  }()
}
