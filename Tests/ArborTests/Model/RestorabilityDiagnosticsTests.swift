import Foundation
import Testing

/// A model whose state could not be restored does not compile: these tests type-check
/// small files against the built `Arbor` module and macro plugin with `swiftc`, and read
/// the errors the user would see.
@Suite struct RestorabilityDiagnosticsTests {
  /// Type-checks `source` (which imports Arbor); returns the compiler's errors.
  func errors(in source: String) async throws -> [String] {
    // The test bundle lives in the build directory, next to the modules and the plugin.
    let build = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    let modules = "\(build)/Modules"
    let plugin = "\(build)/ArborMacros-tool"
    guard FileManager.default.fileExists(atPath: "\(modules)/Arbor.swiftmodule"), FileManager.default.fileExists(atPath: plugin) else {
      throw Program.Failure(description: "no Arbor module or macro plugin next to the test bundle in \(build)")
    }
    var arguments = ["-typecheck", "-swift-version", "6", "-I", modules, "-load-plugin-executable", "\(plugin)#ArborMacros"]
    // C modules of dependencies (OpenCombine's helpers) are found through their module maps.
    let builds = try FileManager.default.contentsOfDirectory(atPath: build).filter { $0.hasSuffix(".build") && !$0.contains("-tool") }
    for directory in builds where FileManager.default.fileExists(atPath: "\(build)/\(directory)/module.modulemap") {
      arguments += ["-Xcc", "-fmodule-map-file=\(build)/\(directory)/module.modulemap"]
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("arbor-diagnostics-\(UUID().uuidString).swift")
    try source.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    // Type-checking against the built modules takes seconds, more on a busy machine.
    let result = try await Program.run(try Program.find("swiftc"), arguments + [file.path], stdin: Data(), seconds: 300)
    let lines = (result.stdout + result.stderr).split(separator: "\n").map(String.init)
    return lines.filter { $0.contains("error:") && !$0.contains("`- error:") }
  }

  @Test func aLetThatIsNotCodableAndHasNoValueIsRejected() async throws {
    let errors = try await errors(
      in: """
        import Arbor
        final class Connection: Sendable {}
        @Model struct Device {
          var name = "d"
          let connection: Connection
        }
        """)
    #expect(errors.count == 1)
    #expect(errors.first?.contains("a model's state must be Codable: this 'let' is not, and has no default value to restore") == true, "\(errors)")
  }

  @Test func aPropertyThatIsNotCodableNeedsADefault() async throws {
    let rejected = try await errors(
      in: """
        import Arbor
        struct Handle: Sendable, Equatable {}
        @Model struct Device {
          var handle: Handle
        }
        """)
    #expect(rejected.count == 1)
    #expect(rejected.first?.contains("this property is not, and has no default value to restore") == true, "\(rejected)")

    let accepted = try await errors(
      in: """
        import Arbor
        struct Handle: Sendable, Equatable {}
        @Model struct Device {
          var handle = Handle()
          var onTap: @Sendable () -> Void = {}
          @ModelIgnored var cache: [String: Handle]? = nil
          var name: String
        }
        """)
    #expect(accepted == [])
  }

  @Test func intentParametersAndResultsMustBeCodable() async throws {
    let errors = try await errors(
      in: """
        import Arbor
        struct Handle: Sendable {}
        @Model struct Device {
          var count = 0
          @Intent func attach(_ handle: Handle) {}
          @Intent func handle() -> Handle { Handle() }
        }
        """)
    // Each is reported where the dispatch table names the type and where it decodes or
    // encodes the value; every error is one of these two messages.
    #expect(!errors.isEmpty && errors.allSatisfy { $0.contains("of an @Intent must be Codable") }, "\(errors)")
    #expect(errors.contains { $0.contains("the parameters of an @Intent must be Codable") })
    #expect(errors.contains { $0.contains("the result of an @Intent must be Codable (or Void)") })
  }
}
