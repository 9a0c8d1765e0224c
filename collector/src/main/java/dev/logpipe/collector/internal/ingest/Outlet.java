package dev.logpipe.collector.internal.ingest;

/**
 * Where one request's output goes (the Kafka publisher, or a list in tests). {@link #record} and
 * {@link #deadLetter} hand a message over and return once its bytes are copied (the caller may reuse nothing it
 * passed, but need not keep it); {@link #await} returns only once everything handed over is committed.
 */
public interface Outlet {
    /** The destination did not commit everything; nothing of the request is claimed. */
    final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * {@code value}: {@code records} schema-v3 records of {@code tenant} as NDJSON, all with partition key {@code key}.
     */
    void record(String tenant, String key, byte[] value, int records) throws Unavailable;

    /** One dead letter (JSON), keyed by its tenant. */
    void deadLetter(String tenant, byte[] value) throws Unavailable;

    void await() throws Unavailable;
}
