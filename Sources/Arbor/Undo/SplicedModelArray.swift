import ArborJSON

/// An array of models an undo step keeps as a splice (``UndoStep/Splice``): only the
/// elements the step changed, found by identity as the array's reconciliation finds them.
protocol SplicedModelArray {
  /// How many models the array holds.
  var count: Int { get }
  /// The splice that turns `after` (an array of the same type) back into this array; nil
  /// when `after` is not one, or an element cannot be encoded. Tree lock held.
  func splice(restoringFrom after: Any) -> UndoStep.Splice?
  /// This array with `splice` applied, its elements decoded with `models`; throws when the
  /// array is not the one the splice was kept for. Tree lock held.
  func applying(_ splice: UndoStep.Splice, models: DecodedModels) throws -> Any
}

/// Why a kept splice cannot apply.
struct SpliceMismatch: Error, CustomStringConvertible {
  let description: String
}

extension Array: SplicedModelArray where Element: Model {
  func splice(restoringFrom after: Any) -> UndoStep.Splice? {
    guard let after = after as? [Element] else { return nil }
    // Compared by identity in the loop specialized for `Element` (`Model._$sharedEnds`):
    // here, behind the `SplicedModelArray` existential, a loop of our own would copy every
    // element it compared.
    let (prefix, suffix) = withUnsafeBufferPointer { before in
      after.withUnsafeBufferPointer { after in Element._$sharedEnds(before, after) }
    }
    let encoder = JSONValueEncoder()
    var insert: [JSONValue] = []
    insert.reserveCapacity(count - suffix - prefix)
    for element in self[prefix..<(count - suffix)] {
      guard let json = try? encoder.encode(element) else { return nil }
      insert.append(json)
    }
    return UndoStep.Splice(at: prefix, remove: after.count - prefix - suffix, count: after.count, insert: insert)
  }

  func applying(_ splice: UndoStep.Splice, models: DecodedModels) throws -> Any {
    guard count == splice.count, splice.at >= 0, splice.remove >= 0, splice.at + splice.remove <= count else {
      throw SpliceMismatch(
        description: "the array has \(count) elements, and the step was kept for \(splice.count) (replacing \(splice.remove) at \(splice.at))")
    }
    var decoder = JSONValueDecoder()
    decoder.userInfo[.arborDecodedModels] = models
    let inserted = try splice.insert.map { try decoder.decode(Element.self, from: $0) }
    var result = self
    result.replaceSubrange(splice.at..<(splice.at + splice.remove), with: inserted)
    return result
  }
}
