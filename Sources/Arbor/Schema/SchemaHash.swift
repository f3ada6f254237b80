import ArborLocking
import ArborJSON
import Foundation

extension Model {
  /// The hash of ``stateSchema`` (`sha256:` and 64 hexadecimal digits): snapshot records
  /// carry it, and a tree refuses a record whose hash differs from its own unless its
  /// root's ``migrate(_:)`` upgrades the record.
  ///
  /// ```swift
  /// print(AppModel.schemaHash)   // sha256:3a7bd3e2360a3d…
  /// ```
  public static var schemaHash: String {
    let key = ObjectIdentifier(Self.self)
    if let hash = schemaHashes.withLock({ $0[key] }) { return hash }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let bytes = (try? encoder.encode(stateSchema)) ?? Data()
    let hash = "sha256:" + SHA256Digest.hash(bytes).hex
    schemaHashes.withLock { $0[key] = hash }
    return hash
  }
}

private let schemaHashes = LockedState<[ObjectIdentifier: String]>([:])
