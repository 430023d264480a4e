import HybridAI
@main struct Hybrid { static func main() {} }
