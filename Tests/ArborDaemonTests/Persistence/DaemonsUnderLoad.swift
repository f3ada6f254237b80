import Testing

/// The tests that drive real daemons hard for a minute or more (crash cycles, takeovers,
/// network cuts) run one at a time, beside the rest of the suite: together they took both
/// cores from it, and tests with deadlines elsewhere failed on a loaded machine.
@Suite(.serialized) enum DaemonsUnderLoad {}

typealias CrashTests = DaemonsUnderLoad.CrashTests
typealias TakeoverTests = DaemonsUnderLoad.TakeoverTests
