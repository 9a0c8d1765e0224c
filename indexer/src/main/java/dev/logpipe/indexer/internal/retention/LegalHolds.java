package dev.logpipe.indexer.internal.retention;

import dev.logpipe.index.opensearch.ClusterDocuments;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The legal holds, audited: a change is stored, then written to the audit log, then answered. Kept in one indexer's
 * file ({@link #inFile}, the Lucene store) or in the OpenSearch cluster all indexers share ({@link #inCluster}), so
 * with several indexers on one cluster a hold placed through any of them keeps the day from every one's retention.
 * When the holds cannot be read (the cluster does not answer), {@link #holding} throws and nothing is deleted.
 * Thread-safe.
 */
public final class LegalHolds {
    private final HoldsStore store;
    private final AuditLog audit;
    private final InstantSource clock;

    private LegalHolds(HoldsStore store, AuditLog audit, InstantSource clock) {
        this.store = store;
        this.audit = audit;
        this.clock = clock;
    }

    /** Holds in {@code file} (made on the first hold); a corrupt file stops startup naming it. */
    public static LegalHolds inFile(Path file, AuditLog audit, InstantSource clock) throws IOException {
        return new LegalHolds(new FileHolds(file), audit, clock);
    }

    /**
     * Holds in the cluster's {@code documents}, shared by every indexer that reaches it. Holds an earlier version kept
     * in this indexer's {@code file} are copied into the cluster first (by id: copying twice changes nothing), and
     * only then is the file renamed to {@code <file>.imported}: no hold is lost by the move, even across a crash.
     */
    public static LegalHolds inCluster(ClusterDocuments documents, Path file, AuditLog audit, InstantSource clock)
            throws IOException {
        ClusterHolds cluster = new ClusterHolds(documents);
        if (java.nio.file.Files.exists(file)) {
            List<LegalHold> local = new FileHolds(file).all();
            for (LegalHold h : local) {
                cluster.add(h);
            }
            java.nio.file.Files.move(
                    file,
                    file.resolveSibling(file.getFileName() + ".imported"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            org.slf4j.LoggerFactory.getLogger(LegalHolds.class)
                    .info(
                            "copied {} legal hold(s) from {} into {} (shared by every indexer); the file is now {}.imported",
                            local.size(),
                            file,
                            documents.index(),
                            file.getFileName());
        }
        return new LegalHolds(cluster, audit, clock);
    }

    public List<LegalHold> list() throws IOException {
        return store.all();
    }

    public synchronized LegalHold add(String tenant, Instant from, Instant to, String reason, String who)
            throws IOException {
        LegalHold hold = new LegalHold(UUID.randomUUID().toString(), tenant, from, to, reason, who, clock.instant());
        store.add(hold);
        audit.append("legal_hold_added", hold::toJson);
        return hold;
    }

    /** Removes a hold; empty when there is none with that id. */
    public synchronized Optional<LegalHold> remove(String id, String who) throws IOException {
        Optional<LegalHold> hold = store.remove(id);
        if (hold.isPresent()) {
            audit.append("legal_hold_removed", o -> {
                hold.get().toJson(o);
                o.put("removed_by", who);
            });
        }
        return hold;
    }

    /**
     * The first hold that covers the tenant's day, if any.
     *
     * @throws IOException the holds cannot be read now: the caller must not delete the day
     */
    public Optional<LegalHold> holding(String tenant, LocalDate day) throws IOException {
        return store.all().stream().filter(h -> h.covers(tenant, day)).findFirst();
    }
}
