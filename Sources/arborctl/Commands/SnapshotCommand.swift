import ArborJSON
import ArborRPC
import ArgumentParser
import Foundation

/// `arborctl snapshot save FILE` and `arborctl snapshot restore FILE`.
struct SnapshotCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "snapshot", abstract: "Save the whole tree to a file, or replace it from one.",
    subcommands: [Save.self, Restore.self])

  /// `arborctl snapshot save FILE`: writes the snapshot record (`-` for standard output).
  struct Save: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "save", abstract: "Write the tree's snapshot record to a file (- for standard output).")

    @Argument(help: "Where to write the record; - for standard output.", completion: .file(extensions: ["json"]))
    var file: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
      do {
        let record = try await connection.withConnection { try await $0.call(.stateSnapshot) }
        let bytes = record.jsonLine
        if file == "-" { return Output.write(String(decoding: bytes, as: UTF8.self)) }
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else {
          throw CommandFailure(.usage, "cannot write \(file): check that its folder exists and is writable")
        }
        let revision = record["revision"] ?? .null
        if connection.printsJSON {
          Output.json(["file": .string(file), "revision": revision, "bytes": .int(Int64(bytes.count))])
        } else {
          print("saved \(Style.revision("revision \(Output.text(revision))")) to \(Style.path(file)) (\(bytes.count) bytes)")
        }
      } catch let failure as CommandFailure {
        throw Arborctl.fail(failure, json: connection.json)
      }
    }
  }

  /// `arborctl snapshot restore FILE`: replaces the tree (the admin role).
  struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "restore", abstract: "Replace the whole tree by the record in a file (- for standard input); needs the admin role.",
      discussion: "Watchers get a resync. The new revision is above every one served so far.")

    @Argument(help: "A record written by `arborctl snapshot save`; - for standard input.", completion: .file(extensions: ["json"]))
    var file: String

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
      do {
        let record = try readRecord()
        let reply = try await connection.withConnection { try await $0.call(.stateRestore, ["record": record]) }
        if connection.printsJSON { return Output.json(reply) }
        print("restored from \(Style.path(file)): \(Style.revision("revision \(Output.text(reply["revision"] ?? .null))"))")
      } catch let failure as CommandFailure {
        throw Arborctl.fail(failure, json: connection.json)
      }
    }

    private func readRecord() throws(CommandFailure) -> JSONValue {
      let data: Data
      if file == "-" {
        data = FileHandle.standardInput.readDataToEndOfFile()
      } else {
        guard let contents = FileManager.default.contents(atPath: file) else {
          throw CommandFailure(.usage, "cannot read \(file): no such file, or not readable")
        }
        data = contents
      }
      guard let record = try? JSONValue(parsing: Array(data)) else {
        throw CommandFailure(.usage, "\(file) is not JSON: a snapshot record is the JSON object `arborctl snapshot save` writes")
      }
      guard case .object = record else {
        throw CommandFailure(.usage, "\(file) holds JSON \(record.typeName), not a snapshot record (an object)")
      }
      return record
    }
  }
}
