package dev.logpipe.indexer.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.archive.tier.CatalogEntry;
import dev.logpipe.archive.tier.HotRestore;
import dev.logpipe.archive.tier.KeptHot;
import dev.logpipe.auth.AuthFailures;
import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.TenantDirectory;
import dev.logpipe.role.http.Answer;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The archive tier's admin API (docs/archive.md#admin-api-and-cli), behind the admin key ({@link AdminGate}):
 * {@code GET /api/v1/admin/archives[?tenant_id=T][&limit=N]} lists archived days (the oldest {@code limit}, default
 * 1,000, at most 10,000; {@code total} and {@code truncated} say how many there are), days kept hot, and the work asked
 * and not done; {@code POST /api/v1/admin/archives} with {@code {"tenant_id":T,"day":"2026-11-20"}} archives a closed hot day
 * now (202); {@code POST /api/v1/admin/archives/restore} with {@code {"tenant_id":T,"day":D,"keep_hot_days":7}}
 * restores an archived day into the hot tier (202). 404 when the indexer runs no archive tier.
 */
public final class ArchivesHandler {
    static final String PATH = "/api/v1/admin/archives";
    private static final String RESTORE = PATH + "/restore";
    private static final int MAX_BODY = 4096;
    private static final int DEFAULT_KEEP_DAYS = 7;
    private static final int MAX_KEEP_DAYS = 3650;
    /** Archived days one listing shows at most by default, and at most with {@code limit}: the answer's memory. */
    private static final int DEFAULT_LIST = 1000;

    private static final int MAX_LIST = 10_000;

    private final Optional<ArchiveAdmin> tier;
    private final AdminGate gate;

    /** @param failures the failed-authentication limit, shared with the other APIs of the port */
    public ArchivesHandler(Optional<ArchiveAdmin> tier, List<String> keyHashes, AuthFailures failures) {
        this.tier = tier;
        this.gate = new AdminGate(keyHashes, failures);
    }

    static boolean serves(String path) {
        return path.equals(PATH) || path.startsWith(PATH + "/");
    }

    /**
     * @param query          the request's query string (null: none)
     * @param authorizations every {@code Authorization} header value of the request (two are refused)
     * @param remoteAddress  the client address, whose failed authentications are limited
     */
    public Answer handle(
            String method,
            String path,
            String query,
            List<String> authorizations,
            String remoteAddress,
            Callable<InputStream> body)
            throws Exception {
        AdminGate.Admitted admitted = gate.admit(authorizations, remoteAddress);
        if (admitted.refused() != null) {
            return admitted.refused();
        }
        if (tier.isEmpty()) {
            return AdminGate.error(404, "this indexer runs no archive tier (no archive section in its configuration)");
        }
        if (path.equals(PATH)) {
            return switch (method) {
                case "GET" -> list(query);
                case "POST" -> archiveNow(body, admitted.who());
                default -> AdminGate.error(405, "use GET or POST");
            };
        }
        if (path.equals(RESTORE)) {
            return method.equals("POST") ? restore(body, admitted.who()) : AdminGate.error(405, "use POST");
        }
        return AdminGate.error(404, "no such archive route: " + path);
    }

    private Answer list(String query) {
        Optional<String> tenant = Optional.empty();
        int limit = DEFAULT_LIST;
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith("limit=")) {
                    try {
                        limit = Integer.parseInt(pair.substring("limit=".length()));
                    } catch (NumberFormatException e) {
                        limit = -1;
                    }
                    if (limit < 1 || limit > MAX_LIST) {
                        return AdminGate.error(400, "limit must be a whole number from 1 to " + MAX_LIST);
                    }
                }
                if (pair.startsWith("tenant_id=")) {
                    String t = java.net.URLDecoder.decode(
                            pair.substring("tenant_id=".length()), java.nio.charset.StandardCharsets.UTF_8);
                    String problem = TenantDirectory.problem(t);
                    if (problem != null) {
                        return AdminGate.error(400, "tenant_id " + problem);
                    }
                    tenant = Optional.of(t);
                }
            }
        }
        ArchiveAdmin.Listing l = tier.get().list(tenant);
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode archives = root.putArray("archives");
        root.put("total", l.archives().size());
        root.put("truncated", l.archives().size() > limit); // the oldest first; narrow by tenant_id or raise limit
        for (CatalogEntry e :
                l.archives().subList(0, Math.min(limit, l.archives().size()))) {
            archives.addObject()
                    .put("tenant_id", e.tenant())
                    .put("day", e.day().toString())
                    .put("generation", e.generation())
                    .put("key", e.key())
                    .put("records", e.records())
                    .put("bytes", e.bytes())
                    .put("source_bytes", e.sourceBytes())
                    .put(
                            "min_event_time",
                            Instant.ofEpochMilli(e.minEventTimeMillis()).toString())
                    .put(
                            "max_event_time",
                            Instant.ofEpochMilli(e.maxEventTimeMillis()).toString())
                    .put("archived_at", e.archivedAt().toString())
                    .put("hot_delete_pending", e.coveredHot() != null);
        }
        ArrayNode kept = root.putArray("kept_hot");
        for (KeptHot k : l.keptHot()) {
            kept.addObject()
                    .put("tenant_id", k.tenant())
                    .put("day", k.day().toString())
                    .put("until", k.until().toString());
        }
        ArrayNode asked = root.putArray("archive_requested");
        l.archiveRequested().stream()
                .sorted()
                .forEach(d -> asked.addObject()
                        .put("tenant_id", d.tenant())
                        .put("day", d.day().toString()));
        ArrayNode restoring = root.putArray("restoring");
        for (HotRestore.Progress p : l.restoring()) {
            restoring
                    .addObject()
                    .put("tenant_id", p.day().tenant())
                    .put("day", p.day().day().toString())
                    .put("phase", p.phase())
                    .put("records_written", p.written());
        }
        return Answer.json(200, root.toString());
    }

    /** The tenant and day a POST names, or the answer that refuses it. */
    private record Target(ShardId day, JsonNode body, Answer refused) {}

    private static Target target(Callable<InputStream> body, String expected) throws Exception {
        AdminGate.Body read = AdminGate.jsonObject(body, MAX_BODY, expected);
        if (read.refused() != null) {
            return new Target(null, null, read.refused());
        }
        JsonNode o = read.object();
        String tenant = o.path("tenant_id").asText(null);
        String problem = TenantDirectory.problem(tenant);
        if (problem != null) {
            return new Target(null, o, AdminGate.error(400, "tenant_id " + problem));
        }
        try {
            return new Target(
                    ShardId.records(tenant, LocalDate.parse(o.path("day").asText(""))), o, null);
        } catch (DateTimeParseException e) {
            return new Target(null, o, AdminGate.error(400, "day must be a UTC date like 2026-11-20"));
        }
    }

    private Answer archiveNow(Callable<InputStream> body, String who) throws Exception {
        Target t = target(body, "tenant_id and day");
        if (t.refused() != null) {
            return t.refused();
        }
        try {
            boolean asked = tier.get().archiveNow(t.day().tenant(), t.day().day(), who);
            return Answer.json(
                    202,
                    JsonNodeFactory.instance
                            .objectNode()
                            .put("tenant_id", t.day().tenant())
                            .put("day", t.day().day().toString())
                            .put("status", asked ? "archive requested" : "archive already requested")
                            .toString());
        } catch (NoSuchElementException e) {
            return AdminGate.error(404, e.getMessage());
        } catch (IllegalStateException e) {
            return AdminGate.error(409, e.getMessage());
        }
    }

    private Answer restore(Callable<InputStream> body, String who) throws Exception {
        Target t = target(body, "tenant_id, day and keep_hot_days");
        if (t.refused() != null) {
            return t.refused();
        }
        JsonNode keep = t.body().path("keep_hot_days");
        int days = keep.isMissingNode() ? DEFAULT_KEEP_DAYS : keep.asInt(-1);
        if (!keep.isMissingNode() && !keep.isIntegralNumber() || days < 1 || days > MAX_KEEP_DAYS) {
            return AdminGate.error(400, "keep_hot_days must be a whole number from 1 to " + MAX_KEEP_DAYS);
        }
        try {
            KeptHot kept = tier.get().restore(t.day().tenant(), t.day().day(), Duration.ofDays(days), who);
            return Answer.json(
                    202,
                    JsonNodeFactory.instance
                            .objectNode()
                            .put("tenant_id", kept.tenant())
                            .put("day", kept.day().toString())
                            .put("kept_hot_until", kept.until().toString())
                            .put("status", "restore requested")
                            .toString());
        } catch (NoSuchElementException e) {
            return AdminGate.error(404, e.getMessage());
        } catch (IllegalStateException e) {
            return AdminGate.error(409, e.getMessage());
        }
    }
}
