import Arbor
import ArborTesting
import Testing

/// Tests written only with SwiftModel 1.0's spellings: the `.modelTesting` trait, a plain
/// `withAnchor()`, `expect`, `require`, `settle`, `withExhaustivity`, probes without
/// `install`. Each passes only if everything the test caused is asserted.
@Suite(.modelTesting) struct ModelTestingTraitTests {
  @Test func aPlainWithAnchorIsTheTestedRoot() async {
    let model = TestedEditor().withAnchor()
    model.title = "draft"
    await expect(model.title == "draft")
  }

  @Test func theBlockFormWaitsForEveryPredicate() async {
    let model = TestedEditor(loadDelay: .milliseconds(20)).withAnchor()
    model.load()
    await expect {
      model.isLoading == false
      model.title == "loaded"
    }
  }

  @Test func requireWaitsForAValueAndReturnsIt() async throws {
    let model = TestedEditor().withAnchor()
    model.node.task { model.addChild() }
    let child = try await require(model.child)
    child.title = "renamed"
    await expect(child.title == "renamed")
  }

  @Test func eventsAndProbesAreExpectedWithoutInstallingAnything() async {
    let onSave = TestProbe("onSave")
    let model = TestedEditor(title: "notes", onSave: onSave.call).withAnchor()
    model.save()
    await expect {
      onSave.wasCalled(with: "notes")
      model.didSend(.saved("notes"))
    }
  }

  @Test func singleExpectationsOfEventsAndProbes() async {
    let onSave = TestProbe("onSave")
    let model = TestedEditor(title: "a", onSave: onSave.call).withAnchor()
    model.save()
    await expect(model.didSend(.saved("a")))
    await expect(onSave.wasCalled(with: "a"))
  }

  @Test func localEnvironmentAndPreferenceValuesAreAssertedByReadingThem() async throws {
    let model = TestedEditor().withAnchor()
    model.addChild()
    let child = try await require(model.child)
    model.startEditing()
    model.useTheme("dark")
    child.markDirty()
    await expect {
      model.node.local.isEditing == true
      child.node.environment.theme == "dark"  // inherited: reading it reads the root's value
      model.node.preference.dirtyCount == 1  // the subtree's sum: reading it reads the child's
    }
  }

  @Test func settleLetsActivationFinishAndStartsTheBaselineThere() async {
    let model = SlowStarter().withAnchor()
    await settle { model.isReady }
    model.step = 10
    await expect(model.step == 10)
  }

  @Test func withExhaustivityOffLetsPartOfTheBodyGoUnasserted() async {
    let model = TestedEditor().withAnchor()
    await withExhaustivity(.off) {
      model.failAndRecover()
      model.startEditing()
      model.save()
    }
    model.title = "checked"
    await expect(model.title == "checked")
  }

  @Test func returningAnchorGivesTheModelAndItsAnchor() async {
    let (model, anchor) = TestedEditor().returningAnchor()
    model.title = "kept"
    await expect(model.title == "kept")
    #expect(anchor.revision == 1)
  }
}

/// A suite's setting and its tests' settings compose in order.
@Suite(.modelTesting(exhaustivity: [.state, .events]))
struct ModelTestingCompositionTests {
  @Test func aSuitesSetAppliesToItsTests() {
    #expect(ModelTestingScope.current?.ledger.exhaustivity == [.state, .events])
  }

  @Test(.modelTesting(.removing(.events))) func aTestsModifierChangesTheSuitesSet() {
    #expect(ModelTestingScope.current?.ledger.exhaustivity == [.state])
  }

  @Test(.modelTesting(.adding(.preference))) func aTestCanAddACategory() {
    #expect(ModelTestingScope.current?.ledger.exhaustivity == [.state, .events, .preference])
  }

  @Test(.modelTesting(exhaustivity: .preference)) func aTestsOwnSetReplacesTheSuites() {
    #expect(ModelTestingScope.current?.ledger.exhaustivity == .preference)
  }

  @Test func eventsAreCheckedButTasksAreNot() async {
    let model = TestedEditor(loadDelay: .seconds(60)).withAnchor()
    model.load()  // its task runs past the test: not checked here
    await expect(model.isLoading == true)
  }
}

@Test(.modelTesting(.removing(.tasks))) func aTestOutsideASuiteTakesTheFullSetModified() {
  #expect(ModelTestingScope.current?.ledger.exhaustivity == Exhaustivity.full.removing(.tasks))
}

/// `.transitions`: consecutive `expect` blocks match the recorded writes in order, even
/// when the model has moved on by the time the test looks.
@Suite(.modelTesting(.adding(.transitions))) struct ModelTestingTransitionTests {
  @Test func eachExpectMatchesTheNextWritesInOrder() async {
    let model = TestedEditor().withAnchor()
    model.load()  // isLoading = true, then (at once) title = "loaded", isLoading = false
    // Loading is over before the first expect looks: it can only hold as of the first write.
    await expectEventually("the load to finish") { model.isLoading == false && model.title == "loaded" }
    await expect(model.isLoading == true)
    await expect {
      model.isLoading == false
      model.title == "loaded"
    }
  }

  @Test func aRoundTripIsExpectedOneStepAtATime() async {
    let model = TestedEditor().withAnchor()
    model.failAndRecover()
    await expect(model.error == "timeout")
    await expect(model.error == nil)
  }

  @Test func eventsAndProbesStillMatchWhateverTheOrder() async {
    let onSave = TestProbe("onSave")
    let model = TestedEditor(title: "t", onSave: onSave.call).withAnchor()
    model.save()
    model.title = "after"
    await expect(model.title == "after")
    await expect {
      onSave.wasCalled(with: "t")
      model.didSend(.saved("t"))
    }
  }
}
