package dev.logpipe.query;

import static dev.logpipe.query.QueryFixture.ACME_KEY;
import static dev.logpipe.query.QueryFixture.enc;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented cap on {@code q} (4,096 characters) over real HTTP to a query process: a query of that length in
 * three-byte UTF-8 (36 KiB percent-encoded) reaches the API (a 1,500-character non-ASCII one got Jetty's 414
 * before); past the cap it is the API's own 400 naming it, and only a request line past the port's
 * {@link QueryService#MAX_REQUEST_HEAD_BYTES} is a 414.
 */
class RequestLineTest {
    @TempDir
    Path dir;

    @Test
    void aQueryOfTheDocumentedLengthInNonAsciiTextIsServed() throws Exception {
        try (QueryProcess q = QueryFixture.start(dir, "", InstantSource.system())) {
            HttpResponse<String> issue = QueryFixture.get(q, "/api/v1/search?q=" + enc("é".repeat(1500)), ACME_KEY);
            assertThat(issue.statusCode()).as(issue.body()).isEqualTo(200);
            String longest = enc("€".repeat(4096));
            assertThat(longest).hasSize(36_864);
            HttpResponse<String> full = QueryFixture.get(q, "/api/v1/search?q=" + longest, ACME_KEY);
            assertThat(full.statusCode()).as(full.body()).isEqualTo(200);
            HttpResponse<String> over = QueryFixture.get(q, "/api/v1/search?q=" + enc("€".repeat(4097)), ACME_KEY);
            assertThat(over.statusCode()).isEqualTo(400);
            assertThat(over.body()).contains("longer than 4096 characters");
            HttpResponse<String> huge = QueryFixture.get(q, "/api/v1/search?q=" + enc("€".repeat(6000)), ACME_KEY);
            assertThat(huge.statusCode()).isEqualTo(414);
        }
    }
}
