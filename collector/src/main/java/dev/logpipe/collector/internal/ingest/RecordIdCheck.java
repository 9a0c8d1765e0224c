package dev.logpipe.collector.internal.ingest;

import dev.logpipe.record.RecordId;

/**
 * What a client-chosen {@code record_id} may be: {@link RecordId#problem}, the one rule the indexer applies too. It is
 * an idempotency key, a document id, part of a partition key and a URL segment, never free text, so anything else
 * (spaces, quotes, control characters, a pasted token, a {@code /}, {@code ..}) is refused rather than stored.
 */
final class RecordIdCheck {
    private RecordIdCheck() {}

    /** Null when {@code id} is absent or fine; otherwise the reason it is refused (never quoting it). */
    static String problem(String id) {
        return RecordId.problem(id);
    }
}
