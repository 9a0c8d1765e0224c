package dev.logpipe.forwarder.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.logpipe.testkit.NdjsonTail;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A kill -9 can land in the middle of the file sink's write of a batch (the kernel stops a write to a regular
 * file between pages when SIGKILL is pending), leaving a torn last record. Nothing of that batch was
 * acknowledged, so the watermark re-reads it; the next run must not glue new records onto the fragment.
 */
class FileSinkRecoveryTest extends WorkspaceTest {
    @Override
    protected boolean metrics() {
        return false;
    }

    @Test
    void tornLastRecordOfACrashedRunIsCutOffBeforeNewRecordsAreAppended() throws IOException {
        String complete = "{\"schema_version\":3,\"record_id\":\"00000000000000000000000000000001\","
                + "\"message\":\"from an earlier run\",\"fields\":{\"log.file.path\":\"/x\",\"log.offset\":0}}\n";
        String torn = "{\"schema_version\":3,\"record_id\":\"0000000000000000000000000000";
        Files.createDirectories(ws.sinkFile().getParent());
        Files.writeString(ws.sinkFile(), complete + torn);
        ws.logFile("app.log").lines(Lines.numbered(1, 3));

        ForwarderProcess p = ws.startAndAwait();
        p.awaitLog("file sink " + ws.sinkFile() + " ended in an incomplete record");
        ws.delivered().awaitAtLeast(4);
        p.stop();

        List<JsonNode> records = NdjsonTail.readAll(ws.sinkFile()); // fails on any torn or glued line
        assertThat(records)
                .extracting(n -> n.get("message").textValue())
                .containsExactly("from an earlier run", Lines.numbered(1), Lines.numbered(2), Lines.numbered(3));
    }
}
