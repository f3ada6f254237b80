import Foundation

/// What Valgrind 3.19 needs to run this toolchain's Swift daemons; without it, it stops at
/// start with an internal error, in two ways:
///
/// - its DWARF reader cannot read the DWARF 5 debug information the toolchain emits
///   ("unhandled dwarf2 abbrev form code 0x25"): it runs a copy of the executable without
///   debug information (`strip --strip-debug`; the symbol table stays, so the profile still
///   names every function);
/// - a program with an `async` main parks its main thread in libdispatch's
///   `_dispatch_sig_thread`, which calls `sigsuspend` with a mask in read-only memory, and
///   Valgrind's wrapper of `rt_sigsuspend` writes to that mask (SIGSEGV, "the 'impossible'
///   happened"): a preloaded `sigsuspend` hands the kernel a copy instead.
///
/// ```swift
/// if let run = ValgrindForSwift.prepare(executable: daemon, in: directory) {
///   // valgrind … run.executable, with LD_PRELOAD=run.preload in the environment
/// }
/// ```
enum ValgrindForSwift {
  struct Prepared {
    var executable: String
    var preload: String
  }

  static let sigsuspendShim = """
    #define _GNU_SOURCE
    #include <signal.h>
    #include <unistd.h>
    #include <sys/syscall.h>
    /* libdispatch passes a mask in read-only memory; Valgrind writes to the one it is given. */
    int sigsuspend(const sigset_t *mask) {
      sigset_t copy = *mask;
      return (int)syscall(SYS_rt_sigsuspend, &copy, 8);
    }
    """

  /// The stripped copy and the compiled shim in `directory`, or nil (printing why) when
  /// `strip` or a C compiler (`cc`, else the toolchain's `clang`) is missing.
  static func prepare(executable: String, in directory: String) -> Prepared? {
    let stripped = directory + "/" + URL(fileURLWithPath: executable).lastPathComponent + ".no-debug-info"
    guard run("strip", ["--strip-debug", "-o", stripped, executable]) else {
      print("strip (binutils) could not copy \(executable) without its debug information")
      return nil
    }
    let source = directory + "/sigsuspend-copy.c"
    let library = directory + "/sigsuspend-copy.so"
    guard (try? sigsuspendShim.write(toFile: source, atomically: true, encoding: .utf8)) != nil,
      ["cc", "clang"].contains(where: { run($0, ["-O2", "-shared", "-fPIC", "-o", library, source]) })
    else {
      print("no C compiler (cc or clang) built the sigsuspend shim Valgrind needs")
      return nil
    }
    return Prepared(executable: stripped, preload: library)
  }

  private static func run(_ tool: String, _ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }
}
