/// A bounds-checked reader for FlatBuffers binary data: every access is checked against the
/// buffer's size, so reading corrupt bytes fails with ``FlatbufferReader/Failure`` instead of
/// touching memory outside the buffer.
///
/// Only what ``ModelValidator`` needs: tables (vtable lookups), scalar fields, offsets to
/// sub-tables, vectors of scalars or tables, and strings.
struct FlatbufferReader {
  /// Why a read failed.
  enum Failure: Error, Equatable {
    /// A reference points at or past the end of the data (a truncated or corrupt file).
    case beyondEnd(offset: Int, needed: Int)
    /// The bytes cannot be a FlatBuffer (a negative offset, a vtable too small, …).
    case malformed(String)
  }

  /// A table: its position and the position and size of its vtable.
  struct Table {
    let position: Int
    let vtable: Int
    let vtableSize: Int
    let tableSize: Int
  }

  /// A vector: the position of its first element and its length.
  struct Vector {
    let start: Int
    let count: Int
  }

  let bytes: UnsafeRawBufferPointer

  var size: Int { bytes.count }

  // MARK: scalars

  func check(_ offset: Int, _ length: Int) throws(Failure) {
    guard offset >= 0, length >= 0 else { throw .malformed("negative offset \(offset)") }
    let (end, overflow) = offset.addingReportingOverflow(length)
    guard !overflow, end <= size else { throw .beyondEnd(offset: offset, needed: length) }
  }

  func u8(_ offset: Int) throws(Failure) -> UInt8 {
    try check(offset, 1)
    return bytes[offset]
  }

  func u16(_ offset: Int) throws(Failure) -> UInt16 {
    try check(offset, 2)
    return UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
  }

  func u32(_ offset: Int) throws(Failure) -> UInt32 {
    try check(offset, 4)
    return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  func i32(_ offset: Int) throws(Failure) -> Int32 {
    Int32(bitPattern: try u32(offset))
  }

  func u64(_ offset: Int) throws(Failure) -> UInt64 {
    try check(offset, 8)
    return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
  }

  // MARK: tables

  /// The root table: the first 4 bytes hold its offset.
  func rootTable() throws(Failure) -> Table {
    let offset = Int(try u32(0))
    return try table(at: offset)
  }

  /// The table at `position`: its first 4 bytes are a signed offset back to its vtable.
  func table(at position: Int) throws(Failure) -> Table {
    try check(position, 4)
    guard position % 4 == 0 else { throw .malformed("table at \(position) is not 4-byte aligned") }
    let (vtable, overflow) = position.subtractingReportingOverflow(Int(try i32(position)))
    guard !overflow, vtable >= 0 else { throw .malformed("vtable of table at \(position) before the buffer") }
    guard vtable % 2 == 0 else { throw .malformed("vtable at \(vtable) is not 2-byte aligned") }
    let vtableSize = Int(try u16(vtable))
    let tableSize = Int(try u16(vtable + 2))
    guard vtableSize >= 4, vtableSize % 2 == 0 else { throw .malformed("vtable at \(vtable) has size \(vtableSize)") }
    try check(vtable, vtableSize)
    guard tableSize >= 4 else { throw .malformed("table at \(position) has size \(tableSize)") }
    try check(position, tableSize)
    return Table(position: position, vtable: vtable, vtableSize: vtableSize, tableSize: tableSize)
  }

  /// The position of field `slot` in `table`, or nil when the field is absent.
  func field(_ table: Table, _ slot: Int, width: Int) throws(Failure) -> Int? {
    let entry = 4 + 2 * slot
    guard entry + 2 <= table.vtableSize else { return nil }
    let offset = Int(try u16(table.vtable + entry))
    guard offset != 0 else { return nil }
    guard offset + width <= table.tableSize else {
      throw .malformed("field \(slot) of table at \(table.position) lies outside the table")
    }
    return table.position + offset
  }

  func u8(_ table: Table, _ slot: Int, default value: UInt8 = 0) throws(Failure) -> UInt8 {
    guard let at = try field(table, slot, width: 1) else { return value }
    return try u8(at)
  }

  func u32(_ table: Table, _ slot: Int, default value: UInt32 = 0) throws(Failure) -> UInt32 {
    guard let at = try field(table, slot, width: 4) else { return value }
    return try u32(at)
  }

  func i32(_ table: Table, _ slot: Int, default value: Int32 = 0) throws(Failure) -> Int32 {
    guard let at = try field(table, slot, width: 4) else { return value }
    return try i32(at)
  }

  func u64(_ table: Table, _ slot: Int, default value: UInt64 = 0) throws(Failure) -> UInt64 {
    guard let at = try field(table, slot, width: 8) else { return value }
    return try u64(at)
  }

  /// Follows the unsigned offset stored at `position`.
  func target(at position: Int) throws(Failure) -> Int {
    let relative = Int(try u32(position))
    let (target, overflow) = position.addingReportingOverflow(relative)
    guard !overflow else { throw .malformed("offset at \(position) overflows") }
    guard target < size else { throw .beyondEnd(offset: target, needed: 4) }
    return target
  }

  /// The sub-table that field `slot` refers to, or nil when absent.
  func table(_ table: Table, _ slot: Int) throws(Failure) -> Table? {
    guard let at = try field(table, slot, width: 4) else { return nil }
    return try self.table(at: try target(at: at))
  }

  /// The vector (of elements `elementSize` bytes wide) that field `slot` refers to, or nil.
  func vector(_ table: Table, _ slot: Int, elementSize: Int) throws(Failure) -> Vector? {
    guard let at = try field(table, slot, width: 4) else { return nil }
    return try vector(at: try target(at: at), elementSize: elementSize)
  }

  func vector(at position: Int, elementSize: Int) throws(Failure) -> Vector {
    guard position % 4 == 0 else { throw .malformed("vector at \(position) is not 4-byte aligned") }
    let count = Int(try u32(position))
    let (length, overflow) = count.multipliedReportingOverflow(by: elementSize)
    guard !overflow else { throw .malformed("vector at \(position) is too long") }
    try check(position + 4, length)
    return Vector(start: position + 4, count: count)
  }

  /// Element `index` of a vector of tables.
  func table(in vector: Vector, at index: Int) throws(Failure) -> Table {
    try table(at: try target(at: vector.start + 4 * index))
  }

  func i32(in vector: Vector, at index: Int) throws(Failure) -> Int32 {
    try i32(vector.start + 4 * index)
  }

  /// The string that field `slot` refers to, or nil when absent (its bytes are checked, NUL included).
  func string(_ table: Table, _ slot: Int) throws(Failure) -> String? {
    guard let vector = try vector(table, slot, elementSize: 1) else { return nil }
    guard try u8(vector.start + vector.count) == 0 else {
      throw .malformed("string at \(vector.start) is not NUL-terminated")
    }
    return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[vector.start..<(vector.start + vector.count)]),
                  as: UTF8.self)
  }
}
