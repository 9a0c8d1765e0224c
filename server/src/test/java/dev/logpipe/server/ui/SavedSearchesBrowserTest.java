package dev.logpipe.server.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.server.standalone.Http;
import dev.logpipe.server.standalone.Standalone;
import dev.logpipe.server.standalone.StandaloneConfigLoader;
import dev.logpipe.testkit.Integration;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Saved searches in a real headless Chromium against a running standalone: saved from the Saved panel, a name taken
 * is replaced on request, the link opens the search for the tenant's users (and for another tenant's key, nothing),
 * and a saved search is deleted.
 */
@Integration
class SavedSearchesBrowserTest {
    static final String KEY = "saved-browser-key-0123456789";
    static final String ADMIN = "saved-browser-admin-0123456789";

    @TempDir
    static Path dir;

    static Standalone standalone;
    static Browser browser;
    static String otherKey;

    @BeforeAll
    static void start() throws Exception {
        standalone = Standalone.start(
                new StandaloneConfigLoader()
                        .load(null, new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false)),
                Map.of("LOGPIPE_API_KEY", KEY, "LOGPIPE_ADMIN_KEY", ADMIN),
                Clock.systemUTC());
        Http.Answer made = Http.post(standalone.baseUrl() + "/api/v1/admin/tenants/other/keys", ADMIN, "");
        assertThat(made.status()).as(made.body()).isIn(200, 201);
        otherKey = new ObjectMapper().readTree(made.body()).get("key").asText();
        browser = new Browser();
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

    private final WebDriverWait waiting = browser.waitUpTo(Duration.ofSeconds(20));

    /** Opens the page at {@code hash} signed in with {@code key} (signing out whoever was signed in). */
    private void openAs(String key, String hash) {
        var d = browser.driver;
        d.get(standalone.baseUrl() + "/");
        d.executeScript("sessionStorage.removeItem('logpipe.apiKey')");
        d.get(standalone.baseUrl() + "/" + hash);
        d.navigate().refresh();
        waiting.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-key")))
                .sendKeys(key);
        d.findElement(By.id("signin-submit")).click();
        waiting.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
    }

    private String message() {
        return browser.driver.findElement(By.id("saved-message")).getText();
    }

    private void saveAs(String name) {
        WebElement box = browser.driver.findElement(By.id("saved-name"));
        box.clear();
        box.sendKeys(name);
        browser.driver.findElement(By.id("saved-save")).click();
    }

    @Test
    void aSearchIsSavedReplacedOpenedByItsLinkForItsTenantOnlyAndDeleted() {
        var d = browser.driver;
        openAs(KEY, "#q=level%3AERROR&range=now-6h");
        d.findElement(By.id("saved-toggle")).click();
        waiting.until(ExpectedConditions.visibilityOfElementLocated(By.id("saved-name")));
        saveAs("Checkout errors");
        waiting.until(x -> message().startsWith("Saved “Checkout errors”"));
        String link =
                d.findElement(By.cssSelector("#saved-message .saved-link")).getAttribute("value");
        assertThat(link).matches(java.util.regex.Pattern.quote(standalone.baseUrl()) + "/#saved=[a-z2-7]{16}");
        waiting.until(
                x -> x.findElements(By.cssSelector("#saved-list li[data-id]")).size() == 1);
        assertThat(d.findElement(By.cssSelector("#saved-list .saved-what")).getText())
                .isEqualTo("level:ERROR · now-6h");
        browser.screenshot("saved-search");

        // the same name again, for another search: refused until the user says replace
        openAs(KEY, "#q=status%3A502&range=now-1h");
        d.findElement(By.id("saved-toggle")).click();
        saveAs("checkout ERRORS");
        WebElement replace = waiting.until(ExpectedConditions.elementToBeClickable(By.id("saved-replace")));
        assertThat(message()).contains("already named \"Checkout errors\"");
        replace.click();
        waiting.until(x -> message().startsWith("Replaced “checkout ERRORS”"));
        assertThat(d.findElement(By.cssSelector("#saved-message .saved-link")).getAttribute("value"))
                .isEqualTo(link);

        // the link, followed by another user of the tenant, shows the saved search
        openAs(KEY, link.substring(link.indexOf('#')));
        waiting.until(x -> "status:502".equals(x.findElement(By.id("q")).getAttribute("value")));
        assertThat(d.getCurrentUrl()).contains("range=now-1h").doesNotContain("saved=");

        // another tenant's key: the link opens nothing of it, and says so
        openAs(otherKey, link.substring(link.indexOf('#')));
        WebElement banner =
                waiting.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".banner.error")));
        assertThat(banner.getText()).contains("not one of this tenant's");
        assertThat(d.findElement(By.id("q")).getAttribute("value")).isEmpty();
        d.findElement(By.id("saved-toggle")).click();
        waiting.until(x -> message().isEmpty()
                && x.findElement(By.id("saved-list")).getText().contains("No saved searches yet"));

        openAs(KEY, "#");
        d.findElement(By.id("saved-toggle")).click();
        waiting.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#saved-list .saved-delete")))
                .click();
        waiting.until(x -> message().equals("Deleted “checkout ERRORS”.")
                && x.findElement(By.id("saved-list")).getText().contains("No saved searches yet"));
    }
}
