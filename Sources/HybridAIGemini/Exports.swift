// The Gemini API's wire types and conversions (HybridAIGeminiWire, which also re-exports Google's
// error envelope from HybridAIWire) come with GeminiModel.
@_exported import HybridAIGeminiWire
