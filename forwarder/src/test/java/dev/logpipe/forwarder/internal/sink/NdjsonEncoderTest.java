package dev.logpipe.forwarder.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.forwarder.config.Format;
import dev.logpipe.forwarder.internal.process.Attributes;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.record.RecordId;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NdjsonEncoderTest {
    private final RecordCodec codec = new RecordCodec();

    @Test
    void encodedRecordsAreSchemaV3ThatTheCodecReads() throws Exception {
        RecordId.Scope ids = RecordId.fileScope("host-1", 64768, 42, "00ff");
        Batch batch = new Batch(Format.NDJSON);
        batch.reset(new SourceFile("/var/log/app.log", "host-1", ids, "billing", "64768:42:00ff"), 0);
        byte[] a = "plain \"quoted\" line\t".getBytes(StandardCharsets.UTF_8);
        byte[] b = "ERROR boom".getBytes(StandardCharsets.UTF_8);
        batch.add(a, 0, a.length, 0, a.length + 1, 1, false, null);
        batch.add(
                b,
                0,
                b.length,
                100,
                111,
                1,
                true,
                new Attributes("payments", "err", "t1", null, "eu-west-1", Map.of("env", "prod")));
        String[] lines = new String(batch.wire().toByteArray(), StandardCharsets.UTF_8).split("\n");
        assertThat(batch.wireStart(1)).isEqualTo(lines[0].length() + 1);
        assertThat(batch.wireEnd(1)).isEqualTo(batch.wire().size() - 1);
        assertThat(lines).hasSize(2);

        LogRecord first = codec.decode(lines[0].getBytes(StandardCharsets.UTF_8));
        assertThat(first.schemaVersion()).isEqualTo(3);
        assertThat(first.recordId()).isEqualTo(ids.at(0));
        assertThat(first.message()).isEqualTo("plain \"quoted\" line\t");
        assertThat(first.service()).isEqualTo("billing");
        assertThat(first.instanceId()).isEqualTo("host-1");
        assertThat(first.region()).isNull();
        assertThat(first.fields())
                .containsEntry("log.file.path", "/var/log/app.log")
                .containsEntry("log.offset", 0L);

        LogRecord second = codec.decode(lines[1].getBytes(StandardCharsets.UTF_8));
        assertThat(second.recordId()).isEqualTo(ids.at(100));
        assertThat(second.service()).isEqualTo("payments");
        assertThat(second.level()).isEqualTo(Level.ERROR);
        assertThat(second.traceId()).isEqualTo("t1");
        assertThat(second.region()).isEqualTo("eu-west-1");
        assertThat(second.fields()).doesNotContainKey("region");
        assertThat(second.fields())
                .containsEntry("env", "prod")
                .containsEntry("log.truncated", true)
                .containsEntry("log.offset", 100L);
    }

    @Test
    void rawFormatWritesTheTextAsRead() {
        Batch batch = new Batch(Format.RAW);
        batch.reset(new SourceFile("/f", "h", RecordId.fileScope("h", 1, 1, "x"), null, "1:1:x"), 0);
        byte[] a = "one".getBytes(StandardCharsets.UTF_8);
        batch.add(a, 0, 3, 0, 4, 1, false, null);
        batch.skip(9);
        batch.add(a, 0, 2, 9, 12, 1, false, null);
        assertThat(batch.wire().toByteArray()).isEqualTo("one\non\n".getBytes(StandardCharsets.UTF_8));
        assertThat(batch.commitOffset()).isEqualTo(12);
        assertThat(batch.skipped()).isEqualTo(1);
    }
}
