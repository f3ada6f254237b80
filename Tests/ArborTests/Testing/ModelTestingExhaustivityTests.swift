import Arbor
import ArborTesting
import IssueReporting
import Testing

/// What a model test reports when something is left unasserted, category by category,
/// captured with a recording reporter around `withModelTesting` (the trait's scope, with
/// its report at the line of `withModelTesting`).
@Suite struct ModelTestingExhaustivityTests {
  func reported(_ body: () async throws -> Void) async rethrows -> RecordingReporter {
    let reporter = RecordingReporter()
    try await withIssueReporters([reporter]) { try await body() }
    return reporter
  }

  @Test func aChangeThatReturnedToItsStartIsReportedWithItsWholeChain() async throws {
    var scopeLine: UInt = 0
    let reporter = await reported {
      scopeLine = #line + 1
      await withModelTesting {
        let model = TestedEditor().withAnchor()
        model.failAndRecover()
      }
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(reporter.messages.count == 1, "\(reporter.messages)")
    #expect(message.contains("State changes not asserted:"), "\(message)")
    #expect(message.contains(#"TestedEditor.error at /error: null → "timeout" → null (revisions 1, 2)"#), "\(message)")
    #expect(reporter.reports.first?.line == scopeLine, "reported at the line of withModelTesting")
  }

  @Test func anUnassertedLocalValueIsReported() async throws {
    let reporter = await reported {
      await withModelTesting {
        let model = TestedEditor().withAnchor()
        model.startEditing()
      }
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(message.contains("Local values not asserted:\n  TestedEditor.local.isEditing: (not set) → true"), "\(message)")
  }

  @Test func anUnassertedEnvironmentValueIsReported() async throws {
    let reporter = await reported {
      await withModelTesting {
        let model = TestedEditor().withAnchor()
        model.useTheme("dark")
        model.useTheme("light")
      }
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(message.contains(#"Environment values not asserted:"#), "\(message)")
    #expect(message.contains(#"TestedEditor.environment.theme: (not set) → "dark" → "light""#), "\(message)")
  }

  @Test func anUnassertedPreferenceContributionIsReported() async throws {
    let reporter = await reported {
      await withModelTesting {
        let model = TestedEditor().withAnchor()
        model.addChild()
        let child = try? await require(model.child)
        child?.markDirty()
      }
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(message.contains("Preference contributions not asserted:\n  TestedEditor.preference.dirtyCount: (not set) → 1"), "\(message)")
    #expect(!message.contains("State changes"), "require read the child: \(message)")
  }

  @Test func eachStorageCategoryIsCheckedOnlyWhenRequired() async {
    let reporter = await reported {
      await withModelTesting(exhaustivity: Exhaustivity.full.removing([.local, .environment, .preference])) {
        let model = TestedEditor().withAnchor()
        model.startEditing()
        model.useTheme("dark")
        model.markDirty()
      }
    }
    #expect(reporter.messages.isEmpty, "\(reporter.messages)")
  }

  @Test func aProbeCallNobodyExpectedIsReportedWithoutInstall() async throws {
    let reporter = await reported {
      await withModelTesting {
        let onSave = TestProbe("onSave")
        let model = TestedEditor(title: "x", onSave: onSave.call).withAnchor()
        model.save()
        await expect(model.didSend(.saved("x")))
      }
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(message.contains("Probe calls not asserted (wasCalled):\n  onSave(\"x\")"), "\(message)")
  }

  @Test func anEventAndATaskLeftOverAreReported() async throws {
    let reporter = await reported {
      await withModelTesting {
        let model = TestedEditor(loadDelay: .seconds(60)).withAnchor()
        model.save()
        model.load()
        await expect { model.isLoading == true }
      }
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(message.contains("Events not asserted (didSend):"), "\(message)")
    #expect(message.contains("Tasks still running:\n  a task of TestedEditor at /"), "\(message)")
  }

  @Test func withExhaustivityForgetsOnlyWhatItsBodyDidInTheCategoriesItLeavesOut() async throws {
    let reporter = await reported {
      await withModelTesting {
        let model = TestedEditor().withAnchor()
        await withExhaustivity(.state) {
          model.useTheme("dark")  // environment: not checked here
          model.title = "inside"  // state: still checked
        }
        model.startEditing()  // after the body: checked
      }
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(!message.contains("theme"), "\(message)")
    #expect(message.contains(#"TestedEditor.title at /title: "" → "inside""#), "\(message)")
    #expect(message.contains("TestedEditor.local.isEditing"), "\(message)")
  }

  @Test func settleResetsOnlyWhatItIsToldTo() async throws {
    let reporter = await reported {
      await withModelTesting {
        let model = TestedEditor().withAnchor()
        model.save()
        model.title = "before"
        await settle(resetting: .full.removing(.events))
      }
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(message.contains("Events not asserted"), "\(message)")
    #expect(!message.contains("State changes"), "\(message)")
  }

  @Test func settleReportsWhenItsConditionNeverHolds() async throws {
    var settleLine: UInt = 0
    let reporter = await reported {
      await withModelTesting {
        let model = TestedEditor().withAnchor()
        settleLine = #line + 1
        await settle(timeout: .milliseconds(100)) { model.title == "never" }
      }
    }
    let report = try #require(reporter.reports.first, "one report")
    #expect(report.message.contains("settle: the models did not settle"), "\(report.message)")
    #expect(report.line == settleLine)
  }

  @Test func expectOutsideAModelTestSaysHowToGetOne() async throws {
    let reporter = await reported {
      await expect(1 + 1 == 2)
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(message.contains("add the .modelTesting trait"), "\(message)")
  }

  @Test func aFailingExpectShowsTheValuesItReadIncludingStorage() async throws {
    let reporter = await reported {
      await withModelTesting(exhaustivity: .off) {
        let model = TestedEditor().withAnchor()
        model.startEditing()
        await expect(timeout: .milliseconds(50)) {
          model.node.local.isEditing == false
        }
      }
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(message.contains("TestedEditor.local.isEditing = true"), "\(message)")
  }
}

/// What `.transitions` reports.
@Suite struct ModelTestingTransitionFailureTests {
  func reported(_ body: () async throws -> Void) async rethrows -> RecordingReporter {
    let reporter = RecordingReporter()
    try await withIssueReporters([reporter]) { try await body() }
    return reporter
  }

  @Test func anExpectThatSkipsAValueIsReportedWithTheValuesItSkipped() async throws {
    var expectLine: UInt = 0
    let reporter = await reported {
      await withModelTesting(exhaustivity: .full.adding(.transitions)) {
        let model = TestedEditor().withAnchor()
        model.load()
        expectLine = #line + 1
        await expect { model.isLoading == false; model.title == "loaded" }
      }
    }
    let report = try #require(reporter.reports.first, "one report")
    #expect(reporter.reports.count == 1, "\(reporter.messages)")
    #expect(report.message.contains("changed more than once"), "\(report.message)")
    #expect(report.message.contains("TestedEditor.isLoading at /isLoading: false → true → false"), "\(report.message)")
    #expect(report.line == expectLine)
  }

  @Test func withoutTransitionsTheSameExpectPasses() async {
    let reporter = await reported {
      await withModelTesting {
        let model = TestedEditor().withAnchor()
        model.load()
        await expect { model.isLoading == false; model.title == "loaded" }
      }
    }
    #expect(reporter.messages.isEmpty, "\(reporter.messages)")
  }

  @Test func anExpectCannotMatchAWriteBeforeThePreviousOnesMatch() async throws {
    let reporter = await reported {
      await withModelTesting(exhaustivity: .full.adding(.transitions)) {
        let model = TestedEditor().withAnchor()
        model.load()
        await expect(model.title == "loaded")  // the second write
        await expect(model.isLoading == true, timeout: .milliseconds(100))  // the first: too late
      }
    }
    #expect(reporter.messages.contains { $0.contains("assert: not every predicate held") }, "\(reporter.messages)")
    #expect(
      reporter.messages.contains { $0.contains("TestedEditor.isLoading at /isLoading: false → true → false") },
      "the unmatched writes are left over: \(reporter.messages)")
  }
}
