import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct ArborMacrosPlugin: CompilerPlugin {
  let providingMacros: [Macro.Type] = [
    ModelMacro.self,
    ModelTrackedMacro.self,
    ModelContainerMacro.self,
    ModelIgnoredMacro.self,
    ModelDependencyMacro.self,
    IntentMacro.self,
  ]
}
