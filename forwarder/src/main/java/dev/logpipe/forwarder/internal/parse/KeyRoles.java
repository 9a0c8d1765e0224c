package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Which (flattened) key of a JSON or logfmt line feeds which schema field ({@code parser.keys}). */
final class KeyRoles {
    enum Role {
        MESSAGE,
        LEVEL,
        TIME,
        TRACE_ID,
        SPAN_ID,
        SERVICE,
        REGION
    }

    private final Map<String, Role> roles = new HashMap<>();

    /** @param timeKey {@code transform.event_time.field} when set: it replaces the mapping's time keys */
    KeyRoles(KeyMapping keys, String timeKey) {
        put(keys.message(), Role.MESSAGE);
        put(keys.level(), Role.LEVEL);
        put(timeKey != null ? List.of(timeKey) : keys.time(), Role.TIME);
        put(keys.traceId(), Role.TRACE_ID);
        put(keys.spanId(), Role.SPAN_ID);
        put(keys.service(), Role.SERVICE);
        put(keys.region(), Role.REGION);
    }

    private void put(List<String> names, Role role) {
        for (String n : names) {
            roles.putIfAbsent(n, role);
        }
    }

    Role of(String name) {
        return roles.get(name);
    }

    Map<String, Role> all() {
        return Map.copyOf(roles);
    }
}
