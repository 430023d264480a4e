// A text/event-stream → ServerSentEventParser, which reads every streamed answer from Gemini and
// OpenAI-compatible servers. The first byte sets how the rest is cut into chunks (1 to 16 bytes
// each, as a network delivers them); the rest is the stream.
//
// Properties: the events, the event left at the end and the stray text do not depend on how the
// stream was cut; every event, written in wire form (`encoded`), reads back as itself.
import Foundation
import FuzzDriver
import HybridAIHTTP

@_cdecl("FuzzServerSentEvents_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
  guard let first = bytes.first else { return 0 }
  let stream = bytes[1...]

  var whole = ServerSentEventParser()
  let events = whole.parse(stream)
  let last = whole.finish()

  var chunked = ServerSentEventParser()
  var chunkedEvents: [ServerSentEvent] = []
  var state = UInt32(first)
  var index = stream.startIndex
  while index < stream.endIndex {
    state = state &* 1_103_515_245 &+ 12_345
    let end = min(index + Int((state >> 16) % 16) + 1, stream.endIndex)
    chunkedEvents += chunked.parse(stream[index..<end])
    index = end
  }
  let chunkedLast = chunked.finish()
  precondition(chunkedEvents == events, "chunking changed the events: \(chunkedEvents) vs \(events)")
  precondition(chunkedLast == last, "chunking changed the last event: \(String(describing: chunkedLast)) vs \(String(describing: last))")
  precondition(chunked.strayText == whole.strayText, "chunking changed the stray text")

  for event in events + (last.map { [$0] } ?? []) {
    var parser = ServerSentEventParser()
    var reread = parser.parse(Array(event.encoded.utf8))
    if let tail = parser.finish() { reread.append(tail) }
    precondition(reread == [event], "\(event) reads back as \(reread) from \(event.encoded.debugDescription)")
    precondition(parser.strayText == nil, "an encoded event left stray text: \(event.encoded.debugDescription)")
  }
  return 0
}
