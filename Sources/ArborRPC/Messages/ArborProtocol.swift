/// The version of Arbor's protocol over the socket: the methods, their parameters and
/// results, the notifications and the errors of `Docs/Protocol.md`. It changes when a
/// client written for the previous one could misread a reply; additions keep it.
///
/// ```swift
/// print("arborctl speaks protocol \(ArborProtocol.version)")   // 1
/// ```
public enum ArborProtocol {
  public static let version = 1
  /// The release of the Arbor package the daemon and its clients were built from.
  public static let release = "0.1.0"
}
