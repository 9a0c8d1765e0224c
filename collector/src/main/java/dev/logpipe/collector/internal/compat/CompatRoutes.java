package dev.logpipe.collector.internal.compat;

import dev.logpipe.collector.internal.compat.bulk.BulkProtocol;
import dev.logpipe.collector.internal.compat.bulk.ElasticsearchProbes;
import dev.logpipe.collector.internal.compat.loki.LokiProtocol;
import dev.logpipe.collector.internal.compat.otlp.OtlpProtocol;
import dev.logpipe.collector.internal.ingest.IngestHandler;
import dev.logpipe.collector.internal.ingest.IngestRequest;
import dev.logpipe.collector.internal.ingest.Protocol;
import java.util.function.Function;

/**
 * The routes of the shippers people already run (docs/ingest.md): Elasticsearch {@code _bulk} and its handshake
 * probes, OTLP/HTTP logs, Loki push. Each ingest route is a {@link Protocol} handed to the one shared
 * {@link IngestHandler}; this class only picks it by method and path.
 */
public final class CompatRoutes {
    /** What to serve for one request; null: not a route of these. */
    public record Route(Protocol protocol, IngestHandler.Answer fixed, boolean elasticsearch) {}

    private CompatRoutes() {}

    /**
     * The route of {@code method path} with request header {@code header}, or null.
     */
    public static Route route(String method, String path, Function<String, String> header, long maxDecodedBytes) {
        if (path.equals("/loki/api/v1/push")) {
            LokiProtocol loki = LokiProtocol.forContentType(header.apply("Content-Type"), maxDecodedBytes);
            if (!"POST".equals(method)) {
                return new Route(null, loki.refused(405, "use POST for /loki/api/v1/push", 0, false), false);
            }
            return new Route(loki, null, false);
        }
        if (path.equals("/_bulk") || path.endsWith("/_bulk") && path.indexOf('/', 1) == path.length() - 6) {
            if (!"POST".equals(method) && !"PUT".equals(method)) {
                return new Route(null, BulkProtocol.errorFor(405, "use POST for _bulk"), true);
            }
            String index = path.equals("/_bulk") ? null : path.substring(1, path.length() - 6);
            return new Route(new BulkProtocol(index), null, true);
        }
        if (path.equals("/v1/logs")) {
            OtlpProtocol otlp = OtlpProtocol.forContentType(header.apply("Content-Type"));
            if (!"POST".equals(method)) {
                return new Route(null, new OtlpProtocol(false).refused(405, "use POST for /v1/logs", 0, false), false);
            }
            if (otlp == null) {
                return new Route(
                        null,
                        new OtlpProtocol(true)
                                .refused(
                                        415,
                                        "Content-Type must be " + OtlpProtocol.PROTOBUF + " or "
                                                + OtlpProtocol.JSON_TYPE,
                                        0,
                                        true),
                        false);
            }
            return new Route(otlp, null, false);
        }
        IngestHandler.Answer probe = ElasticsearchProbes.answer(method, path);
        if (probe != null) {
            return new Route(null, probe, true);
        }
        return null;
    }

    /** Serves a route with a protocol through the shared pipeline. */
    public static IngestHandler.Answer serve(Route route, IngestHandler ingest, IngestRequest request) {
        return route.protocol() == null ? route.fixed() : ingest.handle(request, route.protocol());
    }
}
