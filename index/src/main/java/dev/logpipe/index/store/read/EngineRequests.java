package dev.logpipe.index.store.read;

import java.util.List;

/**
 * The requests a reading side sent to a remote engine, for its metrics: by the engine's endpoint (OpenSearch's
 * {@code _search}, {@code _msearch}, {@code _mget}, …), how many and the time until each answer was read in full. An
 * embedded engine sends none ({@link #NONE}). Thread-safe.
 */
public interface EngineRequests {
    EngineRequests NONE = new EngineRequests() {
        @Override
        public List<String> endpoints() {
            return List.of();
        }

        @Override
        public long requests(String endpoint) {
            return 0;
        }

        @Override
        public long nanos(String endpoint) {
            return 0;
        }
    };

    /** Every endpoint counted, fixed for the engine (the last one, {@code other}, takes the rest). */
    List<String> endpoints();

    /** Requests sent to the endpoint so far, answered or failed. */
    long requests(String endpoint);

    /** Nanoseconds spent waiting for those requests' answers, in total. */
    long nanos(String endpoint);
}
