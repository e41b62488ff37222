package org.mpfl.runtime.interp.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.mpfl.testing.Await;

/** How a worker's output stream becomes log lines: what a line shows, and when a line without newline shows. */
class OutputPumpTest {
    private static final Duration BOUND = Duration.ofSeconds(30);

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final OutputPump.Sink sink = (level, text) -> lines.add(level + ": " + text);

    /**
     * A kernel's output reaches terminals (the console, mpflc run and status): its escape sequences, carriage returns
     * and other control characters are shown as escapes, not obeyed (a colour that stays, a line overwritten, a window
     * retitled). A tab and UTF-8 text are kept; a CRLF line ending is a line ending. Before, they passed through as
     * they were.
     */
    @Test
    void controlCharactersAreShownAsEscapesAndTextIsKept() {
        byte[] printed = ("red \u001b[31malarm\u001b[0m\tdone\r\n"
                + "bell\u0007 é ü ✓ 温度\n"
                + "10%\r20%\u001b]0;title\u0007\u007f\u0085\n").getBytes(StandardCharsets.UTF_8);
        OutputPump pump = new OutputPump(new ByteArrayInputStream(printed), "info", sink, new AtomicLong(1 << 20), "test-pump");
        pump.drain(BOUND.toMillis());
        assertEquals(List.of("info: red \\x1b[31malarm\\x1b[0m\tdone",
                "info: bell\\x07 é ü ✓ 温度",
                "info: 10%\\x0d20%\\x1b]0;title\\x07\\x7f\\x85"), lines);
    }

    /**
     * {@code print("x", end="")} then a long computation: the line shows when the call ends, while the worker lives
     * on, not only when the worker ends; bytes the pump reads after the call's end show as they come. While a call
     * runs, a line printed in pieces stays one line.
     */
    @Test
    void aLineWithoutNewlineShowsWhenItsCallEnds() throws Exception {
        Pipe pipe = Pipe.open();
        OutputPump pump = new OutputPump(Channels.newInputStream(pipe.source()), "warn", sink, new AtomicLong(1 << 20),
                "test-pump");
        try (OutputStream worker = Channels.newOutputStream(pipe.sink())) {
            pump.callStarts();
            worker.write("one ".getBytes(StandardCharsets.UTF_8));
            worker.write("line\n".getBytes(StandardCharsets.UTF_8));
            Await.until(BOUND, "the call's whole line", () -> lines.contains("warn: one line"));
            // one write, read in one piece: before callEnded (shown by it) or after (shown as it is read)
            worker.write("progress: 50%".getBytes(StandardCharsets.UTF_8));
            pump.callEnded();
            Await.until(BOUND, () -> "the partial line, the pipe still open: " + lines, () -> lines, l -> l.size() == 2);
            assertEquals(List.of("warn: one line", "warn: progress: 50%"), lines);

            worker.write("late".getBytes(StandardCharsets.UTF_8)); // after the answer, before the next call
            Await.until(BOUND, () -> "printed between calls: " + lines, () -> lines, l -> l.size() == 3);
            assertEquals("warn: late", lines.get(2));

            // the Python worker ends an open line before it answers: that newline, read after the line was shown,
            // ends it and makes no empty line of its own; a newline after it is an empty line the kernel printed
            pump.callStarts();
            worker.write("\nnext\n\n".getBytes(StandardCharsets.UTF_8));
            Await.until(BOUND, () -> "after the shown line: " + lines, () -> lines, l -> l.size() == 5);
            assertEquals(List.of("warn: next", "warn: "), lines.subList(3, 5));
        }
        pump.drain(BOUND.toMillis());
        assertEquals(5, lines.size(), "nothing left for the end of the stream: " + lines);
    }
}
