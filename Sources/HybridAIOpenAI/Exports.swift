// The OpenAI API's wire types and conversions (HybridAIOpenAIWire) come with OpenAIModel.
@_exported import HybridAIOpenAIWire
