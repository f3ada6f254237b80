import Arbor
import ArborJSON
import IssueReporting

extension Model where Event: Equatable {
  /// Inside `tester.assert { … }`: holds once this model has sent `event` (with
  /// `node.send`) and no earlier `didSend` consumed it. A passing assertion consumes the
  /// event, so that `.events` exhaustivity does not report it.
  ///
  /// ```swift
  /// model.removeButtonTapped()
  /// await tester.assert { model.didSend(.removeTapped) }
  /// ```
  public func didSend(
    _ event: Event, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) -> AssertionPredicate {
    guard let scope = AssertionScope.current else {
      reportIssue("didSend(_:) is only meaningful inside tester.assert { … }", fileID: fileID, filePath: filePath, line: line, column: column)
      return AssertionPredicate(passed: false, failure: "didSend(_:) outside tester.assert")
    }
    let source = _$modelContext.id
    // Through a daemon's socket an event is its JSON: compare the expected one's.
    let expectedJSON = (event as? any Encodable).flatMap { try? JSONValueEncoder().encode($0) }
    let matched = scope.claimEvent { tested in
      guard tested.sourceID == source else { return false }
      if let value = tested.value as? Event { return value == event }
      return tested.json != nil && tested.json == expectedJSON
    }
    return AssertionPredicate(passed: matched, failure: "\(Self.self) did not send \(String(describing: event))")
  }
}
