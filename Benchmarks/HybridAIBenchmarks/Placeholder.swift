public enum HybridAIBenchmarks {}
