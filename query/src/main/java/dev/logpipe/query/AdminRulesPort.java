package dev.logpipe.query;

import dev.logpipe.auth.AuthFailures;
import dev.logpipe.auth.Credentials;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfig;
import dev.logpipe.role.http.Answer;
import dev.logpipe.role.http.Probes;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The rules' admin API and the recording rules' series ({@code /metrics/rules}) on the query port ({@link
 * QueryServer}): the admin key checked against {@code admin.api_key_sha256} as every API checks a key, then {@link
 * QueryService#rulesAdmin} or {@link QueryService#recordedSeries}. (The standalone reaches the
 * same API through its own admin handler and admin keys.)
 */
final class AdminRulesPort {
    /** The path of the rules' admin API. */
    static final String PATH = "/api/v1/admin/rules";

    /**
     * The recording rules' series, for the operator's Prometheus: behind a scrape key ({@code admin.scrape_key_sha256},
     * good for this path only, so the Prometheus server holds no admin key) or an admin key, since their label values
     * come from the tenants' records and {@code /metrics} answers anyone who reaches the port.
     */
    static final String RECORDED_PATH = "/metrics/rules";

    private final QueryService service;
    private final QueryConfig config;
    private final AuthFailures failures;

    AdminRulesPort(QueryService service, QueryConfig config, AuthFailures failures) {
        this.service = service;
        this.config = config;
        this.failures = failures;
    }

    /**
     * {@code /api/v1/admin/rules...} on the query port ({@link QueryServer}): the admin key checked against {@code
     * admin.api_key_sha256} as every API checks a key (401, 429 after too many failures), 403 when none is configured.
     * False for any other path.
     */
    boolean handle(Request request, Response response, Callback callback) {
        String path = Request.getPathInContext(request);
        boolean series = path.equals(RECORDED_PATH);
        if (!series && !path.equals(PATH) && !path.startsWith(PATH + "/")) {
            return false;
        }
        Answer a;
        Set<String> accepted = new HashSet<>(config.adminKeyHashes());
        if (series) {
            accepted.addAll(config.scrapeKeyHashes()); // a scrape key reads the series and nothing else
        }
        if (accepted.isEmpty()) {
            a = Answer.json(
                    403,
                    series
                            ? "{\"error\":\"the recorded series are disabled: set admin.scrape_key_sha256 or "
                                    + "admin.api_key_sha256\"}"
                            : "{\"error\":\"the admin API is disabled: set admin.api_key_sha256\"}");
        } else {
            try {
                String hash = Credentials.check(
                        failures,
                        request.getHeaders().getValuesList(HttpHeader.AUTHORIZATION),
                        Request.getRemoteAddr(request),
                        key -> Optional.of(ConfiguredKeys.sha256(key)).filter(accepted::contains),
                        series
                                ? "a valid scrape or admin key is required (Authorization: Bearer KEY)"
                                : "a valid admin key is required (Authorization: Bearer ADMIN_KEY)");
                if (series) {
                    Probes.writeMetrics(response, callback, service.recordedSeries());
                    return true;
                }
                a = service.rulesAdmin(
                        request.getMethod(),
                        path.substring(PATH.length()),
                        () -> Content.Source.asInputStream(request),
                        "admin:" + hash.substring(0, 12));
            } catch (Credentials.Refused r) {
                a = Answer.error(r.status(), r.reason(), r.getMessage())
                        .retryAfter(r.status() == 429 ? r.retryAfterSeconds() : 0);
            }
        }
        a.write(response, callback);
        return true;
    }
}
