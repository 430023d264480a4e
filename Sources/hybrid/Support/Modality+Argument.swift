import ArgumentParser
import HybridAI

/// `--response-modality image`: a ``Modality`` by its raw value.
extension Modality: ExpressibleByArgument {}
