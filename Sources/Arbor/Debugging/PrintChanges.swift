import ArborLocking
import CustomDump
import ArborJSON

/// Stops a ``Model/_printChanges()``.
public final class PrintChangesHandle: Sendable {
  private let listener: ChangeSetListener?

  init(listener: ChangeSetListener?) { self.listener = listener }

  /// Stops printing.
  public func cancel() { listener?.cancel() }
}

extension Model {
  /// Prints every committed change of this model's state (its subtree included) as a diff
  /// of the state before and after, until the returned handle is cancelled. Debug builds
  /// only: in a release build it prints nothing.
  ///
  /// ```swift
  /// let printing = model._printChanges()
  /// await workToTrack()
  /// printing.cancel()
  /// ```
  @discardableResult
  public func _printChanges() -> PrintChangesHandle {
    #if DEBUG
      return _printChanges { print($0) }
    #else
      return PrintChangesHandle(listener: nil)
    #endif
  }

  /// Prints this model's changes for as long as it is active (see ``_printChanges()``).
  ///
  /// ```swift
  /// let app = AppModel()._withPrintChanges().withAnchor()
  /// ```
  public func _withPrintChanges() -> Self {
    withActivation { model in
      let handle = model._printChanges()
      model.node.onCancel { handle.cancel() }
    }
  }

  /// ``_printChanges()`` with the lines handed to `output`.
  func _printChanges(to output: @escaping @Sendable (String) -> Void) -> PrintChangesHandle {
    let context = _$modelContext
    guard let tree = context.tree else { return PrintChangesHandle(listener: nil) }
    let model = self
    let encode: @Sendable () -> JSONValue? = { try? JSONValueEncoder().encode(model) }
    let previous = LockedState<JSONValue?>(nil)
    let listener: ChangeSetListener = tree.lock.withLock {
      previous.withLock { $0 = encode() }
      return tree.listen(limit: 100_000) { delivery in
        guard case .committed(let changeSet) = delivery else { return }
        guard context.isTouched(by: changeSet), let now = encode() else { return }
        let before = previous.withLock { value -> JSONValue? in
          defer { value = now }
          return value
        }
        guard let before, let difference = diff(before.plain, now.plain) else { return }
        output("\(Self._$typeName) at revision \(changeSet.revision):\n\(difference)")
      }
    }
    return PrintChangesHandle(listener: listener)
  }
}

extension JSONValue {
  /// The value as plain Swift values (dictionaries, arrays, numbers, strings, `nil`), which
  /// swift-custom-dump prints readably.
  fileprivate var plain: Any {
    switch self {
    case .null: return Optional<Int>.none as Any
    case .bool(let value): return value
    case .int(let value): return value
    case .double(let value): return value
    case .string(let value): return value
    case .array(let elements): return elements.map(\.plain)
    case .object(let members): return members.mapValues(\.plain)
    }
  }
}
