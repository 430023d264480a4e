import CLlama
@testable import HybridAIOnDevice
import Testing

/// The prompt cache in memory as a data structure: what it already covers (so a state is not
/// copied out of llama.cpp twice), which entries a new one makes obsolete, and its byte budget.
@Suite("Prompt state cache: coverage, obsolete entries, capacity, size by placement")
struct PromptStateCacheTests {
  static func entry(_ tokens: [llama_token], bytes: Int = 10) -> PromptStateCache.Entry {
    .init(tokens: tokens, state: [UInt8](repeating: UInt8(tokens.count), count: bytes))
  }

  @Test("an entry covers its own tokens and every start of them that is at least half of it, nothing else")
  func coverage() {
    var cache = PromptStateCache(capacity: 100)
    #expect(!cache.covers([1, 2, 3]))
    cache.insert(Self.entry([1, 2, 3, 4]))
    #expect(cache.covers([1, 2, 3, 4]))
    #expect(cache.covers([1, 2, 3]))
    #expect(cache.covers([1, 2]))
    #expect(!cache.covers([1]), "a prompt sharing only a quarter of the entry would not be given it back")
    #expect(!cache.covers([1, 2, 3, 4, 5]), "a continuation holds more than the entry")
    #expect(!cache.covers([1, 2, 5]))
    #expect(!cache.covers([2, 3]))
  }

  @Test("a new entry replaces those it stands for (the same tokens, or a start of at least half of them) and keeps the others")
  func obsoleteEntries() {
    var cache = PromptStateCache(capacity: 100)
    cache.insert(Self.entry([1, 2]))
    cache.insert(Self.entry([1, 2, 3]))
    cache.insert(Self.entry([1, 9, 9]))
    cache.insert(Self.entry([1, 2, 3], bytes: 12))
    #expect(cache.entries.map(\.tokens) == [[1, 9, 9], [1, 2, 3]])
    #expect(cache.bytes == 22)
    cache.insert(Self.entry([1, 2, 3, 4, 5]))
    #expect(cache.entries.map(\.tokens) == [[1, 9, 9], [1, 2, 3, 4, 5]])
    #expect(cache.bytes == 20)
    cache.insert(Self.entry([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]))
    #expect(cache.entries.count == 3, "[1…5] is less than half of the new entry: kept")
  }

  @Test("the oldest entries make room; an entry larger than the capacity is not kept; 0 bytes keeps nothing")
  func capacity() {
    var cache = PromptStateCache(capacity: 25)
    cache.insert(Self.entry([1]))
    cache.insert(Self.entry([2]))
    cache.insert(Self.entry([3]))
    #expect(cache.entries.map(\.tokens) == [[2], [3]])
    cache.insert(Self.entry([4], bytes: 26))
    #expect(cache.entries.map(\.tokens) == [[2], [3]])
    #expect(cache.bestMatch(for: [3, 7]) { shared, _ in shared > 0 }?.index == 1)
    var none = PromptStateCache(capacity: 0)
    none.insert(Self.entry([1]))
    #expect(none.entries.isEmpty && none.bytes == 0)
  }

  @Test("its size: 256 MiB by default on the CPU, none by default on a GPU, a size set by hand on either")
  func sizeByPlacement() {
    let automatic = BatchedLanguageModel.Configuration()
    #expect(automatic.promptCacheMemory == nil)
    #expect(automatic.promptCacheBytes(usesGPU: false) == 256 << 20)
    #expect(automatic.promptCacheBytes(usesGPU: true) == 0, "copying states out of device memory costs more than evaluating them")
    for bytes in [0, 64 << 20] {
      let chosen = BatchedLanguageModel.Configuration(promptCacheMemory: bytes)
      #expect(chosen.promptCacheBytes(usesGPU: false) == bytes)
      #expect(chosen.promptCacheBytes(usesGPU: true) == bytes)
    }
    #expect(BatchedLanguageModel.Configuration(promptCacheMemory: -5).promptCacheBytes(usesGPU: false) == 0)
  }
}
