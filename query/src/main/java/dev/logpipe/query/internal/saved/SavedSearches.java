package dev.logpipe.query.internal.saved;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.opensearch.OpenSearchSettings;
import dev.logpipe.query.internal.http.Refusal;
import dev.logpipe.role.http.Answer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code /api/v1/saved-searches} (docs/query.md#saved-searches): a tenant's saved searches, kept server-side with the
 * tenant's data and shareable by link among the tenant's users. {@code GET} lists them (by name) or answers one by
 * id; {@code POST} saves a new one ({@code {"name":..,"state":..}}, 201; a name the tenant already uses is a 409
 * naming the search that has it); {@code PUT /{id}} replaces one; {@code DELETE /{id}} removes one. Bounded: at most
 * {@link #MAX_PER_TENANT} per tenant, names of {@link #MAX_NAME_CHARS} characters, states of {@link #MAX_STATE_CHARS},
 * bodies of {@link #MAX_BODY_BYTES}. A tenant's key only ever reaches that tenant's searches: another tenant's id is a
 * 404 like an id that never was. Thread-safe.
 */
public final class SavedSearches {
    public static final int MAX_PER_TENANT = 100;
    public static final int MAX_NAME_CHARS = 100;
    public static final int MAX_STATE_CHARS = 8 * 1024;
    public static final int MAX_BODY_BYTES = 16 * 1024;
    static final int ID_LENGTH = 16;
    private static final String ID_CHARS = "abcdefghijklmnopqrstuvwxyz234567";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SavedSearchStore store;
    private final InstantSource clock;
    private final SecureRandom random = new SecureRandom();
    /** One lock per tenant, so the cap and the unique names hold against a tenant's concurrent saves. */
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    SavedSearches(SavedSearchStore store, InstantSource clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Kept in the cluster with {@code store: opensearch}, else under {@code dataDir/saved-searches}. */
    public static SavedSearches open(Optional<OpenSearchSettings> opensearch, Path dataDir, InstantSource clock) {
        SavedSearchStore store = opensearch
                .<SavedSearchStore>map(ClusterSavedSearches::new)
                .orElseGet(() -> new FileSavedSearches(dataDir.resolve("saved-searches")));
        return new SavedSearches(store, clock);
    }

    static boolean isId(String id) {
        if (id == null || id.length() != ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            if (ID_CHARS.indexOf(id.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }

    /** Who asks: the key's tenant (the only scope) and id, and the request's audit line. */
    public record Caller(String tenant, String credentialId, ObjectNode audit) {}

    /**
     * Answers one request; {@code rest} is the path after {@code /api/v1/saved-searches}, {@code body} is read only by
     * POST and PUT.
     */
    public Answer handle(String method, String rest, Caller call, Callable<InputStream> body) throws Exception {
        String id = rest.isEmpty() ? null : rest.substring(1);
        if (id != null && (!rest.startsWith("/") || !isId(id))) {
            throw notFound();
        }
        call.audit().put("action", method);
        if (id != null) {
            call.audit().put("saved_search", id);
        }
        return switch (method) {
            case "GET" -> id == null ? list(call.tenant()) : Answer.ok(json(get(call.tenant(), id)));
            case "POST" -> {
                if (id != null) {
                    throw new Refusal(
                            405,
                            "method_not_allowed",
                            "POST saves a new search: send it to "
                                    + "/api/v1/saved-searches; PUT /api/v1/saved-searches/{id} replaces one");
                }
                yield create(call, read(body));
            }
            case "PUT" -> {
                if (id == null) {
                    throw new Refusal(405, "method_not_allowed", "PUT needs the id: /api/v1/saved-searches/{id}");
                }
                yield replace(call, id, read(body));
            }
            case "DELETE" -> {
                if (id == null) {
                    throw new Refusal(405, "method_not_allowed", "DELETE needs the id: /api/v1/saved-searches/{id}");
                }
                if (!store.delete(call.tenant(), id)) {
                    throw notFound();
                }
                yield Answer.ok(JSON.createObjectNode().put("deleted", id).toString());
            }
            default -> throw new Refusal(405, "method_not_allowed", "saved searches take GET, POST, PUT and DELETE");
        };
    }

    private Answer list(String tenant) throws IOException {
        List<SavedSearch> all = store.list(tenant);
        ObjectNode o = JSON.createObjectNode();
        ArrayNode a = o.putArray("saved_searches");
        all.stream()
                .sorted(Comparator.comparing((SavedSearch s) -> s.name().toLowerCase(java.util.Locale.ROOT))
                        .thenComparing(SavedSearch::id))
                .forEach(s -> s.toJson(a.addObject()));
        o.put("max", MAX_PER_TENANT);
        return Answer.ok(o.toString());
    }

    private SavedSearch get(String tenant, String id) throws IOException {
        return store.get(tenant, id).orElseThrow(SavedSearches::notFound);
    }

    private Answer create(Caller call, Fields f) throws IOException {
        String tenant = call.tenant();
        synchronized (lock(tenant)) {
            List<SavedSearch> all = store.list(tenant);
            refuseTakenName(all, f.name(), null);
            if (all.size() >= MAX_PER_TENANT) {
                throw new Refusal(
                        409,
                        "saved_searches_full",
                        "this tenant has " + MAX_PER_TENANT
                                + " saved searches, as many as it may keep; delete one first");
            }
            var now = clock.instant();
            SavedSearch s = new SavedSearch(newId(), f.name(), f.state(), now, now, call.credentialId());
            store.put(tenant, s);
            call.audit().put("saved_search", s.id());
            return new Answer(201, json(s), Map.of());
        }
    }

    private Answer replace(Caller call, String id, Fields f) throws IOException {
        String tenant = call.tenant();
        synchronized (lock(tenant)) {
            List<SavedSearch> all = store.list(tenant);
            SavedSearch old =
                    all.stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow(SavedSearches::notFound);
            refuseTakenName(all, f.name(), id);
            SavedSearch s =
                    new SavedSearch(id, f.name(), f.state(), old.created(), clock.instant(), call.credentialId());
            store.put(tenant, s);
            return Answer.ok(json(s));
        }
    }

    private static void refuseTakenName(List<SavedSearch> all, String name, String except) {
        for (SavedSearch s : all) {
            if (s.name().equalsIgnoreCase(name) && !s.id().equals(except)) {
                ObjectNode extra = JSON.createObjectNode().put("id", s.id());
                throw new Refusal(
                        409,
                        "saved_search_name_taken",
                        "a saved search is already named \"" + s.name() + "\"; replace it (PUT /api/v1/saved-searches/"
                                + s.id() + ") or pick another name",
                        extra);
            }
        }
    }

    private Object lock(String tenant) {
        return locks.computeIfAbsent(tenant, t -> new Object());
    }

    private String newId() {
        char[] c = new char[ID_LENGTH];
        for (int i = 0; i < c.length; i++) {
            c[i] = ID_CHARS.charAt(random.nextInt(ID_CHARS.length()));
        }
        return new String(c);
    }

    private static String json(SavedSearch s) {
        return s.toJson(JSON.createObjectNode()).toString();
    }

    private static Refusal notFound() {
        return new Refusal(404, "no_such_saved_search", "no saved search of this tenant has that id");
    }

    /** What a POST or PUT sends. */
    record Fields(String name, String state) {}

    static Fields read(Callable<InputStream> body) throws Exception {
        byte[] bytes;
        try (InputStream in = body.call()) {
            bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        }
        if (bytes.length > MAX_BODY_BYTES) {
            throw new Refusal(
                    413, "body_too_large", "a saved search's body may hold at most " + MAX_BODY_BYTES + " bytes");
        }
        JsonNode n;
        try {
            n = JSON.readTree(bytes);
        } catch (IOException e) {
            throw bad("the body is not JSON: send {\"name\":\"...\",\"state\":\"q=...&range=...\"}");
        }
        if (n == null || !n.isObject()) {
            throw bad("the body must be a JSON object {\"name\":\"...\",\"state\":\"...\"}");
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals("name") && !k.equals("state")) {
                throw bad(k + ": unknown key (a saved search has name and state)");
            }
        }
        String name = text(n, "name").strip();
        if (name.isEmpty() || name.length() > MAX_NAME_CHARS) {
            throw bad("name: must be 1 to " + MAX_NAME_CHARS + " characters");
        }
        if (name.chars().anyMatch(Character::isISOControl)) {
            throw bad("name: must not hold control characters");
        }
        String state = text(n, "state");
        if (state.startsWith("#")) {
            state = state.substring(1);
        }
        if (state.length() > MAX_STATE_CHARS) {
            throw bad("state: must be at most " + MAX_STATE_CHARS + " characters");
        }
        if (state.chars().anyMatch(Character::isISOControl)) {
            throw bad("state: must not hold control characters (it is a URL fragment, percent-encoded)");
        }
        return new Fields(name, state);
    }

    private static String text(JsonNode n, String key) {
        JsonNode v = n.get(key);
        if (v == null || !v.isTextual()) {
            throw bad(key + ": required, a string");
        }
        return v.asText();
    }

    private static Refusal bad(String message) {
        return new Refusal(400, "bad_saved_search", message);
    }
}
