package dev.logpipe.query.internal.saved;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Objects;

/**
 * One search a tenant saved: its name and the UI's state as the URL fragment carries it ({@code q=...&range=...},
 * without the {@code #}), so opening it shows what was saved: query, range, columns, order, language. The server does
 * not interpret the state; it is the tenant's own text, served back only to the tenant's keys.
 *
 * @param id random, {@link SavedSearches#ID_LENGTH} characters of {@code [a-z2-7]}: the shareable link's handle
 * @param by the credential id of the key that saved (or last changed) it
 */
public record SavedSearch(String id, String name, String state, Instant created, Instant updated, String by) {
    public SavedSearch {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(created, "created");
        Objects.requireNonNull(updated, "updated");
        Objects.requireNonNull(by, "by");
    }

    /** Writes this search's fields into {@code o} (the API's and the stores' shape). */
    public ObjectNode toJson(ObjectNode o) {
        o.put("id", id);
        o.put("name", name);
        o.put("state", state);
        o.put("created", created.toString());
        o.put("updated", updated.toString());
        o.put("by", by);
        return o;
    }

    /**
     * The search {@link #toJson} wrote.
     *
     * @throws IllegalArgumentException a field is missing or not what it must be (the message names it)
     */
    public static SavedSearch fromJson(JsonNode n) {
        return new SavedSearch(
                text(n, "id"),
                text(n, "name"),
                text(n, "state"),
                instant(n, "created"),
                instant(n, "updated"),
                text(n, "by"));
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException(field + ": missing or not a string");
        }
        return v.asText();
    }

    private static Instant instant(JsonNode n, String field) {
        try {
            return Instant.parse(text(n, field));
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException(field + ": not an instant");
        }
    }
}
