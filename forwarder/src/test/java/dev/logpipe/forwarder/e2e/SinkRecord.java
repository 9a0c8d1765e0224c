package dev.logpipe.forwarder.e2e;

import com.fasterxml.jackson.databind.JsonNode;

/** One record as the file sink wrote it (NDJSON, schema v3), reduced to what the tests check. */
record SinkRecord(String recordId, String message, String path, long offset, boolean truncated) {

    static SinkRecord of(JsonNode n) {
        JsonNode fields = n.required("fields");
        return new SinkRecord(
                n.required("record_id").textValue(),
                n.required("message").textValue(),
                fields.required("log.file.path").textValue(),
                fields.required("log.offset").longValue(),
                fields.path("log.truncated").asBoolean(false));
    }
}
