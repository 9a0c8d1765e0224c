package dev.logpipe.server.ui;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}; .ci/run installs them) at
 * 1280x720, driven through Selenium. Screenshots go to {@code target/screenshots/}. Nothing is downloaded: the
 * binaries are named, so Selenium Manager never runs.
 */
final class Browser implements AutoCloseable {
    static final Path SCREENSHOTS = Path.of("target", "screenshots");
    final ChromeDriver driver;

    /** Where the browser saves what it downloads (a fresh temp directory). */
    final java.nio.file.Path downloads;

    Browser() {
        String driverPath = System.getenv().getOrDefault("CHROMEDRIVER", "/usr/bin/chromedriver");
        String chromium = System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium");
        if (!new File(driverPath).canExecute() || !new File(chromium).canExecute()) {
            throw new IllegalStateException("browser tests need " + chromium + " and " + driverPath
                    + " (apt-get install -y chromium chromium-driver; .ci/run does it)");
        }
        ChromeOptions o = new ChromeOptions();
        o.setBinary(chromium);
        try {
            downloads = java.nio.file.Files.createTempDirectory("logpipe-downloads");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        o.setExperimentalOption(
                "prefs",
                java.util.Map.of(
                        "download.default_directory", downloads.toString(), "download.prompt_for_download", false));
        o.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--window-size=1280,720",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-sync",
                "--disable-component-update");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(driverPath))
                .usingAnyFreePort()
                .build();
        driver = new ChromeDriver(service, o);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
    }

    WebDriverWait waitUpTo(Duration d) {
        return new WebDriverWait(driver, d);
    }

    void screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            Files.copy(f.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        driver.quit();
    }
}
