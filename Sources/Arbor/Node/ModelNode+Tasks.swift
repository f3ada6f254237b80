import Dependencies
import ConcurrencyExtras

extension ModelNode {
  /// Runs `operation` in a task tied to the model: it is cancelled when the model is
  /// deactivated (removed from its tree, or the tree is torn down). If it throws, `catch`
  /// receives the error (a `CancellationError` too, when cancellation made it throw).
  ///
  /// ```swift
  /// func factButtonTapped() {
  ///   node.task {
  ///     let fact = try await node.factClient.fetch(count)
  ///     node.send(Event.factLoaded(fact))
  ///   } catch: { error in
  ///     alert = "Couldn't load a fact."
  ///   }
  /// }
  /// ```
  ///
  /// Work started on a model that is already destructed does not run.
  @discardableResult
  public func task(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable () async throws -> Void,
    catch handleError: @escaping @Sendable (any Error) -> Void
  ) -> Cancellable {
    let context = self.context
    guard let entry = context.registerCancellable(keys: CancellationScope.keys) else { return .none }
    let inheritable = CancellationScope.inheritable
    let ownKeys = entry.keys
    let handle = Cancellable.Entry(entry)
    let dependencies = context.resolvedDependencies()
    // Counted in the work of the intent that started it (see `IntentWait.settled`); the
    // task inherits the task-local, so the tasks it starts are counted too.
    let work = IntentWork.current
    work?.started()
    // Known to testers while it runs; a task started during activation lives with its model.
    let registry = context.tree?.tasks
    let registration = registry?.start(TaskRegistry.Entry(context: context, isActivationTask: ActivationScope.isActivating))
    let task = Task(priority: priority) {
      defer {
        work?.ended()
        if let registration { registry?.end(registration) }
      }
      // Inside the task, the ids of `cancellationContext` scopes around its creation no longer
      // apply to new work (task-locals would carry them); nested work opts in with
      // `inheritCancellationContext()`.
      await CancellationScope.$keys.withValue([]) {
        await CancellationScope.$inheritable.withValue(inheritable + ownKeys) {
          do {
            // `@Dependency` inside the task sees the model's dependencies.
            try await withDependencies {
              $0 = dependencies
            } operation: {
              try await operation()
            }
          } catch {
            handleError(error)
          }
        }
      }
      context.unregister(handle.value)
    }
    context.attach(task, to: entry)
    return Cancellable(context: context, entry: handle, inheritable: inheritable)
  }

  /// Runs `operation` in a task tied to the model. See ``task(priority:operation:catch:)``.
  @discardableResult
  public func task(priority: TaskPriority? = nil, operation: @escaping @Sendable () async -> Void) -> Cancellable {
    task(priority: priority, operation: operation, catch: { _ in })
  }

  /// Runs `operation` for each element of `sequence`, for as long as the model is active.
  ///
  /// By default each element's work finishes before the next element is taken. With
  /// `cancelPrevious`, a new element cancels the work of the previous one.
  /// An error thrown by `operation` is passed to `catch` and iteration goes on, unless
  /// `abortIfOperationThrows` is set; an error thrown by the sequence ends iteration and is
  /// passed to `catch`.
  ///
  /// ```swift
  /// func onActivate() {
  ///   node.forEach(Observed { count }, cancelPrevious: true) { count in
  ///     isPrime = try await primes.check(count)
  ///   }
  /// }
  /// ```
  @discardableResult
  public func forEach<S: AsyncSequence & Sendable>(
    _ sequence: S,
    cancelPrevious: Bool = false,
    abortIfOperationThrows: Bool = false,
    priority: TaskPriority? = nil,
    perform operation: @escaping @Sendable (S.Element) async throws -> Void,
    catch handleError: (@Sendable (any Error) -> Void)? = nil
  ) -> Cancellable where S.Element: Sendable {
    // A stream of modifications ignores the writes its handler makes (see
    // `ModelModifications`): the handler runs as its observer.
    let operation = Self.asObserver(of: sequence, operation)
    // Events are handled as caused by their sender (see `EventHandling`).
    if let events = sequence as? ModelEvents<S.Element> {
      let slot = EventHandlingSlot()
      return forEachElement(
        of: events.handing(into: slot), handling: slot, cancelPrevious: cancelPrevious, abortIfOperationThrows: abortIfOperationThrows,
        priority: priority, operation, handleError)
    }
    return forEachElement(
      of: sequence, handling: nil, cancelPrevious: cancelPrevious, abortIfOperationThrows: abortIfOperationThrows, priority: priority,
      operation, handleError)
  }

  /// The loop of ``forEach(_:cancelPrevious:abortIfOperationThrows:priority:perform:catch:)``;
  /// `handling` holds each element's event handling when the sequence is one of events.
  private func forEachElement<S: AsyncSequence & Sendable>(
    of sequence: S,
    handling: EventHandlingSlot?,
    cancelPrevious: Bool,
    abortIfOperationThrows: Bool,
    priority: TaskPriority?,
    _ operation: @escaping @Sendable (S.Element) async throws -> Void,
    _ handleError: (@Sendable (any Error) -> Void)?
  ) -> Cancellable where S.Element: Sendable {
    let context = self.context
    guard cancelPrevious else {
      return task(priority: priority) {
        for try await element in sequence {
          guard !Task.isCancelled else { return }
          do {
            try await EventHandling.around(handling?.take()) { try await operation(element) }
          } catch {
            if abortIfOperationThrows || Task.isCancelled { throw error }
            handleError?(error)
          }
        }
      } catch: { error in
        handleError?(error)
      }
    }

    let previous = AnyHashableSendable(PreviousElementID())
    let node = self
    return task(priority: priority) {
      await withTaskCancellationHandler {
        do {
          for try await element in sequence {
            guard !Task.isCancelled else { break }
            // The element's task inherits its handling (cause and the sender's work).
            _ = EventHandling.around(handling?.take()) {
              node.task(priority: priority) {
                do {
                  try await operation(element)
                } catch {
                  if abortIfOperationThrows, !(error is CancellationError) {
                    node.cancelAll(for: previous)
                  }
                  handleError?(error)
                }
              }
              .cancel(for: previous, cancelInFlight: true)
            }
          }
        } catch {
          handleError?(error)
        }
      } onCancel: {
        context.cancelEntries { $0.keys.contains(previous) }
      }
    }
  }

  /// `operation`, run as the observer of `sequence` when it is a stream of modifications.
  private static func asObserver<S: AsyncSequence & Sendable>(
    of sequence: S, _ operation: @escaping @Sendable (S.Element) async throws -> Void
  ) -> @Sendable (S.Element) async throws -> Void where S.Element: Sendable {
    guard let observing = sequence as? any ObservingModifications else { return operation }
    let observer = observing.observer
    return { @Sendable element in
      try await ModificationObserver.$current.withValue(observer) {
        try await operation(element)
      }
    }
  }

  /// Cancels the model's work that was given `id` (with `Cancellable.cancel(for:)` or
  /// inside `cancellationContext(for:)`).
  ///
  /// ```swift
  /// func cancelSave() { node.cancelAll(for: "save-flow") }
  /// ```
  public func cancelAll(for id: some Hashable & Sendable) {
    let key = AnyHashableSendable(id)
    context.cancelEntries { $0.keys.contains(key) }
  }

  /// Runs `body`; every task and `forEach` it starts gets `id`, so that
  /// `cancelAll(for: id)` cancels them together.
  ///
  /// ```swift
  /// node.cancellationContext(for: "save-flow") {
  ///   node.task { await validate() }
  ///   node.task { await upload() }
  /// }
  /// ```
  @discardableResult
  public func cancellationContext<R>(for id: some Hashable & Sendable, _ body: () throws -> R) rethrows -> R {
    try CancellationScope.$keys.withValue(CancellationScope.keys + [AnyHashableSendable(id)]) {
      try body()
    }
  }
}

/// The id that ties each element's work in `forEach(cancelPrevious: true)` to the next.
private final class PreviousElementID: Hashable, Sendable {
  static func == (lhs: PreviousElementID, rhs: PreviousElementID) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
