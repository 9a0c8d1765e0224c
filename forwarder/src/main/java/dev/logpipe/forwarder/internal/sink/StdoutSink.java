package dev.logpipe.forwarder.internal.sink;

import dev.logpipe.forwarder.config.Format;
import dev.logpipe.record.JsonBuffer;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/** Writes records to standard output (logs go to standard error). A batch is acknowledged once flushed. */
public final class StdoutSink implements Sink {
    private final Format format;
    private final OutputStream stdout;

    public StdoutSink(Format format) {
        this(format, new FileOutputStream(FileDescriptor.out));
    }

    StdoutSink(Format format, OutputStream stdout) {
        this.format = format;
        this.stdout = stdout;
    }

    @Override
    public void publish(Batch batch) throws IOException {
        JsonBuffer out = batch.wire();
        stdout.write(out.array(), 0, out.size());
        stdout.flush();
    }

    @Override
    public Format format() {
        return format;
    }

    @Override
    public String describe() {
        return "stdout";
    }

    @Override
    public void close() throws IOException {
        stdout.flush();
    }
}
