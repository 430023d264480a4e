/// HybridAI's version: the one place it is written. `hybrid --version`, the release bundle's name
/// (scripts/make-bundle reads this line) and the `Server` header of `hybrid serve` all say it.
public enum HybridAIVersion {
  /// The release this build belongs to, in semantic-versioning form (see CHANGELOG.md).
  public static let current = "0.9.0"
}
