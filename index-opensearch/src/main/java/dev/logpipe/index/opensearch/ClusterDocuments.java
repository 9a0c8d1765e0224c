package dev.logpipe.index.opensearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A small index of logpipe's own documents in the cluster ({@code <prefix>-<name>}: one shard, as many replicas as
 * the record indices, nothing of it indexed but the one keyword field it may be opened with), shared by every process that reaches the cluster: what must be the same
 * for all indexers (the legal holds) lives here instead of in one indexer's data directory. Writes wait until a read
 * sees them ({@code refresh=wait_for}), so once {@link #put} or {@link #delete} returns, every process's {@link #all}
 * has it. For a handful of documents: {@link #all} reads at most {@link #MAX_DOCUMENTS} and refuses more. Thread-safe.
 */
public final class ClusterDocuments {
    public static final int MAX_DOCUMENTS = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final OpenSearchClient client;
    private final String index;

    private ClusterDocuments(OpenSearchClient client, String index) {
        this.client = client;
        this.index = index;
    }

    /**
     * Reaches the cluster and makes the index {@code <prefix>-<name>} when it does not exist.
     *
     * @throws IOException no host answers, or the cluster refuses the index (its answer is in the message)
     */
    public static ClusterDocuments open(OpenSearchSettings settings, String name) throws IOException {
        OpenSearchClient client = new OpenSearchClient(settings);
        String index = settings.indexPrefix() + "-" + name;
        create(client, settings, index);
        return new ClusterDocuments(client, index);
    }

    /**
     * As {@link #open(OpenSearchSettings, String)}, with {@code keyword} indexed as a keyword (the one field
     * {@link #where} can select on); an index made before without it gets it added.
     */
    public static ClusterDocuments open(OpenSearchSettings settings, String name, String keyword) throws IOException {
        ClusterDocuments d = open(settings, name);
        ObjectNode mapping = JSON.createObjectNode();
        mapping.putObject("properties").putObject(keyword).put("type", "keyword");
        OpenSearchStore.expect(
                d.client.sendJson("PUT", "/" + d.index + "/_mapping", JSON.writeValueAsBytes(mapping)),
                "mapping " + keyword + " of " + d.index);
        // documents stored before the field was mapped are not indexed under it: write them again, in place (a few,
        // once; _update_by_query needs the reindex module, which a cluster may not load)
        ObjectNode q = JSON.createObjectNode();
        q.put("size", MAX_DOCUMENTS);
        q.putObject("query")
                .putObject("bool")
                .putArray("must_not")
                .addObject()
                .putObject("exists")
                .put("field", keyword);
        OpenSearchClient.Response r = d.client.sendJson("POST", "/" + d.index + "/_search", JSON.writeValueAsBytes(q));
        OpenSearchStore.expect(r, "reading " + d.index);
        for (JsonNode h : JSON.readTree(r.body()).path("hits").path("hits")) {
            if (h.path("_source").isObject()) {
                d.put(h.path("_id").asText(), (ObjectNode) h.path("_source"));
            }
        }
        return d;
    }

    /**
     * Makes {@code index} for logpipe's own documents when it does not exist: one shard, as many replicas as the
     * record indices (the default of 1 would keep a one-node cluster yellow for ever), nothing of it indexed.
     */
    static void create(OpenSearchClient client, OpenSearchSettings settings, String index) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.putObject("settings")
                .putObject("index")
                .put("number_of_shards", 1)
                .put("number_of_replicas", settings.replicas());
        body.putObject("mappings").put("dynamic", false);
        OpenSearchClient.Response r = client.sendJson("PUT", "/" + index, JSON.writeValueAsBytes(body));
        if (!r.ok() && !r.text().contains("resource_already_exists_exception")) {
            OpenSearchStore.expect(r, "creating the index " + index);
        }
    }

    /**
     * The documents of {@code <prefix>-<name>}, reached on first use (and tried again on the next use after a
     * failure): a process that keeps such documents starts while the cluster is away. Thread-safe.
     */
    public static final class Lazy {
        private final OpenSearchSettings settings;
        private final String name;
        private volatile ClusterDocuments documents;

        private final String keyword;

        public Lazy(OpenSearchSettings settings, String name) {
            this(settings, name, null);
        }

        /** @param keyword a field {@link #where} selects on, or null */
        public Lazy(OpenSearchSettings settings, String name, String keyword) {
            this.settings = settings;
            this.name = name;
            this.keyword = keyword;
        }

        /** The documents, opening the index the first time. */
        public ClusterDocuments get() throws IOException {
            ClusterDocuments d = documents;
            if (d == null) {
                synchronized (this) {
                    d = documents;
                    if (d == null) {
                        d = keyword == null ? open(settings, name) : open(settings, name, keyword);
                        documents = d;
                    }
                }
            }
            return d;
        }
    }

    /** The index's name. */
    public String index() {
        return index;
    }

    /** Writes the document {@code id} (replacing one of that id); returns once reads see it. */
    public void put(String id, ObjectNode document) throws IOException {
        OpenSearchStore.expect(
                client.sendJson("PUT", path(id) + "?refresh=wait_for", JSON.writeValueAsBytes(document)),
                "storing " + id + " in " + index);
    }

    /** Deletes the document {@code id}; false when there was none. Returns once reads no longer see it. */
    public boolean delete(String id) throws IOException {
        OpenSearchClient.Response r = client.send("DELETE", path(id) + "?refresh=wait_for", null, null);
        if (r.status() == 404) {
            return false;
        }
        OpenSearchStore.expect(r, "deleting " + id + " from " + index);
        return true;
    }

    /**
     * Every document, as stored.
     *
     * @throws IOException the cluster does not answer, or holds more than {@link #MAX_DOCUMENTS}
     */
    public List<JsonNode> all() throws IOException {
        ObjectNode q = JSON.createObjectNode();
        q.putObject("match_all");
        return search(q, MAX_DOCUMENTS);
    }

    /**
     * The documents whose {@code field} (the keyword it was opened with) is {@code value}.
     *
     * @throws IOException the cluster does not answer, or holds more than {@code max} of them
     */
    public List<JsonNode> where(String field, String value, int max) throws IOException {
        ObjectNode q = JSON.createObjectNode();
        q.putObject("term").put(field, value);
        return search(q, max);
    }

    private List<JsonNode> search(ObjectNode query, int max) throws IOException {
        ObjectNode q = JSON.createObjectNode();
        q.put("size", max);
        q.put("track_total_hits", true);
        q.set("query", query);
        OpenSearchClient.Response r = client.sendJson("POST", "/" + index + "/_search", JSON.writeValueAsBytes(q));
        OpenSearchStore.expect(r, "reading " + index);
        JsonNode hits = JSON.readTree(r.body()).path("hits");
        if (hits.path("total").path("value").asLong() > max) {
            throw new IOException(index + " holds more than " + max + " documents of this query");
        }
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode h : hits.path("hits")) {
            out.add(h.path("_source"));
        }
        return out;
    }

    private String path(String id) {
        return "/" + index + "/_doc/" + URLEncoder.encode(id, StandardCharsets.UTF_8);
    }
}
