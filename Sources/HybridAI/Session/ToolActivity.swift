/// What the session's tools are doing, for a UI: calls starting and finishing, progress
/// reports, artifacts created. Delivered by ``GenerativeModelSession/toolEvents``.
///
/// For one call the events come in order: ``started(toolName:callID:)``, any
/// ``progress(callID:fraction:message:)`` reports in the order the tool made them, one
/// ``artifactCreated(callID:_:)`` per stored artifact, then ``finished(callID:isError:)``.
/// Calls of one round run concurrently, so events of different calls may interleave.
public enum ToolActivity: Sendable, Hashable {
  /// The session is calling `toolName`; `callID` is the ``Transcript/ToolCall/id``.
  case started(toolName: String, callID: String)
  /// The tool reported progress through ``ToolContext/report(progress:_:)``: `fraction` in 0...1.
  case progress(callID: String, fraction: Double, message: String)
  /// An artifact the call returned is stored; the reference carries its local file URL.
  case artifactCreated(callID: String, ArtifactReference)
  /// The call is over. `isError` is true when the tool threw or its artifacts could not be stored
  /// (what the model or the caller then sees follows ``ToolExecutionPolicy/failure``).
  case finished(callID: String, isError: Bool)
}
