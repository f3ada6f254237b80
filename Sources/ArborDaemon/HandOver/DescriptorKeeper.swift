import ArborSystemd

/// Where a hand-over puts the descriptors the next process takes back (``ConnectionHandOver``):
/// the service manager's store (``SystemdNotifier``), or the process an upgrade started
/// (``UpgradeHandOff``).
///
/// ```swift
/// let keeper: any DescriptorKeeper = UpgradeHandOff.current ?? parts.notifier
/// if keeper.store(descriptor, name: "connection-4") { … }
/// ```
protocol DescriptorKeeper: Sendable {
  /// How many descriptors it takes in all.
  var capacity: Int { get }
  /// Takes a duplicate of `descriptor` under `name`; whether it did.
  func store(_ descriptor: Int32, name: String) -> Bool
  /// Lets go of what it keeps under `name`.
  @discardableResult func removeStored(name: String) -> Bool
}

extension SystemdNotifier: DescriptorKeeper {
  var capacity: Int { descriptorStoreSize }
}
