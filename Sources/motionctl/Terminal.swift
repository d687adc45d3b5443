import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Standard input in key-at-a-time mode (no line buffering, no echo, Ctrl-C read as a key) for a
/// live display that stops on a key press. The terminal's settings are restored by `restore()`,
/// and by a handler if the process gets SIGINT, SIGTERM or SIGHUP meanwhile.
final class KeyReader {
    /// Ctrl-C as a byte (ISIG is off while reading keys).
    static let interrupt: UInt8 = 3

    private var restored = false

    /// Nil when standard input is not a terminal (then no key can stop the display).
    init?() {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return nil }
        savedTerminal = settings
        hasSavedTerminal = 1
        // Whoever started us may have blocked these (a test runner's worker thread does): unblock
        // them, or a SIGINT would wait forever while the terminal stays in key mode.
        var handled = sigset_t()
        sigemptyset(&handled)
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, restoreTerminalAndExit)
            sigaddset(&handled, signalNumber)
        }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
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
        if hasSavedTerminal == 1 {
            tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
            hasSavedTerminal = 0
        }
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_DFL)
        }
    }
}

// Read by the signal handler, which can capture nothing: written before the handler is installed.
nonisolated(unsafe) private var savedTerminal = termios()
nonisolated(unsafe) private var hasSavedTerminal: sig_atomic_t = 0

/// Async-signal-safe: restores the terminal, ends the line, exits with 128 + signal.
private func restoreTerminalAndExit(_ signalNumber: Int32) {
    if hasSavedTerminal == 1 {
        tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
    }
    let newline: [UInt8] = [13, 10]
    _ = newline.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, 2) }
    _exit(128 + signalNumber)
}

/// Redraws a block of lines in place with ANSI escapes.
struct LiveDisplay {
    private var linesShown = 0

    mutating func show(_ lines: [String]) {
        var text = linesShown > 0 ? "\u{1B}[\(linesShown)A" : ""
        for line in lines { text += "\r\u{1B}[2K" + line + "\n" }
        // Clear lines left over from a longer previous block.
        for _ in lines.count..<max(lines.count, linesShown) { text += "\r\u{1B}[2K\n" }
        let extra = max(0, linesShown - lines.count)
        if extra > 0 { text += "\u{1B}[\(extra)A" }
        linesShown = lines.count
        fflush(nil)   // whatever `print` buffered goes first
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
