@testable import HybridAIRegistry
import Testing

/// RFC 7239 `Forwarded`, as far as URL building needs it.
@Suite struct ForwardedHeaderTests {
  @Test("the first element's proto and host; names case-insensitive; quoted values unquoted", arguments: [
    ("proto=https;host=a.example", "https", "a.example"),
    ("for=192.0.2.60;Proto=http;HOST=\"b.example:8080\", proto=https;host=inner", "http", "b.example:8080"),
    (#"host="[2001:db8::1]:8443";proto=https"#, "https", "[2001:db8::1]:8443"),
    (#"for="x;y,z";host=c.example"#, nil, "c.example"),           // separators inside quotes do not split
    (#"host="d\"e""#, nil, #"d"e"#),                               // escapes in quoted strings
    ("for=192.0.2.43, host=later.example", nil, nil),             // only the first element counts
    ("", nil, nil),
    ("garbage", nil, nil),
  ] as [(String, String?, String?)])
  func parses(header: String, proto: String?, host: String?) {
    let parsed = ForwardedHeader(header)
    #expect(parsed.proto == proto)
    #expect(parsed.host == host)
  }
}
