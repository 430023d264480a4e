import Foundation
import HybridAI
import HybridAIPersistence
import Logging
import Synchronization

/// The web chat's conversations: the library's ``GenerativeModelSession``s saved in a
/// ``SessionStore`` (so they survive a restart and `hybrid sessions list` sees them), one answer
/// at a time per session, each answer a stream of ``ChatEvent``s that ``stop(sessionID:)`` ends.
public actor ChatSessions {
  /// Where the conversations and their files are kept.
  public nonisolated let store: SessionStore
  /// The models messages are answered with.
  public nonisolated let models: ChatModels
  private let tools: [any Tool]
  /// Tools offered by group, each group switched on or off per message.
  public nonisolated let toolGroups: [ChatToolGroup]
  private let options: GenerationOptions
  private let logger: Logger
  /// The answer running in each session.
  private var answering: [String: Task<Void, Never>] = [:]
  /// Files uploaded to a session and not yet sent with a message (they become the session's once sent).
  private var uploads: [String: Set<String>] = [:]
  /// Files the running answer of a session made: the page shows them (and fetches them) before the
  /// answer is complete and saved. Locked, not actor-isolated, so a file belongs to the chat before
  /// its event reaches the client.
  private let answerFiles = LockedFileSets()

  /// The longest title made from a first message.
  static let titleLength = 60

  /// - Parameters:
  ///   - store: where conversations are saved.
  ///   - models: the on-device and cloud models.
  ///   - tools: the tools every conversation may call.
  ///   - toolGroups: tools a message may switch off by group (an MCP server's); names unique.
  ///   - options: generation options for every answer.
  public init(store: SessionStore, models: ChatModels, tools: [any Tool] = [], toolGroups: [ChatToolGroup] = [],
              options: GenerationOptions = GenerationOptions(), logger: Logger = Logger(label: "HybridAI.chat")) {
    self.store = store
    self.models = models
    self.tools = tools
    self.toolGroups = toolGroups
    self.options = options
    self.logger = logger
  }

  // MARK: - Sessions

  /// A new, empty conversation.
  public func create(title: String?) throws -> SessionRecord {
    let title = title?.trimmingCharacters(in: .whitespacesAndNewlines)
    return try store.save(Transcript(), id: nil, title: title?.isEmpty == false ? title : nil)
  }

  /// Every saved conversation, most recently updated first.
  public func list() throws -> [SessionRecord] {
    try store.list().sorted { $0.updatedAt > $1.updatedAt }
  }

  /// A conversation with its entries and files.
  public func detail(id: String) throws -> ChatSessionDetail {
    let saved = try load(id)
    return ChatSessionDetail(saved, isAnswering: answering[saved.record.id] != nil)
  }

  /// Gives conversation `id` a new title.
  public func rename(id: String, title: String) throws -> SessionRecord {
    let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !title.isEmpty, title.count <= 200 else { throw ChatAppError.invalidRequest("a title is 1 to 200 characters") }
    let saved = try load(id)
    return try store.save(saved.transcript, modelName: saved.record.modelName, id: saved.record.id, title: title)
  }

  /// Deletes conversation `id` and the files no other conversation has; a running answer stops.
  public func delete(id: String) throws {
    let saved = try load(id)
    answering.removeValue(forKey: saved.record.id)?.cancel()
    try store.delete(id: saved.record.id)
    for fileID in uploads.removeValue(forKey: saved.record.id) ?? [] where !isReferenced(fileID) {
      try? store.artifactStore.remove(id: fileID)
    }
  }

  // MARK: - Files

  /// Keeps `data` as a file of conversation `sessionID`, to be sent with a message; its kind is
  /// read from the bytes.
  /// - Throws: ``ChatAppError/sessionNotFound(_:)``, or ``HybridAI/AttachmentError`` (empty,
  ///   unsupported kind, truncated, too large).
  public func upload(sessionID: String, data: Data, name: String) throws -> ChatFile {
    let id = try load(sessionID).record.id
    let reference = try Attachment(data: data, name: Self.safeFileName(name)).store(in: store.artifactStore)
    uploads[id, default: []].insert(reference.id)
    return ChatFile(reference, sessionID: id)
  }

  /// File `fileID` of conversation `sessionID` (with its local path), if it is that conversation's.
  public func file(sessionID: String, fileID: String) throws -> ArtifactReference {
    try ownedFile(fileID, of: try load(sessionID))
  }

  /// File `fileID` with its local path, if it belongs to `saved`: uploaded to it, made by its
  /// running answer, or in its transcript.
  private func ownedFile(_ fileID: String, of saved: SavedSession) throws -> ArtifactReference {
    let id = saved.record.id
    let owned = uploads[id]?.contains(fileID) == true || answerFiles.contains(fileID, in: id)
      || saved.transcript.fileReferences.contains { $0.id == fileID }
    guard owned, let reference = store.artifactStore.reference(id: fileID), reference.fileURL != nil else {
      throw ChatAppError.fileNotFound(fileID)
    }
    return reference
  }

  // MARK: - Answers

  /// Sends a message to conversation `sessionID` and streams the answer. The conversation is
  /// saved when the answer is complete; a failed or stopped answer leaves it as it was.
  /// - Parameters:
  ///   - text: the message's text.
  ///   - fileIDs: files uploaded to this conversation (``upload(sessionID:data:name:)``), sent after the text.
  ///   - mode: the inference mode; the models' default when `nil`.
  ///   - toolGroups: the names of the ``toolGroups`` whose tools this message offers; all when `nil`.
  /// - Throws: before anything streams — ``ChatAppError`` (unknown session, file or tool group,
  ///   empty message, busy session, unavailable mode).
  public func send(sessionID: String, text: String, fileIDs: [String] = [], mode: InferenceMode? = nil,
                   toolGroups enabled: [String]? = nil) throws -> AsyncStream<ChatEvent> {
    let tools = try offeredTools(enabling: enabled)
    let saved = try load(sessionID)
    let id = saved.record.id
    guard answering[id] == nil else { throw ChatAppError.busy(id) }
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty || !fileIDs.isEmpty else { throw ChatAppError.emptyMessage }
    guard let mode = mode ?? models.defaultMode else { throw ChatAppError.modeUnavailable(.onDevice, available: []) }
    let model = try models.model(for: mode)
    var parts: [Prompt.Part] = trimmed.isEmpty ? [] : [.text(trimmed)]
    for fileID in fileIDs {
      let reference = try ownedFile(fileID, of: saved)   // the session read once, not once per file
      parts.append(.attachment(try Attachment(artifact: reference)))
    }
    let prompt = Prompt(parts: parts)
    let session = GenerativeModelSession(model: model, tools: tools, transcript: saved.transcript,
                                         artifactStore: store.artifactStore)
    let title = saved.record.title ?? Self.title(from: trimmed, files: fileIDs.count)
    let (events, continuation) = AsyncStream.makeStream(of: ChatEvent.self)
    let answer = Answer(sessionID: id, session: session, prompt: prompt, options: options, mode: mode, title: title,
                        store: store, logger: logger)
    let answerFiles = self.answerFiles
    let task = Task {
      await answer.run { event in
        if case .artifact(let file, _) = event { answerFiles.insert(file.id, in: id) }
        continuation.yield(event)
      }
      continuation.finish()
      self.answerEnded(sessionID: id, sentFiles: Set(fileIDs))
    }
    answering[id] = task
    continuation.onTermination = { _ in task.cancel() }   // the client went away, or the stream ended
    logger.info("chat answer started", metadata: ["session": "\(id)", "mode": "\(mode.rawValue)", "files": "\(fileIDs.count)"])
    return events
  }

  /// Stops the answer running in conversation `sessionID`; `false` when none was running.
  @discardableResult
  public func stop(sessionID: String) throws -> Bool {
    let id = try load(sessionID).record.id
    guard let task = answering[id] else { return false }
    task.cancel()
    return true
  }

  private func answerEnded(sessionID: String, sentFiles: Set<String>) {
    answering.removeValue(forKey: sessionID)
    answerFiles.removeAll(in: sessionID)   // saved with the turn, or removed with it
    if let saved = try? store.load(id: sessionID) {
      let kept = Set(saved.transcript.fileReferences.map(\.id))
      uploads[sessionID]?.subtract(kept.intersection(sentFiles))
    }
  }

  // MARK: - Helpers

  /// The chat's tools and those of the groups named (all when `nil`).
  private func offeredTools(enabling names: [String]?) throws -> [any Tool] {
    guard let names else { return tools + toolGroups.flatMap(\.tools) }
    let known = Set(toolGroups.map(\.name))
    if let unknown = names.first(where: { !known.contains($0) }) {
      let list = known.isEmpty ? "this chat has none" : "they are \(known.sorted().joined(separator: ", "))"
      throw ChatAppError.invalidRequest("no tool group \(unknown) (\(list))")
    }
    let enabled = Set(names)
    return tools + toolGroups.filter { enabled.contains($0.name) }.flatMap(\.tools)
  }

  private func load(_ id: String) throws -> SavedSession {
    do {
      return try store.load(id: id)
    } catch .notFound, .invalidID {
      throw ChatAppError.sessionNotFound(id)
    }
  }

  private func isReferenced(_ fileID: String) -> Bool {
    ((try? store.list()) ?? []).contains { record in
      (try? store.load(id: record.id))?.transcript.fileReferences.contains { $0.id == fileID } == true
    }
  }

  /// The first line of the first message, shortened, as a title.
  static func title(from text: String, files: Int) -> String {
    let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    if line.isEmpty { return files == 1 ? "A file" : "\(files) files" }
    return line.count <= titleLength ? line : String(line.prefix(titleLength - 1)) + "…"
  }

  /// `name` without directories or control characters (a browser sends what the user picked).
  static func safeFileName(_ name: String) -> String {
    let base = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
    let cleaned = String(base.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }.map(Character.init))
      .trimmingCharacters(in: .whitespaces)
    return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "attachment" : String(cleaned.prefix(200))
  }
}

/// File ids by session, behind a lock (readable without awaiting the actor).
final class LockedFileSets: Sendable {
  private let sets = Mutex<[String: Set<String>]>([:])

  func insert(_ fileID: String, in session: String) { sets.withLock { _ = $0[session, default: []].insert(fileID) } }
  func contains(_ fileID: String, in session: String) -> Bool { sets.withLock { $0[session]?.contains(fileID) == true } }
  func removeAll(in session: String) { sets.withLock { _ = $0.removeValue(forKey: session) } }
}
