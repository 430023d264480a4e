import HybridAI
