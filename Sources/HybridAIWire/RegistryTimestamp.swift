import Foundation

public enum RegistryTimestamp {
  /// `date` as `date.formatted(.iso8601)` writes it. Whole seconds from 1970 through 9999, which
  /// is every time the registry writes, are formatted here without Foundation's calendar
  /// machinery (a few microseconds a call); anything else goes to Foundation.
  public static func string(_ date: Date) -> String {
    let interval = date.timeIntervalSince1970
    guard interval >= 0, interval < 253_402_300_800, interval.rounded(.down) == interval else {
      return date.formatted(.iso8601)
    }
    let seconds = Int64(interval)
    let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
    let (year, month, day) = civilDate(daysSince1970: days)
    var text = [UInt8](repeating: 0, count: 20)
    func put(_ value: Int64, at offset: Int, digits: Int) {
      var value = value
      for position in (offset..<offset + digits).reversed() {
        text[position] = UInt8(ascii: "0") + UInt8(value % 10)
        value /= 10
      }
    }
    put(year, at: 0, digits: 4)
    text[4] = UInt8(ascii: "-")
    put(month, at: 5, digits: 2)
    text[7] = UInt8(ascii: "-")
    put(day, at: 8, digits: 2)
    text[10] = UInt8(ascii: "T")
    put(secondOfDay / 3600, at: 11, digits: 2)
    text[13] = UInt8(ascii: ":")
    put(secondOfDay / 60 % 60, at: 14, digits: 2)
    text[16] = UInt8(ascii: ":")
    put(secondOfDay % 60, at: 17, digits: 2)
    text[19] = UInt8(ascii: "Z")
    return String(decoding: text, as: UTF8.self)
  }

  /// The proleptic Gregorian date `days` after 1970-01-01, for `days >= 0` (Howard Hinnant's
  /// `civil_from_days`).
  static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let shifted = days + 719_468                                   // days since 0000-03-01
    let era = shifted / 146_097                                    // 400-year cycles
    let dayOfEra = shifted - era * 146_097                         // 0...146_096
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)   // from March 1
    let monthFromMarch = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
    let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
