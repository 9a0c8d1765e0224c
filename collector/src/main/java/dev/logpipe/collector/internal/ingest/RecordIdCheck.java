package dev.logpipe.collector.internal.ingest;

/**
 * What a client-chosen {@code record_id} may be: 1 to 128 characters of letters, digits and {@code . _ : - /}.
 * It is an idempotency key, a document id and part of a partition key, never free text, so anything else (spaces,
 * quotes, control characters, a pasted token) is refused rather than stored.
 */
final class RecordIdCheck {
    static final int MAX_LENGTH = 128;

    private RecordIdCheck() {}

    /** Null when {@code id} is absent or fine; otherwise the reason it is refused (never quoting it). */
    static String problem(String id) {
        if (id == null || id.isEmpty()) {
            return null;
        }
        if (id.length() > MAX_LENGTH) {
            return "record_id is longer than " + MAX_LENGTH + " characters";
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == ':'
                    || c == '-'
                    || c == '/';
            if (!ok) {
                return "record_id may hold only letters, digits and . _ : - / (character " + (i + 1) + " is not one)";
            }
        }
        return null;
    }
}
