package dev.logpipe.collector.internal.compat.bulk;

import dev.logpipe.collector.internal.ingest.IngestHandler.Answer;
import java.util.regex.Pattern;

/**
 * The harmless answers to what Elasticsearch clients ask before they send (docs/ingest.md#handshake): the version
 * ({@code GET /}), the license, the nodes, the cluster health; index templates, component templates, ILM policies,
 * ingest pipelines, data streams, aliases and indices all "exist" ({@code HEAD}/{@code GET} 200) and every attempt
 * to create or change one is acknowledged without effect. Nothing here reads or stores anything.
 */
public final class ElasticsearchProbes {
    /** The version reported: 8.x, which Fluent Bit, Vector, Filebeat 8, Logstash 8 and the Java client accept. */
    public static final String VERSION = "8.19.0";

    private static final Pattern MANAGED = Pattern.compile(
            "/_(index_template|template|component_template|ilm|ingest|data_stream|alias|aliases|security)(/.*)?"
                    + "|/[^_/][^/]*(/_(mapping|settings|alias|aliases)(/.*)?)?");

    private ElasticsearchProbes() {}

    /** The answer to {@code method path}, or null when it is not a probe. */
    public static Answer answer(String method, String path) {
        if ("/".equals(path) && ("GET".equals(method) || "HEAD".equals(method))) {
            return ok("""
                    {"name":"logpipe","cluster_name":"logpipe","cluster_uuid":"logpipe-collector",\
                    "version":{"number":"%s","build_flavor":"default","build_type":"logpipe","build_hash":"logpipe",\
                    "build_date":"2025-01-01T00:00:00.000Z","build_snapshot":false,"lucene_version":"9.12.3",\
                    "minimum_wire_compatibility_version":"7.17.0","minimum_index_compatibility_version":"7.0.0"},\
                    "tagline":"You Know, for Search"}""".formatted(VERSION));
        }
        if (!"GET".equals(method)
                && !"HEAD".equals(method)
                && !"PUT".equals(method)
                && !"POST".equals(method)
                && !"DELETE".equals(method)) {
            return null;
        }
        if (path.startsWith("/_license")) {
            return ok("{\"license\":{\"status\":\"active\",\"uid\":\"logpipe\",\"type\":\"basic\",\"mode\":\"basic\","
                    + "\"issue_date_in_millis\":0,\"max_nodes\":1000,\"issued_to\":\"logpipe\",\"issuer\":\"logpipe\","
                    + "\"start_date_in_millis\":-1}}");
        }
        if (path.startsWith("/_xpack")) {
            return ok("{\"build\":{},\"license\":{\"uid\":\"logpipe\",\"type\":\"basic\",\"mode\":\"basic\","
                    + "\"status\":\"active\"},\"features\":{\"ilm\":{\"available\":true,\"enabled\":true}}}");
        }
        if (path.startsWith("/_nodes")) {
            return ok("{\"_nodes\":{\"total\":1,\"successful\":1,\"failed\":0},\"cluster_name\":\"logpipe\","
                    + "\"nodes\":{}}");
        }
        if (path.startsWith("/_cluster/health")) {
            return ok("{\"cluster_name\":\"logpipe\",\"status\":\"green\",\"timed_out\":false,\"number_of_nodes\":1,"
                    + "\"number_of_data_nodes\":1,\"active_primary_shards\":0,\"active_shards\":0}");
        }
        if (MANAGED.matcher(path).matches()) {
            return "GET".equals(method) || "HEAD".equals(method) ? ok("{}") : ok("{\"acknowledged\":true}");
        }
        return null;
    }

    private static Answer ok(String json) {
        return Answer.json(200, json, 0, false);
    }
}
