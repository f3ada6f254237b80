import ArborClient
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The ssh that `ArborConnection.connect(over:)` starts takes its three pipes and nothing
/// else of the program: a pipe the program opened without close-on-exec stays out of it (or
/// whoever reads that pipe would wait for as long as the ssh session lasts).
@Suite struct ChildDescriptorsTests {
  @Test func theSSHProcessHoldsNoOtherDescriptorOfTheProgram() async throws {
    var ends: [Int32] = [-1, -1]
    #expect(pipe(&ends) == 0, "a pipe of the program's own: errno \(errno)")
    defer { for end in ends where end >= 0 { close(end) } }
    let own = try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(ends[1])"))
    #expect(own.hasPrefix("pipe:"), "\(own)")
    // In place of ssh, a shell that names its open descriptors on standard error and exits:
    // the connection fails with that line as its reason.
    // (`find` in the shell's place, so that no descriptor the shell saves aside is listed;
    // the directories it opens are its own.)
    let lister = ["sh", "-c", #"exec find /proc/self/fd -mindepth 1 -printf '%f=%l ' >&2"#, "sh"]
    do {
      let connection = try await ArborConnection.connect(over: SSHAddress(host: "nowhere"), command: SSHCommand(ssh: lister))
      connection.close()
      Issue.record("the shell that exits at once gave a connection")
    } catch {
      guard case .cannotConnect(_, let reason) = error else {
        Issue.record("expected cannotConnect, got \(error)")
        return
      }
      #expect(reason.contains("0=pipe:") && reason.contains("2=pipe:"), "the child's standard streams are pipes: \(reason)")
      #expect(!reason.contains(own), "the child holds the program's pipe \(own): \(reason)")
      let others = reason.split(separator: " ").filter { !$0.hasPrefix("0=") && !$0.hasPrefix("1=") && !$0.hasPrefix("2=") && ($0.contains("=pipe:") || $0.contains("=socket:")) }
      #expect(others.isEmpty, "no pipe or socket but 0, 1 and 2 (the others are find's own): \(reason)")
    }
  }
}
