import CommandSupport
import Foundation
import Timing

#if canImport(Glibc)
import Glibc
#endif

/// Standard input in key-at-a-time mode (no line buffering, no echo, Ctrl-C read as a key) for a
/// live display that stops on a key press. The terminal's settings are restored by `restore()`.
/// SIGINT, SIGTERM and SIGHUP are ``Interruption``'s: the command's loop sees them, restores the
/// terminal and ends the usual way.
final class KeyReader {
    /// Ctrl-C as a byte (ISIG is off while reading keys).
    static let interrupt: UInt8 = 3

    private var restored = false
    private var savedTerminal = termios()

    /// Nil when standard input is not a terminal (then no key can stop the display).
    init?() {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return nil }
        savedTerminal = settings
        Interruption.watch()
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &settings) == 0 else { return nil }
    }

    deinit { restore() }

    /// The key pressed since the last call, without waiting; nil when none.
    func pressedKey() -> UInt8? {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return nil }
        var byte: UInt8 = 0
        return read(STDIN_FILENO, &byte, 1) == 1 ? byte : nil
    }

    /// Puts the terminal back as it was (idempotent).
    func restore() {
        guard !restored else { return }
        restored = true
        tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
    }
}

/// What an output stream can show: cursor movement only on a terminal that is not `TERM=dumb`,
/// colour only there too and only without `NO_COLOR` (https://no-color.org). Pipes and files get
/// plain lines.
struct TerminalStyle: Sendable {
    /// Escape sequences that move the cursor and clear lines may be written.
    let redrawsInPlace: Bool
    /// Colour escape sequences may be written.
    let usesColor: Bool

    init(descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let terminal = isatty(descriptor) == 1 && environment["TERM"] != "dumb"
        redrawsInPlace = terminal
        usesColor = terminal && (environment["NO_COLOR"] ?? "").isEmpty
    }

    init(redrawsInPlace: Bool, usesColor: Bool) {
        self.redrawsInPlace = redrawsInPlace
        self.usesColor = usesColor
    }

    static var standardOutput: TerminalStyle { TerminalStyle(descriptor: STDOUT_FILENO) }

    enum Color: Int { case red = 31, green = 32, yellow = 33, blue = 34 }

    /// `text` in `color` where colour is allowed, else as it is.
    func colored(_ text: String, _ color: Color) -> String {
        usesColor ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }
}

/// Shows a block of lines that changes over time: on a terminal, redrawn in place with ANSI
/// escapes (only its own lines: what was printed above stays); elsewhere (a pipe, a file,
/// `TERM=dumb`) as plain blocks, at most one every `plainInterval` seconds, so a log stays short.
struct LiveDisplay {
    private var linesShown = 0
    private let style: TerminalStyle
    private let plainInterval: Double
    private var lastPlainBlock = -Double.infinity

    /// Seconds between plain blocks (docs/motionctl.md, "Terminals and pipes").
    static let plainBlockInterval = 2.0

    init(style: TerminalStyle = .standardOutput, plainInterval: Double = Self.plainBlockInterval) {
        self.style = style
        self.plainInterval = plainInterval
    }

    /// Shows `lines`; `final` forces a plain block out (the last state before a result).
    mutating func show(_ lines: [String], final: Bool = false) {
        guard style.redrawsInPlace else {
            let now = SystemClock.monotonicSeconds()
            guard final || now - lastPlainBlock >= plainInterval else { return }
            lastPlainBlock = now
            StandardStreams.output(lines.joined(separator: "\n") + "\n")
            return
        }
        redraw(lines)
    }

    /// The terminal's width in columns (80 when it cannot be asked).
    static func columns() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// `line` cut to `width` visible characters (colour escapes take no room and are kept whole).
    static func cut(_ line: String, toWidth width: Int) -> String {
        var visible = 0
        var result = ""
        var inEscape = false
        for character in line {
            if character == "\u{1B}" { inEscape = true }
            if !inEscape {
                if visible == width - 1 {
                    return result + "…" + (line.contains("\u{1B}") ? "\u{1B}[0m" : "")
                }
                visible += 1
            }
            result.append(character)
            if inEscape, character.isLetter { inEscape = false }
        }
        return result
    }

    private mutating func redraw(_ lines: [String]) {
        // A line wider than the terminal would wrap onto two and the next redraw would start one
        // line too low: every line is cut to the width.
        let width = max(10, Self.columns() - 1)
        let lines = lines.map { Self.cut($0, toWidth: width) }
        var text = linesShown > 0 ? "\u{1B}[\(linesShown)A" : ""
        for line in lines { text += "\r\u{1B}[2K" + line + "\n" }
        // Clear lines left over from a longer previous block.
        for _ in lines.count..<max(lines.count, linesShown) { text += "\r\u{1B}[2K\n" }
        let extra = max(0, linesShown - lines.count)
        if extra > 0 { text += "\u{1B}[\(extra)A" }
        linesShown = lines.count
        StandardStreams.output(text)   // after whatever `print` buffered
    }
}
