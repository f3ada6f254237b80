import Arbor
import IdentifiedCollections
import ConcurrencyExtras
import Synchronization

/// Records lifecycle events in order, across threads.
final class EventLog: Sendable {
  private let entries = LockIsolated<[String]>([])

  func append(_ entry: String) { entries.withValue { $0.append(entry) } }
  var all: [String] { entries.value }
  func clear() { entries.setValue([]) }
}

/// A counter and a flag that tasks can share.
final class Tally: Sendable {
  private let count = Atomic<Int>(0)
  private let flag = Atomic<Bool>(false)

  func add(_ amount: Int = 1) { count.add(amount, ordering: .relaxed) }
  var value: Int { count.load(ordering: .relaxed) }
  func raise() { flag.store(true, ordering: .releasing) }
  var isRaised: Bool { flag.load(ordering: .acquiring) }
}

/// The highest number one task has seen, read by another.
final class Highest: Sendable {
  private let highest = Atomic<Int>(Int.min)

  /// Raises the number to `value` when that is higher.
  func raise(to value: Int) {
    var current = highest.load(ordering: .relaxed)
    while value > current {
      let (exchanged, original) = highest.compareExchange(expected: current, desired: value, ordering: .relaxed)
      if exchanged { return }
      current = original
    }
  }

  var value: Int { highest.load(ordering: .relaxed) }
}

@Model struct Leaf {
  var value = 0
  var label = ""
  @ModelIgnored var log: EventLog?

  init(value: Int = 0, label: String = "", log: EventLog? = nil) {
    self.value = value
    self.label = label
    self.log = log
  }

  func onActivate() {
    log?.append("activate \(label)")
    node.onCancel { [label, log] in log?.append("cancel \(label)") }
  }
}

@Model struct Branch {
  var name: String
  var leaves: [Leaf] = []
  var extra: Leaf? = nil
  @ModelIgnored var log: EventLog?

  init(name: String, leaves: [Leaf] = [], extra: Leaf? = nil, log: EventLog? = nil) {
    self.name = name
    self.leaves = leaves
    self.extra = extra
    self.log = log
  }

  func onActivate() {
    log?.append("activate \(name)")
    node.onCancel { [name, log] in log?.append("cancel \(name)") }
  }
}

@Model struct Forest {
  var branches: [Branch] = []
  var keyed: [String: Leaf] = [:]
  var identified: IdentifiedArrayOf<Leaf> = []
  var title = "forest"
}

@ModelContainer enum Destination {
  case none
  case detail(Leaf)
  case pair(Leaf, second: Leaf)
}

@ModelContainer struct Paginated<Item: Model> {
  var items: [Item]
  var currentPage: Int
}

@Model struct Navigator {
  var destination: Destination = .none
  var page: Paginated<Leaf> = Paginated(items: [], currentPage: 0)
}

/// A model that declares its own identity.
@Model struct Named {
  let id: String
  var score = 0
}

/// A model with no tracked state.
@Model struct Stateless {
  let tag: String
}

/// A generic model.
@Model struct Box<Value: Sendable & Equatable & Codable> {
  var value: Value
}
