package dev.logpipe.server.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.server.standalone.Http;
import dev.logpipe.server.standalone.Standalone;
import dev.logpipe.server.standalone.StandaloneConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web UI in a real headless Chromium against a running standalone with real records: search, histogram,
 * expanding a record, filtering from the field sidebar, the second page on scroll, live tail, the partial banner.
 * The standalone's query budget is two day shards, so a week-long query over records four and three days old is
 * partial. Screenshots: target/screenshots/.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SearchBrowserTest {
    static final String KEY = "search-browser-key-0123456789";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    static Standalone standalone;
    static Browser browser;

    @BeforeAll
    static void start() throws Exception {
        Path config = dir.resolve("standalone.yaml");
        Files.writeString(config, "query:\n  limits:\n    max_shards: 2\n");
        standalone = Standalone.start(
                new StandaloneConfigLoader()
                        .load(config, new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false)),
                Map.of("LOGPIPE_API_KEY", KEY),
                Clock.systemUTC());
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        StringBuilder body = new StringBuilder();
        List<String> services = List.of("api-gateway", "payments", "auth");
        for (int i = 0; i < 250; i++) {
            String level = i % 10 == 0 ? "ERROR" : i % 4 == 0 ? "WARN" : "INFO";
            body.append(JSON.writeValueAsString(Map.of(
                            "event_time",
                            now.minusSeconds(2L * i + 5).toString(),
                            "level",
                            level,
                            "service",
                            services.get(i % 3),
                            "message",
                            "request " + i + " handled by " + services.get(i % 3),
                            "fields",
                            Map.of("took_ms", i))))
                    .append('\n');
        }
        body.append(JSON.writeValueAsString(Map.of(
                        "event_time",
                        now.minusSeconds(30).toString(),
                        "level",
                        "ERROR",
                        "service",
                        "payments",
                        "message",
                        "charge failed needlexyz upstream timeout")))
                .append('\n');
        for (int d = 3; d <= 4; d++) {
            body.append(JSON.writeValueAsString(Map.of(
                            "event_time",
                            now.minus(Duration.ofDays(d)).toString(),
                            "level",
                            "INFO",
                            "service",
                            "old",
                            "message",
                            "old record " + d)))
                    .append('\n');
        }
        Http.Answer a = Http.post(standalone.baseUrl() + "/api/v1/logs", KEY, body.toString());
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        JSON.readTree(Http.get(standalone.baseUrl() + "/api/v1/search?from=now-7d&limit=1&q=*:*", KEY)
                                                .body())
                                        .path("total")
                                        .path("value")
                                        .asLong()
                                >= 250);
        browser = new Browser();
        browser.driver.get(standalone.baseUrl() + "/");
        WebDriverWait wait = browser.waitUpTo(Duration.ofSeconds(15));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-key")))
                .sendKeys(KEY);
        browser.driver.findElement(By.id("signin-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.close();
        }
        if (standalone != null) {
            standalone.close();
        }
    }

    private WebDriverWait waiting;

    @BeforeEach
    void waits() {
        waiting = browser.waitUpTo(Duration.ofSeconds(20));
    }

    private void open(String hash) {
        browser.driver.get(standalone.baseUrl() + "/#" + hash);
        browser.driver.navigate().refresh(); // a hash-only change does not reload; make each test start clean
        waiting.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
    }

    private List<WebElement> rows() {
        return browser.driver.findElements(By.cssSelector("#results > li.row"));
    }

    private void search(String q) {
        WebElement box = browser.driver.findElement(By.id("q"));
        box.clear();
        box.sendKeys(q);
        browser.driver.findElement(By.id("search-button")).click();
    }

    @Test
    @Order(1)
    void aSearchShowsTheHistogramAndHighlightedResultsAndARecordExpands() {
        open("range=now-1h");
        search("needlexyz");
        waiting.until(d -> rows().size() == 1);
        waiting.until(
                d -> !d.findElements(By.cssSelector("#histogram rect.bar")).isEmpty());
        WebElement row = rows().get(0);
        assertThat(row.findElement(By.cssSelector(".lvl")).getText()).isEqualTo("ERROR");
        assertThat(row.findElement(By.cssSelector("mark")).getText()).isEqualTo("needlexyz");
        assertThat(browser.driver.getCurrentUrl()).contains("q=needlexyz");
        row.findElement(By.cssSelector(".line")).click();
        WebElement detail = waiting.until(d -> row.findElement(By.cssSelector(".detail")));
        assertThat(detail.getText())
                .contains("record_id")
                .contains("tenant_id")
                .contains("default")
                .contains("observed_time");
        assertThat(detail.findElement(By.cssSelector("button.copy-json")).isDisplayed())
                .isTrue();
        browser.screenshot("search-expanded");
    }

    @Test
    @Order(2)
    void aQueryThatDoesNotParseIsShownAtItsPosition() {
        open("range=now-1h");
        search("level:(ERROR");
        WebElement err = waiting.until(ExpectedConditions.visibilityOfElementLocated(By.id("q-error")));
        assertThat(err.getText()).contains("level:(ERROR").contains("^");
        assertThat(browser.driver.findElement(By.id("q")).getAttribute("class")).contains("invalid");
        browser.screenshot("parse-error");
    }

    @Test
    @Order(3)
    void clickingATopValueFiltersTheResults() {
        open("range=now-1h&q=request");
        waiting.until(d -> rows().size() >= 50);
        WebElement field = waiting.until(
                ExpectedConditions.elementToBeClickable(By.cssSelector("#fields button.field[data-field='service']")));
        field.click();
        WebElement value = waiting.until(
                ExpectedConditions.elementToBeClickable(By.cssSelector(".top-values .val[data-value='payments']")));
        browser.screenshot("field-top-values");
        value.click();
        waiting.until(d -> d.getCurrentUrl().contains("service%3Apayments"));
        waiting.until(d -> !rows().isEmpty()
                && rows().stream()
                        .allMatch(r ->
                                r.findElement(By.cssSelector(".svc")).getText().equals("payments")));
        assertThat(browser.driver.findElement(By.id("q")).getAttribute("value"))
                .isEqualTo("request AND service:payments");
    }

    @Test
    @Order(4)
    void scrollingToTheEndLoadsTheSecondPage() {
        open("range=now-1h&q=request");
        waiting.until(d -> rows().size() == 100);
        ((JavascriptExecutor) browser.driver).executeScript("document.getElementById('sentinel').scrollIntoView()");
        waiting.until(d -> rows().size() == 200);
        ((JavascriptExecutor) browser.driver).executeScript("document.getElementById('sentinel').scrollIntoView()");
        waiting.until(d -> rows().size() == 250);
        long distinct = rows().stream()
                .map(r -> r.getAttribute("data-record-id"))
                .distinct()
                .count();
        assertThat(distinct).isEqualTo(250);
        browser.screenshot("second-page");
    }

    @Test
    @Order(5)
    void liveTailShowsALineIngestedDuringTheTest() throws Exception {
        open("range=now-1h&q=tailmarker");
        browser.driver.findElement(By.id("tail")).click();
        waiting.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".banner.tail")));
        Thread.sleep(500); // the tail's first poll sets its starting point; give it one
        Http.Answer a = Http.post(
                standalone.baseUrl() + "/api/v1/logs",
                KEY,
                "{\"message\":\"tailmarker arrived live\",\"level\":\"WARN\",\"service\":\"tail\"}\n");
        assertThat(a.status()).isEqualTo(200);
        browser.waitUpTo(Duration.ofSeconds(15))
                .until(d -> rows().stream().anyMatch(r -> r.getText().contains("tailmarker arrived live")));
        browser.screenshot("live-tail");
        browser.driver.findElement(By.id("tail")).click();
    }

    @Test
    @Order(6)
    void anOverBudgetQueryShowsThePartialBanner() {
        open("range=now-7d");
        WebElement banner =
                waiting.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".banner.partial")));
        assertThat(banner.getText()).startsWith("Partial results:").contains("skipped");
        browser.screenshot("partial-banner");
    }
}
