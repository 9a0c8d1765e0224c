package dev.logpipe.server.ui;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.openqa.selenium.support.ui.ExpectedConditions;

/** Signing in and out of the web UI in a real headless Chromium against a running standalone. */
@Integration
class SignInBrowserTest {
    static final String KEY = "browser-default-key-0123456789";
    static final String ADMIN = "browser-admin-key-0123456789";

    @TempDir
    static Path dir;

    static Standalone standalone;
    static Browser browser;

    @BeforeAll
    static void start() throws Exception {
        standalone = Standalone.start(
                new StandaloneConfigLoader()
                        .load(null, new StandaloneConfigLoader.Flags(dir.resolve("data"), 0, 0, false)),
                Map.of("LOGPIPE_API_KEY", KEY, "LOGPIPE_ADMIN_KEY", ADMIN),
                Clock.systemUTC());
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

    @Test
    void aWrongKeyIsRefusedAndTheRightOneSignsInUntilSignOut() {
        var d = browser.driver;
        d.get(standalone.baseUrl() + "/");
        var wait = browser.waitUpTo(Duration.ofSeconds(15));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-key")))
                .sendKeys("not-a-key-of-anyone");
        d.findElement(By.id("signin-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-error")));
        assertThat(d.findElement(By.id("signin-error")).getText()).contains("refused");
        assertThat(d.findElement(By.id("app")).isDisplayed()).isFalse();
        browser.screenshot("signin-refused");

        d.findElement(By.id("signin-key")).clear();
        d.findElement(By.id("signin-key")).sendKeys(KEY);
        d.findElement(By.id("signin-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
        assertThat(d.findElement(By.id("tenant")).getText()).isEqualTo("default");
        browser.screenshot("signed-in");

        d.navigate().refresh(); // the key is kept for the browser session
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("app")));
        d.findElement(By.id("signout")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-key")));
        assertThat(d.executeScript("return sessionStorage.getItem('logpipe.apiKey')"))
                .isNull();
    }

    @Test
    void theAdminKeySignsInToTenantsAndKeysAndMakesAndRevokesAKey() {
        var d = browser.driver;
        var wait = signInAsAdmin();
        wait.until(x -> !x.findElements(By.cssSelector("#admin-tenants tr[data-tenant='default']"))
                .isEmpty());
        d.findElement(By.id("admin-tenant")).sendKeys("ops");
        d.findElement(By.cssSelector("#admin-new-key button[type=submit]")).click();
        String key = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("admin-issued-key")))
                .getText();
        assertThat(key).isNotBlank();
        var ops = wait.until(
                x -> x.findElements(By.cssSelector("#admin-tenants tr[data-tenant='ops'] li[data-key-id]")).stream()
                        .findFirst()
                        .orElse(null));
        String keyId = ops.getAttribute("data-key-id");
        browser.screenshot("admin");
        ops.findElement(By.cssSelector("button.revoke")).click();
        d.switchTo().alert().accept();
        wait.until(x -> x.findElements(By.cssSelector("li[data-key-id='" + keyId + "']"))
                .isEmpty());
        d.findElement(By.id("admin-signout")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-key")));
    }

    @Test
    void theAdminPlacesAndRemovesALegalHoldFromTheUi() throws Exception {
        var d = browser.driver;
        var wait = signInAsAdmin();
        d.findElement(By.id("hold-tenant")).sendKeys("default");
        // a datetime-local takes its value through script: key input differs between locales
        d.executeScript("document.getElementById('hold-from').value = '2026-11-01T00:00:00';"
                + "document.getElementById('hold-to').value = '2026-11-03T00:00:00';");
        d.findElement(By.id("hold-reason")).sendKeys("case 42 from the ui");
        d.findElement(By.id("hold-who")).sendKeys("legal@example.com");
        d.findElement(By.cssSelector("#admin-new-hold button[type=submit]")).click();
        var hold = wait.until(x -> x.findElements(By.cssSelector("#admin-holds li[data-hold-id]")).stream()
                .filter(li -> li.getText().contains("case 42 from the ui"))
                .findFirst()
                .orElse(null));
        assertThat(hold.getText()).startsWith("default: 2026-11-01T00:00:00Z → 2026-11-03T00:00:00Z");
        String id = hold.getAttribute("data-hold-id");
        assertThat(Http.get(standalone.baseUrl() + "/api/v1/admin/legal-holds", ADMIN)
                        .body())
                .contains(id)
                .contains("legal@example.com");

        hold.findElement(By.cssSelector("button.remove-hold")).click();
        d.switchTo().alert().accept();
        wait.until(x ->
                x.findElements(By.cssSelector("li[data-hold-id='" + id + "']")).isEmpty());
        assertThat(Http.get(standalone.baseUrl() + "/api/v1/admin/legal-holds", ADMIN)
                        .body())
                .doesNotContain(id);
        d.findElement(By.id("admin-signout")).click();
    }

    /** Signs in with the admin key from a fresh page; returns a wait for what follows. */
    private org.openqa.selenium.support.ui.WebDriverWait signInAsAdmin() {
        var d = browser.driver;
        d.get(standalone.baseUrl() + "/");
        d.executeScript("sessionStorage.clear()");
        d.navigate().refresh();
        var wait = browser.waitUpTo(Duration.ofSeconds(15));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-key")))
                .sendKeys(ADMIN);
        d.findElement(By.id("signin-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("admin")));
        return wait;
    }
}
