package dev.logpipe.collector.internal.compat.bulk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.collector.internal.ingest.BodyException;
import dev.logpipe.collector.internal.ingest.LineReader;
import dev.logpipe.collector.internal.ingest.RecordLines;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * An Elasticsearch {@code _bulk} body (NDJSON of action/metadata lines, each {@code index} or {@code create}
 * followed by its document) as one record per action, read line by line with the native {@link LineReader} (so no
 * line is held beyond {@code max_record_bytes}). {@code delete} and {@code update} are refused per item (records are
 * immutable); a malformed action line or an action without its document stops the body with a 400, as
 * Elasticsearch does. Each item's action, index and id are kept for the answer ({@link BulkItems}).
 */
final class BulkLines implements RecordLines {
    /** A document's tree holds up to this many times its length (Jackson nodes), besides the line itself. */
    static final int TREE_FACTOR = 32;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final LineReader lines;
    private final String defaultIndex;
    private final LongPredicate mayHold;
    private final BulkItems items;
    private byte[] out = new byte[0];
    private int outLen;
    private long tooLong;
    private String refused;

    BulkLines(InputStream in, int maxRecordBytes, LongPredicate mayHold, String defaultIndex, BulkItems items) {
        this.lines = new LineReader(
                in, maxRecordBytes, capacity -> mayHold.test(LineReader.CHUNK + capacity + items.heldBytes()));
        this.defaultIndex = defaultIndex;
        this.mayHold = mayHold;
        this.items = items;
    }

    @Override
    public boolean next() throws IOException {
        tooLong = 0;
        refused = null;
        outLen = 0;
        if (!nonBlank()) {
            return false;
        }
        int actionLine = lines.number();
        if (lines.tooLong() > 0) {
            throw malformed(actionLine, "the action line is longer than limits.max_record_bytes");
        }
        Map.Entry<String, JsonNode> action = action(actionLine);
        String type = action.getKey();
        JsonNode meta = action.getValue();
        String index = meta.hasNonNull("_index") ? meta.get("_index").asText() : defaultIndex;
        String id = meta.hasNonNull("_id") ? meta.get("_id").asText() : null;
        switch (type) {
            case "index", "create", "update" -> {
                if (!lines.next()) {
                    throw malformed(actionLine, "the " + type + " action has no document line after it");
                }
                items.add(type, index, id);
                if ("update".equals(type)) {
                    refuse("update is not supported: logpipe records are immutable", lines);
                } else if (index == null || index.isEmpty()) {
                    refuse("the action names no _index (and the URL no /{index}/_bulk)", lines);
                } else if (lines.tooLong() > 0) {
                    tooLong = lines.tooLong();
                } else {
                    document(index, id);
                }
            }
            case "delete" -> {
                items.add(type, index, id);
                refuse("delete is not supported: logpipe records are immutable (retention removes them)", lines);
            }
            default ->
                throw malformed(
                        actionLine, "unknown action [" + type + "], expected index, create, " + "delete or update");
        }
        return true;
    }

    private boolean nonBlank() throws IOException {
        while (lines.next()) {
            if (lines.tooLong() > 0 || !blank(lines.array(), lines.offset(), lines.length())) {
                return true;
            }
        }
        return false;
    }

    private Map.Entry<String, JsonNode> action(int line) throws BodyException {
        JsonNode n;
        try {
            n = JSON.readTree(lines.array(), lines.offset(), lines.length());
        } catch (IOException e) {
            throw malformed(line, "the action line is not JSON: " + firstLine(e));
        }
        if (!(n instanceof ObjectNode o)
                || o.size() != 1
                || !o.elements().next().isObject()) {
            throw malformed(line, "expected one action {\"index\"|\"create\"|\"delete\"|\"update\": {...}}");
        }
        return o.fields().next();
    }

    private void document(String index, String id) throws IOException {
        int len = lines.length();
        if (!mayHold.test(LineReader.CHUNK + lines.heldBytes() + items.heldBytes() + (long) TREE_FACTOR * len * 2)) {
            throw new BodyException(503, "the collector is at its in-flight bound (limits.in_flight_bytes)");
        }
        JsonNode doc;
        try {
            doc = JSON.readTree(lines.array(), lines.offset(), len);
        } catch (JsonProcessingException e) {
            refuse("the document is not valid JSON: " + firstLine(e), lines);
            return;
        }
        if (!(doc instanceof ObjectNode o)) {
            refuse("the document is not a JSON object", lines);
            return;
        }
        try {
            set(EcsMapping.toLine(o, index, id));
        } catch (IllegalArgumentException e) {
            refuse(e.getMessage(), lines);
        }
    }

    private void refuse(String reason, LineReader raw) {
        refused = reason;
        set(Arrays.copyOfRange(raw.array(), raw.offset(), raw.offset() + raw.length()));
    }

    private void set(byte[] line) {
        out = line;
        outLen = line.length;
    }

    private static BodyException malformed(int line, String why) {
        return new BodyException(400, "malformed _bulk body at line " + line + ": " + why);
    }

    private static String firstLine(Exception e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static boolean blank(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            if (b[i] != ' ' && b[i] != '\t') {
                return false;
            }
        }
        return true;
    }

    @Override
    public byte[] array() {
        return out;
    }

    @Override
    public int offset() {
        return 0;
    }

    @Override
    public int length() {
        return outLen;
    }

    @Override
    public long tooLong() {
        return tooLong;
    }

    @Override
    public String refused() {
        return refused;
    }

    @Override
    public int number() {
        return items.size();
    }

    @Override
    public long heldBytes() {
        return lines.heldBytes() + items.heldBytes() + out.length;
    }
}
