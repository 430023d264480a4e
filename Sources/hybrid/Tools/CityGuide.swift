import HybridAI

/// The structured answer `hybrid demo` asks for.
@Generable(description: "A short guide to a city")
struct CityGuide {
  @Guide(description: "The city's name")
  var city: String
  @Guide(description: "The country it is in")
  var country: String
  @Guide(description: "Three places to see", .count(3))
  var sights: [String]
  @Guide(description: "How much a first-time visitor would enjoy it", .range(1...5))
  var rating: Int
}
