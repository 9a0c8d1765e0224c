package dev.logpipe.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Before anything is timed, both sides must give the same answer to each question: the same hit ids in the same
 * order (searches), the same total (histogram), the same values and counts (top values). A difference stops the
 * benchmark: a ratio between two different answers means nothing.
 */
final class SideBySideChecks {
    /** One HTTP exchange: a URI (logpipe) or a search body (OpenSearch) to the answer's body. */
    interface Ask {
        String apply(String request) throws Exception;
    }

    private SideBySideChecks() {}

    static void agree(ObjectMapper json, List<OpenSearchSideBySide.Pair> pairs, Ask logpipe, Ask openSearch)
            throws Exception {
        for (OpenSearchSideBySide.Pair p : pairs) {
            JsonNode a = json.readTree(logpipe.apply(p.logpipeUri()));
            JsonNode b = json.readTree(openSearch.apply(p.openSearchBody()));
            Object left;
            Object right;
            if (a.has("hits")) {
                left = ids(a.get("hits"), "record_id");
                right = ids(b.at("/hits/hits"), "_id");
            } else if (a.has("buckets")) {
                long sum = 0;
                for (JsonNode bucket : b.at("/aggregations/h/buckets")) {
                    sum += bucket.get("doc_count").asLong();
                }
                left = a.get("total").asLong();
                right = sum;
            } else {
                left = counts(a.get("values"), "value", "count");
                right = counts(b.at("/aggregations/t/buckets"), "key", "doc_count");
            }
            if (!left.equals(right)) {
                throw new IllegalStateException(p.name() + ": logpipe answers " + left + ", OpenSearch " + right);
            }
            System.out.println("same answer: " + p.name() + " (" + describe(left) + ")");
        }
    }

    private static List<String> ids(JsonNode hits, String field) {
        List<String> ids = new ArrayList<>();
        for (JsonNode h : hits) {
            ids.add(h.get(field).asText());
        }
        return ids;
    }

    private static Map<String, Long> counts(JsonNode values, String key, String count) {
        Map<String, Long> m = new TreeMap<>();
        for (JsonNode v : values) {
            m.put(v.get(key).asText(), v.get(count).asLong());
        }
        return m;
    }

    private static String describe(Object answer) {
        if (answer instanceof List<?> l) {
            return l.size() + " hits" + (l.isEmpty() ? "" : ", first " + l.get(0));
        }
        return answer.toString();
    }
}
