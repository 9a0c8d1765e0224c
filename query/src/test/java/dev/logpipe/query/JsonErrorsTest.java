package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.get;
import static dev.logpipe.query.QueryFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whatever fails, the answer is JSON: never a container's HTML page (issue 24 item 2). */
class JsonErrorsTest {
    @TempDir
    Path data;

    static void assertJson(HttpResponse<String> r, int status, String reason) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        assertThat(r.body()).doesNotContain("<html", "<HTML");
        JsonNode j = json(r);
        assertThat(j.get("reason").asText()).isEqualTo(reason);
        assertThat(j.get("error").asText()).isNotBlank();
    }

    @Test
    void everyStatusTheServerAnswersItselfIsJson() throws Exception {
        QueryFixture.write(data, List.of());
        try (QueryProcess q = QueryFixture.start(data, "", InstantSource.system())) {
            assertJson(get(q, "/no/such/path", ACME_KEY), 404, "not_found");
            assertJson(get(q, "/api/v1/nope", ACME_KEY), 404, "not_found");
            assertJson(get(q, "/api/v1/fields/fields.a%2Fb/top", ACME_KEY), 400, "bad_request");
            assertJson(get(q, "/api/v1/search?q=" + "a".repeat(20_000), ACME_KEY), 400, "bad_request");
            HttpResponse<String> longLine = get(q, "/api/v1/search?q=" + "a".repeat(60_000), ACME_KEY);
            assertJson(longLine, 414, "uri_too_long");
            assertThat(json(longLine).get("error").asText()).isEqualTo(QueryService.REQUEST_HEAD_TOO_LONG);
            assertJson(get(q, "/api/v1/search", ACME_KEY, "X-Big", "b".repeat(60_000)), 431, "headers_too_large");
            String metrics = get(q, "/metrics", null).body();
            assertThat(metrics)
                    .contains("logpipe_http_errors_total{kind=\"not_found\",status=\"404\"} 2.0")
                    .contains("status=\"414\"");
        }
    }
}
