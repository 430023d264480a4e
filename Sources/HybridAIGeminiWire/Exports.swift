// Google's error envelope (`GoogleErrorEnvelope`, inside `GeminiError`) is part of the wire
// contract shared with the model registry's client and `hybrid serve`; users of GeminiModel get it.
@_exported import HybridAIWire
