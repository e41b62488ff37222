package org.mpfl.testing.browser;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.function.Function;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.mpfl.ir.files.FileTrees;

/**
 * Debian's headless Chromium driven through {@code /usr/bin/chromedriver}, with both paths set
 * explicitly so that Selenium Manager never runs (nothing is downloaded), a fresh profile directory,
 * and every background network feature off. {@link #close()} quits the browser, stops the driver
 * and deletes the profile. Shared by the engine's console tests and the samples' (which run heat2d for real).
 */
public final class HeadlessChromium implements AutoCloseable {
    /** Debian's paths; {@code -Dmpfl.chromium=...} and {@code -Dmpfl.chromedriver=...} point elsewhere. */
    public static final Path CHROMIUM = Path.of(System.getProperty("mpfl.chromium", "/usr/bin/chromium"));
    public static final Path CHROMEDRIVER = Path.of(System.getProperty("mpfl.chromedriver", "/usr/bin/chromedriver"));
    /** Kept so that the settings hold: Selenium warns that it has no DevTools support for this Chromium, which it does not need. */
    private static final java.util.logging.Logger CDP_WARNINGS = java.util.logging.Logger.getLogger("org.openqa.selenium.devtools");
    private static final java.util.logging.Logger CHROMIUM_WARNINGS = java.util.logging.Logger.getLogger("org.openqa.selenium.chromium");

    /** How long a page script may take unless a caller needs longer (and sets it back). */
    public static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(10);

    private final ChromeDriverService service;
    private final ChromeDriver driver;
    private final Path profile;

    private HeadlessChromium(ChromeDriverService service, ChromeDriver driver, Path profile) {
        this.service = service;
        this.driver = driver;
        this.profile = profile;
    }

    /** Starts the browser, or throws an AssertionError that says what to install. */
    public static HeadlessChromium start(int width, int height) throws IOException {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            throw new AssertionError("the console's browser tests need " + CHROMIUM + " and " + CHROMEDRIVER
                    + " (Debian: apt-get install chromium chromium-driver; .ci/run installs them)");
        }
        CDP_WARNINGS.setLevel(java.util.logging.Level.SEVERE);
        CHROMIUM_WARNINGS.setLevel(java.util.logging.Level.SEVERE);
        // keep Selenium from looking anything up on the network
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
        Path profile = Files.createTempDirectory("mpfl-console-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--window-size=" + width + "," + height,
                "--lang=en-US");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build();
        try {
            ChromeDriver driver = new ChromeDriver(service, options);
            driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20)).scriptTimeout(SCRIPT_TIMEOUT);
            return new HeadlessChromium(service, driver, profile);
        } catch (RuntimeException e) {
            service.stop();
            FileTrees.deleteQuietly(profile);
            throw e;
        }
    }

    public WebDriver driver() {
        return driver;
    }

    public Object script(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }

    /** The visible text of the first element matching {@code css} ({@code ""} when there is none). */
    public String text(String css) {
        return (String) script("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css);
    }

    /** An attribute of the first element matching {@code css} ({@code null} when either is missing). */
    public String attribute(String css, String name) {
        return (String) script("const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null", css, name);
    }

    /** How many elements match {@code css}. */
    public long count(String css) {
        return ((Number) script("return document.querySelectorAll(arguments[0]).length", css)).longValue();
    }

    /** Runs an asynchronous script: it ends by calling its last argument with the result. */
    public Object asyncScript(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeAsyncScript(js, args);
    }

    /**
     * Waits (bounded) until the condition holds, failing with {@code what} and the start of the page's text
     * in the message (a CI log is often all there is to read of a failure).
     */
    public <T> T await(String what, Duration timeout, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, timeout, Duration.ofMillis(100)).withMessage(() -> what + "; the page read: " + pageText(1500))
                .ignoring(StaleElementReferenceException.class).until(condition);
    }

    private String pageText(int max) {
        try {
            String text = String.valueOf(script("return document.body ? document.body.innerText : ''")).replaceAll("\\s+", " ");
            return text.length() <= max ? text : text.substring(0, max) + " …";
        } catch (RuntimeException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    /**
     * Names the directory for the pictures of the console's views ({@code docs/console/} is refreshed with
     * it, docs/console.md "Tests"). Unset, {@link #picture} takes none: each is a resize, a 300-ms settle and a
     * full-page PNG that no assertion reads (without the engine's 16, its console classes took 69.8 s instead of
     * 75.3 s in one JVM on the idle machine).
     */
    public static final String PICTURES = "mpfl.console.screenshots";

    /**
     * Where a failed test keeps its page (picture and text): the {@link #PICTURES} directory if named,
     * else {@code target/console-screenshots}; created.
     */
    public static Path failurePictures() throws IOException {
        return Files.createDirectories(Path.of(System.getProperty(PICTURES, "target/console-screenshots")));
    }

    /**
     * A picture of the whole page, from its top, as {@code fileName} in the {@link #PICTURES} directory;
     * nothing when that property is unset.
     */
    public void picture(String fileName) throws IOException {
        String dir = System.getProperty(PICTURES);
        if (dir != null && !dir.isBlank()) {
            script("window.scrollTo(0, 0)");
            screenshot(Files.createDirectories(Path.of(dir)).resolve(fileName));
        }
    }

    /** Saves a PNG of the whole page (the window grows to the page's height for the shot). */
    public void screenshot(Path file) throws IOException {
        script("if (document.activeElement) document.activeElement.blur()"); // no focus ring in the picture
        Dimension before = driver.manage().window().getSize();
        long height = ((Number) script("return Math.ceil(document.documentElement.scrollHeight)")).longValue();
        driver.manage().window().setSize(new Dimension(before.getWidth(), (int) Math.min(4000, Math.max(before.getHeight(), height + 20))));
        try {
            Thread.sleep(300); // let the layout settle at the new size
            File shot = driver.getScreenshotAs(OutputType.FILE);
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.copy(shot.toPath(), file, StandardCopyOption.REPLACE_EXISTING);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            driver.manage().window().setSize(before);
        }
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } catch (RuntimeException e) {
            // the browser is gone already
        } finally {
            service.stop();
            FileTrees.deleteQuietly(profile);
        }
    }
}
