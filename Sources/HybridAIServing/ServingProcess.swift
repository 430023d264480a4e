import CLinuxExtras

/// Process-wide settings for a process that serves (``HybridServer``: the Gemini API, the model registry).
public enum ServingProcess {
  /// Allocations below this size come from malloc's heaps, not a fresh `mmap` each.
  static let mallocMMapThreshold: Int32 = 4 << 20
  /// Free memory malloc keeps at the top of a heap instead of returning it to the kernel.
  static let mallocTrimThreshold: Int32 = 64 << 20

  /// Keeps glibc's malloc from handing the buffers of streamed responses back to the kernel
  /// after every chunk. The registry sends a model file in 1 MiB chunks, one new buffer each;
  /// by default each is a fresh `mmap` whose pages are faulted in and zeroed, then unmapped (or
  /// trimmed) when freed: measured, a sixth of the server's CPU for a 1 GiB download, and 14%
  /// of a loopback download's wall time. With this, freed buffers are reused (mmap threshold
  /// 4 MiB, trim threshold 64 MiB; a serving process may keep that much more memory).
  ///
  /// Call once, early; `hybrid serve` does. Returns whether it took effect (glibc only).
  @discardableResult
  public static func keepStreamingBuffersAllocated() -> Bool {
    hybridai_set_malloc_thresholds(mallocMMapThreshold, mallocTrimThreshold) == 1
  }
}
