package dev.logpipe.forwarder.internal.watermark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** The watermark file's JSON form: {@code {"files":{path:{"offset":N,"inode":N,...}}}} as docs/watermarks-and-restarts.md shows it. */
final class WatermarkCodec {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private WatermarkCodec() {}

    /** Parses the file's content; any deviation from the format is a reason string in the exception. */
    static Map<String, Watermark> decode(byte[] content) throws CorruptException {
        JsonNode root;
        try {
            root = MAPPER.readTree(content);
        } catch (JsonProcessingException e) {
            throw new CorruptException("invalid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new CorruptException("unreadable: " + e.getMessage());
        }
        if (root == null || root.isMissingNode()) {
            throw new CorruptException("the file is empty");
        }
        if (!root.isObject()) {
            throw new CorruptException("the top level must be an object with \"files\"");
        }
        JsonNode files = root.get("files");
        if (files == null || !files.isObject()) {
            throw new CorruptException("\"files\" must be an object mapping paths to {offset, inode}");
        }
        Map<String, Watermark> out = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = files.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), entry(e.getKey(), e.getValue()));
        }
        return out;
    }

    private static Watermark entry(String path, JsonNode n) throws CorruptException {
        if (!n.isObject()) {
            throw new CorruptException("entry " + path + " must be an object");
        }
        long offset = requiredLong(path, n, "offset");
        long inode = requiredLong(path, n, "inode");
        long device = optionalLong(path, n, "device");
        long size = optionalLong(path, n, "size");
        String fingerprint = null;
        int fpBytes = 0;
        JsonNode fp = n.get("fingerprint");
        if (fp != null && !fp.isNull()) {
            if (!fp.isTextual() || !fp.textValue().matches("[0-9a-f]{16}")) {
                throw new CorruptException("entry " + path + ": fingerprint must be 16 hex digits");
            }
            fingerprint = fp.textValue();
            long b = requiredLong(path, n, "fingerprint_bytes");
            if (b > 4096) {
                throw new CorruptException("entry " + path + ": fingerprint_bytes out of range: " + b);
            }
            fpBytes = (int) b;
        }
        return new Watermark(offset, inode, device, fingerprint, fpBytes, size);
    }

    private static long requiredLong(String path, JsonNode n, String key) throws CorruptException {
        JsonNode v = n.get(key);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0) {
            throw new CorruptException("entry " + path + ": \"" + key + "\" must be a non-negative integer");
        }
        return v.longValue();
    }

    private static long optionalLong(String path, JsonNode n, String key) throws CorruptException {
        JsonNode v = n.get(key);
        if (v == null || v.isNull()) {
            return Watermark.UNKNOWN;
        }
        return requiredLong(path, n, key);
    }

    static byte[] encode(Map<String, Watermark> entries) {
        ObjectNode root = MAPPER.createObjectNode();
        ObjectNode files = root.putObject("files");
        for (Map.Entry<String, Watermark> e : new TreeMap<>(entries).entrySet()) {
            Watermark w = e.getValue();
            ObjectNode o = files.putObject(e.getKey());
            o.put("offset", w.offset());
            o.put("inode", w.inode());
            if (w.device() != Watermark.UNKNOWN) {
                o.put("device", w.device());
            }
            if (w.fingerprint() != null) {
                o.put("fingerprint", w.fingerprint());
                o.put("fingerprint_bytes", w.fingerprintBytes());
            }
            if (w.size() != Watermark.UNKNOWN) {
                o.put("size", w.size());
            }
        }
        try {
            return MAPPER.writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new AssertionError("cannot serialize watermarks", e);
        }
    }

    static final class CorruptException extends Exception {
        private static final long serialVersionUID = 1L;

        CorruptException(String reason) {
            super(reason);
        }
    }
}
