package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * Reading a {@code _bulk} answer cheaply: the request asks OpenSearch for only the {@code errors} flag and each item's
 * status and error ({@link #PATH}'s {@code filter_path}; every item keeps its status, so positions still match the
 * body's), and an answer is read token by token only up to its {@code errors} flag; only an answer with errors is read
 * whole. (Read whole, an answer of 16,000 items cost the indexer as much as encoding a tenth of them.)
 */
final class BulkAnswers {
    /** The bulk endpoint, answering each item's status and error only. */
    static final String PATH = "/_bulk?filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason";

    private static final JsonFactory JSON = new JsonFactory();

    private BulkAnswers() {}

    /**
     * Whether the answer says some item failed: its top-level {@code errors} flag, read without the items before it is
     * found; an answer without the flag counts as having errors, so it is read whole.
     *
     * @throws IOException the answer is not JSON
     */
    static boolean anyErrors(byte[] answer) throws IOException {
        try (JsonParser p = JSON.createParser(answer)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return true;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if ("errors".equals(name)) {
                    return value != JsonToken.VALUE_FALSE;
                }
                p.skipChildren();
            }
            return true;
        }
    }
}
