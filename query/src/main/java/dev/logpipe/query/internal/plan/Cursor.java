package dev.logpipe.query.internal.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.store.read.After;
import dev.logpipe.index.store.read.ShardSearcher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * An opaque, tamper-evident page cursor: the merge key of the last hit (search-after), the resolved range (so a
 * relative {@code from=now-15m} pages over one fixed window) and the order, signed with HMAC-SHA256 over the payload
 * and the binding (tenant, query text, range parameters, order, endpoint). A cursor that was edited, or that belongs
 * to another tenant or query, is refused.
 */
public record Cursor(TimeRange range, ShardSearcher.Order order, After after) {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_CHARS = 2048;

    /** The request a cursor is bound to. */
    public record Binding(
            String endpoint, String tenant, String query, String from, String to, ShardSearcher.Order order) {
        byte[] bytes() {
            StringBuilder b = new StringBuilder();
            for (String s : new String[] {endpoint, tenant, query, from, to, order.name()}) {
                String v = s == null ? "\u0000null" : s;
                b.append(v.length()).append(':').append(v).append('|');
            }
            return b.toString().getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Signs cursors with one key. Thread-safe. */
    public static final class Codec {
        private final byte[] key;

        public Codec(byte[] key) {
            this.key = key.clone();
        }

        public String encode(Cursor c, Binding binding) {
            ObjectNode o = JSON.createObjectNode();
            o.put("v", 1);
            o.put("f", c.range().fromMillis());
            o.put("t", c.range().toMillis());
            o.put("o", c.order() == ShardSearcher.Order.NEWEST_FIRST ? "d" : "a");
            o.put("k", c.after().eventTimeMillis());
            o.put("i", c.after().recordId());
            byte[] payload = o.toString().getBytes(StandardCharsets.UTF_8);
            Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
            return b64.encodeToString(payload) + "." + b64.encodeToString(mac(payload, binding));
        }

        /** @throws IllegalArgumentException the cursor is malformed, edited, or bound to another request */
        public Cursor decode(String text, Binding binding) {
            if (text.length() > MAX_CHARS) {
                throw new IllegalArgumentException("cursor: is longer than " + MAX_CHARS + " characters");
            }
            int dot = text.indexOf('.');
            if (dot <= 0 || dot != text.lastIndexOf('.')) {
                throw new IllegalArgumentException("cursor: is not a cursor this service handed out");
            }
            byte[] payload;
            byte[] sig;
            try {
                payload = Base64.getUrlDecoder().decode(text.substring(0, dot));
                sig = Base64.getUrlDecoder().decode(text.substring(dot + 1));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("cursor: is not a cursor this service handed out");
            }
            if (!MessageDigest.isEqual(sig, mac(payload, binding))) {
                throw new IllegalArgumentException("cursor: was altered, or belongs to another tenant, query, range or "
                        + "order (start again without a cursor)");
            }
            try {
                JsonNode o = JSON.readTree(payload);
                if (o.path("v").asInt() != 1
                        || !o.path("f").isIntegralNumber()
                        || !o.path("t").isIntegralNumber()
                        || !o.path("k").isIntegralNumber()
                        || !o.path("i").isTextual()) {
                    throw new IllegalArgumentException("bad fields");
                }
                ShardSearcher.Order order = switch (o.path("o").asText()) {
                    case "d" -> ShardSearcher.Order.NEWEST_FIRST;
                    case "a" -> ShardSearcher.Order.OLDEST_FIRST;
                    default -> throw new IllegalArgumentException("bad order");
                };
                return new Cursor(
                        new TimeRange(o.path("f").asLong(), o.path("t").asLong()),
                        order,
                        new After(o.path("k").asLong(), o.path("i").asText()));
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("cursor: is not a cursor this service handed out");
            }
        }

        private byte[] mac(byte[] payload, Binding binding) {
            try {
                Mac m = Mac.getInstance("HmacSHA256");
                m.init(new SecretKeySpec(key, "HmacSHA256"));
                m.update(binding.bytes());
                m.update((byte) 0);
                return m.doFinal(payload);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every JVM has HmacSHA256", e);
            }
        }
    }
}
