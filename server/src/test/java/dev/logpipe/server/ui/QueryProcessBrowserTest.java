package dev.logpipe.server.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardLayout;
import dev.logpipe.index.store.lucene.LuceneStore;
import dev.logpipe.index.store.lucene.StoreSettings;
import dev.logpipe.index.store.write.IndexRecord;
import dev.logpipe.query.QueryProcess;
import dev.logpipe.query.auth.ConfiguredKeys;
import dev.logpipe.query.config.QueryConfigLoader;
import dev.logpipe.record.Level;
import dev.logpipe.record.LogRecord;
import dev.logpipe.record.RecordCodec;
import dev.logpipe.server.standalone.Http;
import dev.logpipe.testkit.Integration;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The web UI served by {@code logpipe query} alone (a {@link QueryProcess} on committed shards, no standalone): the page
 * loads from the query port, signs in through its {@code /api/v1/whoami}, and searches.
 */
@Integration
class QueryProcessBrowserTest {
    static final String KEY = "query-process-key-0123456789";

    @TempDir
    static Path data;

    static QueryProcess query;
    static Browser browser;
    static com.sun.net.httpserver.HttpServer hooks;

    @BeforeAll
    static void start() throws Exception {
        RecordCodec codec = new RecordCodec();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        List<IndexRecord> records = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LogRecord r = LogRecord.builder("served by the query process qpmarker " + i)
                    .recordId("qp-" + i)
                    .tenantId("acme")
                    .eventTime(now.minusSeconds(60 + i))
                    .observedTime(now.minusSeconds(60 + i))
                    .service("api")
                    .level(i == 0 ? Level.ERROR : Level.INFO)
                    .build();
            byte[] line = codec.encode(r);
            records.add(new IndexRecord(codec.decode(line), r.eventTime(), r.observedTime(), line, 0, line.length));
        }
        try (LuceneStore store =
                new LuceneStore(new ShardLayout(data), StoreSettings.defaults(), InstantSource.system())) {
            for (IndexRecord r : records) {
                store.write(ShardId.records("acme", LocalDate.ofInstant(r.eventTime(), ZoneOffset.UTC)), List.of(r));
            }
            store.commit(Map.of("t-0", 3L));
        }
        // one rule that fires on the ERROR record, its alerts to a webhook nobody reads (a JDK server answering 200)
        hooks = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        hooks.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        hooks.start();
        Path rules = data.resolve("acme-rules.yaml");
        java.nio.file.Files.writeString(rules, """
                groups:
                  - name: errors
                    interval: 1s
                    rules:
                      - alert: QpErrors
                        expr: sum(count_over_time({level="ERROR"} |= "qpmarker" [1h])) > 0
                      - alert: QpQuiet
                        expr: sum(count_over_time({level="ERROR"} |= "nothing-like-this" [1h])) > 0
                """);
        query = QueryProcess.start(
                new QueryConfigLoader()
                        .parse(
                                """
                                listen: 127.0.0.1:0
                                data_dir: %s
                                tenants:
                                  - id: acme
                                    api_key_sha256: [%s]
                                alerting:
                                  webhook_url: http://127.0.0.1:%d/hook
                                  rules:
                                    - tenant: acme
                                      file: %s
                                """.formatted(
                                                data,
                                                ConfiguredKeys.sha256(KEY),
                                                hooks.getAddress().getPort(),
                                                rules),
                                "test"),
                Clock.systemUTC());
        browser = new Browser();
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
        if (query != null) {
            query.close();
        }
        if (hooks != null) {
            hooks.stop(0);
        }
    }

    private String base() {
        return "http://127.0.0.1:" + query.address().getPort();
    }

    @Test
    void whoamiNamesTheKeysTenantAndRefusesAnUnknownKey() throws Exception {
        assertThat(Http.get(base() + "/api/v1/whoami", KEY).body()).contains("\"tenant\":\"acme\"");
        assertThat(Http.get(base() + "/api/v1/whoami", "not-a-key-of-anyone").status())
                .isEqualTo(401);
    }

    @Test
    void theQueryProcessServesTheUiThatSignsInAndSearches() {
        var d = browser.driver;
        d.get(base() + "/#range=now-1h&q=qpmarker");
        var wait = browser.waitUpTo(Duration.ofSeconds(15));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-key")))
                .sendKeys(KEY);
        d.findElement(By.id("signin-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
        assertThat(d.findElement(By.id("tenant")).getText()).isEqualTo("acme");
        List<WebElement> rows = wait.until(x -> {
            List<WebElement> r = x.findElements(By.cssSelector("#results > li.row"));
            return r.size() == 3 ? r : null;
        });
        assertThat(rows.get(0).findElement(By.cssSelector(".lvl")).getText()).isEqualTo("ERROR");
        assertThat(rows.get(0).findElement(By.cssSelector("mark")).getText()).isEqualTo("qpmarker");
        // the tenant's alert rules at a glance: one fires on the ERROR record, one stays quiet
        browser.waitUpTo(Duration.ofSeconds(20)).until(x -> {
            if (x.findElement(By.id("alerts")).getText().equals("Alerts: 1 firing")) {
                return true;
            }
            x.findElement(By.id("search-button")).click(); // the status (and the rules' state) is read per search
            return false;
        });
        WebElement alerts = d.findElement(By.id("alerts"));
        assertThat(alerts.getAttribute("data-state")).isEqualTo("firing");
        assertThat(alerts.getAttribute("title"))
                .contains("errors / QpErrors: firing")
                .contains("errors / QpQuiet: inactive");
        browser.screenshot("query-process-ui");
    }
}
