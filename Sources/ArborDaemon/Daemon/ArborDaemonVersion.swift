import ArborRPC

/// The version `daemon.status` reports.
public enum ArborDaemonVersion {
  public static let current = ArborProtocol.release
}
