package dev.logpipe.indexer.internal.retention;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Objects;

/** A legal hold: the tenant's shards overlapping [{@code from}, {@code to}) are kept past retention. */
public record LegalHold(
        String id, String tenant, Instant from, Instant to, String reason, String who, Instant created) {
    public LegalHold {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (!to.isAfter(from)) {
            throw new IllegalArgumentException("to: must be after from (" + from + "), was " + to);
        }
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("reason: is required");
        }
        if (who == null || who.isBlank()) {
            throw new IllegalArgumentException("who: is required");
        }
    }

    /** The hold as stored (file or cluster) and audited. */
    void toJson(com.fasterxml.jackson.databind.node.ObjectNode o) {
        o.put("id", id);
        o.put("tenant_id", tenant);
        o.put("from", from.toString());
        o.put("to", to.toString());
        o.put("reason", reason);
        o.put("who", who);
        o.put("created", created.toString());
    }

    /**
     * A hold as {@link #toJson} stores it.
     *
     * @throws RuntimeException a field is missing or unreadable
     */
    static LegalHold fromJson(com.fasterxml.jackson.databind.JsonNode h) {
        return new LegalHold(
                h.get("id").asText(),
                h.get("tenant_id").asText(),
                Instant.parse(h.get("from").asText()),
                Instant.parse(h.get("to").asText()),
                h.get("reason").asText(),
                h.get("who").asText(),
                Instant.parse(h.get("created").asText()));
    }

    /** True when the hold covers any instant of the UTC day. */
    public boolean covers(String tenantId, LocalDate day) {
        Instant start = day.atStartOfDay().toInstant(ZoneOffset.UTC);
        Instant end = day.plusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC);
        return tenant.equals(tenantId) && from.isBefore(end) && to.isAfter(start);
    }
}
