package dev.logpipe.forwarder.internal.process;

import java.util.Map;

/** What transforms add to a record: top-level schema fields (null when unset) and structured fields. */
public record Attributes(
        String service, String level, String traceId, String spanId, String region, Map<String, String> fields) {
    public static final Attributes NONE = new Attributes(null, null, null, null, null, Map.of());

    public Attributes {
        fields = Map.copyOf(fields);
    }
}
