package dev.logpipe.collector.internal.compat.syslog;

import dev.logpipe.collector.internal.compat.DecodedLines;
import dev.logpipe.collector.internal.compat.WholeBody;
import dev.logpipe.collector.internal.ingest.IngestHandler.Answer;
import dev.logpipe.collector.internal.ingest.IngestRun;
import dev.logpipe.collector.internal.ingest.Protocol;
import dev.logpipe.collector.internal.ingest.RecordLines;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;

/**
 * A {@link SyslogBatch} through the ingest pipeline: one record per message ({@link SyslogParser}); a message that
 * is not syslog is dead-lettered with its reason. The answer is only read by the listener (its status: taken,
 * or 429/503 to wait and resend); syslog has no answer on the wire.
 */
final class SyslogProtocol implements Protocol {
    private final Clock clock;

    SyslogProtocol(Clock clock) {
        this.clock = clock;
    }

    @Override
    public boolean textBody() {
        return false;
    }

    @Override
    public String route() {
        return "syslog";
    }

    @Override
    public RecordLines.Opener format() {
        return (in, max, mayHold) -> {
            byte[] batch = WholeBody.read(in, mayHold);
            DataInputStream data = new DataInputStream(new ByteArrayInputStream(batch));
            return new DecodedLines() {
                @Override
                protected boolean advance() throws IOException {
                    int len;
                    try {
                        len = data.readInt();
                    } catch (EOFException e) {
                        return false;
                    }
                    if (len < 0) {
                        tooLong(-(long) len);
                        return true;
                    }
                    byte[] message = data.readNBytes(len);
                    if (len > max) {
                        tooLong(len);
                        return true;
                    }
                    try {
                        emit(SyslogParser.toLine(message, clock.instant()));
                    } catch (IllegalArgumentException e) {
                        refuse(e.getMessage(), message);
                    }
                    return true;
                }

                @Override
                protected long contextBytes() {
                    return batch.length;
                }
            };
        };
    }

    @Override
    public Answer answer(IngestRun.Outcome outcome, int status, String reason, long retryAfterSeconds) {
        return text(status, reason == null ? "taken" : reason, retryAfterSeconds);
    }

    @Override
    public Answer refused(int status, String reason, long retryAfterSeconds, boolean close) {
        return text(status, reason, retryAfterSeconds);
    }

    private static Answer text(int status, String reason, long retryAfterSeconds) {
        return new Answer(status, "text/plain", reason.getBytes(StandardCharsets.UTF_8), retryAfterSeconds, false);
    }
}
