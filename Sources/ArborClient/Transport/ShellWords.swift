/// Words as a POSIX shell splits and quotes them, for `$ARBOR_SSH_COMMAND` and the remote
/// command line.
///
/// ```swift
/// ShellWords.split(#"ssh -o "ProxyCommand=nc %h %p" -i 'my key'"#)   // ["ssh", "-o", "ProxyCommand=nc %h %p", "-i", "my key"]
/// ShellWords.quote("/run/my daemon.sock")                          // "'/run/my daemon.sock'"
/// ```
public enum ShellWords {
  /// Splits at unquoted spaces; single quotes keep everything, double quotes keep all but
  /// `\"` and `\\`, a backslash outside quotes keeps the next character.
  public static func split(_ text: String) -> [String] {
    var words: [String] = []
    var word = ""
    var inWord = false
    var quote: Character?
    var escaped = false
    for character in text {
      if escaped {
        word.append(character)
        escaped = false
        continue
      }
      switch quote {
      case "'"?:
        if character == "'" { quote = nil } else { word.append(character) }
      case "\""?:
        if character == "\"" {
          quote = nil
        } else if character == "\\" {
          escaped = true
        } else {
          word.append(character)
        }
      default:
        if character == " " || character == "\t" || character == "\n" {
          if inWord { words.append(word) }
          word = ""
          inWord = false
        } else {
          inWord = true
          if character == "'" || character == "\"" {
            quote = character
          } else if character == "\\" {
            escaped = true
          } else {
            word.append(character)
          }
        }
      }
    }
    if inWord { words.append(word) }
    return words
  }

  /// `word` as one word for a POSIX shell: as it is when it has only safe characters,
  /// else in single quotes.
  public static func quote(_ word: String) -> String {
    let safe = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-+=:,@%".contains($0)) }
    if safe && !word.isEmpty { return word }
    return "'" + word.replacing("'", with: #"'\''"#) + "'"
  }
}
